"""engrain://profile is a profile (issue 26, part 3): it opens with the user's current facts (who they are, home,
work, the people and pets in their life, key dates), then traits by stage with the forming ones apart, plans
in the user's time, habits, and what was told lately; within its token budget. Through a real MCP client."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mcp import Client

from engrain.services.profile.sections import PROFILE_TOKENS
from engrain.services.recall.search import estimate_tokens
from tests.conftest import DATA, Clock, call, connect

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
TEN_SESSIONS = json.loads((DATA / "ten_sessions.json").read_text(encoding="utf-8"))
# A week of ordinary remembering, as a client stores it: nothing pinned, no ids, a correction in passing.
WEEK = [
    ("2026-11-16", "I live in Berlin."),
    ("2026-11-16", "I work as a sound engineer at a studio in Kreuzberg."),
    ("2026-11-17", "My wife Maria is a paediatric nurse."),
    ("2026-11-17", "We have two kids, Leo and Ida."),
    ("2026-11-18", "I prefer short answers with code examples."),
    ("2026-11-19", "My daughter Ida started school in September."),
    ("2026-11-20", "Actually I moved to Lisbon last month."),
    ("2026-11-21", "I go climbing every Thursday evening."),
    ("2026-11-22", "I'm mixing an album for a jazz trio this month."),
    ("2026-11-22", "We're having dinner with Maria's parents next Saturday."),
]


async def read_profile(client: Client) -> str:
    return (await client.read_resource("engrain://profile")).contents[0].text


def section(profile: str, title: str) -> str:
    """The lines under `## title` (empty when the profile has no such section)."""
    match = re.search(rf"^## {re.escape(title)}\n((?:- .*\n?)*)", profile, re.MULTILINE)
    return match.group(1) if match else ""


async def test_a_week_of_ordinary_memories_gives_home_work_and_family(settings_factory):
    async with connect(settings_factory(llm="none"), Clock(NOW)) as (client, _):
        assert "Nothing known yet" in await read_profile(client)
        for day, content in WEEK:
            await call(client, "remember", content=content, said_at=f"{day}T18:00:00Z")
        profile = await read_profile(client)
    about = section(profile, "About them")
    home = r"^- \[said 2026-11-20 · happened 2026-10, home\] «Actually I moved to Lisbon last month\.» \([0-9a-f]{8}\)$"
    assert re.search(home, about, re.M)  # the issue's own case: a month, said when the user said it
    assert "[said 2026-11-16, job] «I work as a sound engineer at a studio in Kreuzberg.»" in about
    assert "Berlin" not in profile  # the corrected home is gone from the profile, not listed beside the new one
    people = section(profile, "People and pets")
    assert "[said 2026-11-17, wife] «My wife Maria is a paediatric nurse.»" in people
    assert "«We have two kids, Leo and Ida.»" in people and "«My daughter Ida started school" in people
    assert "[said 2026-11-21, habit] «I go climbing every Thursday evening.»" in section(profile, "Habits")
    plans = section(profile, "Upcoming plans")
    assert "· happened 2026-11-28, plan] «We're having dinner with Maria's parents next Saturday.»" in plans
    # How they like answers (reading/standing.py): a section of its own, read before the rest (issue 51).
    assert "«I prefer short answers with code examples.»" in section(
        profile, "Instructions and preferences for answers"
    )
    assert profile.index("## About them") < profile.index("## People and pets") < profile.index("## Habits")
    assert "As of 2026-11-22 in the user's time." in profile  # the last told time: the user's clock
    assert estimate_tokens(profile) <= PROFILE_TOKENS


async def test_the_budget_holds_and_counts_what_it_leaves_out(settings_factory):
    async with connect(settings_factory(llm="none"), Clock(NOW)) as (client, _):
        items = [{"content": f"My friend number {i} told me a long story about {'the sea ' * 30}"} for i in range(12)]
        items += [{"content": f"I climb at a gym every Thursday number {i} with {'friends ' * 40}"} for i in range(12)]
        await call(client, "remember_many", items=items)
        profile = await read_profile(client)
    assert estimate_tokens(profile) <= PROFILE_TOKENS
    left_out = re.search(r"^\((\d+) more not shown here — (\d+) memories: recall finds them", profile, re.M)
    assert left_out is not None and int(left_out.group(1)) >= int(left_out.group(2)) > 0


def _alias(task: str, fragment: str) -> str:
    """The [m3]/[t1] alias the task gives to the line containing `fragment`."""
    for line in task.splitlines():
        found = re.match(r"\[(\w+)\]", line)
        if found and fragment in line:
            return found.group(1)
    raise AssertionError(f"{fragment!r} is not in the task")


def _reflection_answer(task: str, traits: dict[str, str]) -> dict[str, Any]:
    """What the scripted calling model concludes: a running habit once it sees one, reinforced later."""
    answer: dict[str, Any] = {"new_trends": [], "new_behaviors": [], "reinforcements": []}
    if "learning Portuguese" in task and "Is learning Portuguese" not in task:
        evidence = _alias(task, "learning Portuguese")
        answer["new_trends"].append(
            {"content": "Is learning Portuguese", "evidence_ids": [evidence], "context": "learning"}
        )
    if "run every Tuesday and Saturday" in task:
        evidence = _alias(task, "run every Tuesday and Saturday")
        if "running" in traits:
            trait = _alias(task, "Runs twice a week")
            answer["reinforcements"].append({"trait_id": trait, "new_evidence_ids": [evidence], "quality_grade": "C"})
        else:
            answer["new_behaviors"].append(
                {
                    "content": "Runs twice a week, on Tuesdays and Saturdays",
                    "evidence_ids": [evidence],
                    "confidence": 0.4,
                    "context": "personal",
                }
            )
            traits["running"] = "Runs twice a week"
    return answer


async def test_the_calling_model_on_ten_dated_sessions(settings_factory):
    """Plays the calling model through host tasks: each session is ingested (the task names the messages by
    number and does not echo them), its extraction answered, and a reflection asked for and answered. The
    profile then holds the person's facts, corrected, and every task text stays small."""
    sizes: list[dict[str, int]] = []
    traits: dict[str, str] = {}
    clock = Clock(NOW)
    async with connect(settings_factory(llm="host"), clock) as (client, _):
        for number, session in enumerate(TEN_SESSIONS["sessions"], start=1):
            clock.now += timedelta(minutes=10)  # imported one after another, a few minutes apart
            messages = session["messages"]
            sent = await call(
                client, "ingest_conversation", messages=messages, said_at=session["said_at"], session_id=f"s{number}"
            )
            assert sent["status"] == "needs_model"
            task = sent["task"]
            assert not any(m["content"] in task for m in messages)  # referred to by number, never echoed
            answer = {"memories": session["extract"], "summary": session["summary"]}
            await call(client, "ingest_conversation", task_id=sent["task_id"], answer=answer)
            reflection = await call(client, "reflect", force=True)
            reflect_answer = _reflection_answer(reflection["task"], traits)
            await call(client, "reflect", task_id=reflection["task_id"], answer=reflect_answer)
            if number == 2:  # right after the first reflection that made a trait, it is listed as forming
                listed = await client.call_tool("get_user_traits", {})
                assert "[forming: candidate, 0.40] «Runs twice a week, on Tuesdays and Saturdays»" in (
                    listed.content[0].text
                )
            sizes.append(
                {
                    "extraction_task": len(task),
                    "extraction_answer": len(json.dumps(answer, ensure_ascii=False)),
                    "reflection_task": len(reflection["task"]),
                    "reflection_answer": len(json.dumps(reflect_answer, ensure_ascii=False)),
                }
            )
        profile = await read_profile(client)
    for fact in TEN_SESSIONS["gold"]["present"]:
        assert fact in profile, fact
    for stale in TEN_SESSIONS["gold"]["absent"]:
        assert stale not in profile, stale
    about = section(profile, "About them")
    assert "name] «My name is Maya.»" in about and "origin] «I'm from Cork originally.»" in about
    assert "home] «Actually I moved to Lisbon in early June 2023.»" in about
    assert "job] «I work as a midwife at a hospital in Lisbon.»" in about and "nurse" not in about
    assert "«Tom and I passed the adoption home study.»" in section(profile, "Key dates")
    # A plan told in 2023 for a day that had passed when it was imported is history, not an upcoming plan.
    assert "Upcoming plans" not in profile and "Overdue plans" not in profile
    assert "Runs twice a week" in section(profile, "Forming traits (tentative, not yet confirmed)")
    assert estimate_tokens(profile) <= PROFILE_TOKENS
    # The host route's weight: what the model reads per session stays small (the task names its messages).
    longest = max(s["extraction_task"] for s in sizes)
    assert longest < 2_000 + 1_600, sizes  # the session's part under 2,000, plus the fixed instructions
    print(json.dumps({"per_session": sizes, "profile_tokens": estimate_tokens(profile)}))


async def test_a_twenty_message_extraction_task_names_the_messages_and_stays_small(settings_factory):
    """The host route's extraction task for 20 long messages a minute apart: the conversation's part of the
    task (which messages are the user's, when each was written) stays under 2,000 characters; the rest is
    the fixed instructions, the same for every conversation."""
    start = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
    messages = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"Message {i}: " + "a long turn about the user's week, their plans and their family " * 4,
            "said_at": (start + timedelta(minutes=i)).isoformat(),
        }
        for i in range(20)
    ]
    async with connect(settings_factory(llm="host"), Clock(NOW)) as (client, _):
        task = (await call(client, "ingest_conversation", messages=messages))["task"]
    assert not any(m["content"] in task for m in messages)
    specific = [line for line in task.splitlines() if line.startswith(("The conversation is", "When each was"))]
    assert "the user's are 1, 3, 5, 7, 9, 11, 13, 15, 17, 19." in specific[0]
    assert "1: 2023-05-08 13:00; 2: 2023-05-08 13:01;" in specific[1]
    assert sum(len(line) for line in specific) < 2_000
    assert len(task) < 2_000 + 1_500  # and the instructions around it
