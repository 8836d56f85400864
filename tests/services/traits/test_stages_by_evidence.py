"""How often a model is asked, and what makes a trait core (issue 61, points 3 and 4), through a real MCP client on
the host route, the calling model scripted:

- a reflection is due when enough new evidence has arrived (memories told on 3 days of the user's time), not after
  every conversation;
- a trait reinforced on many occasions over months stops at established whatever its confidence: core is a core
  value, which only an upgrade answer saying which preferences it explains makes;
- a trend made from evidence told 35 days before, with a window of 30 days, lives past the cycle that made it (its
  window counts from the day it is made, as the task says);
- a reflection task's memory lines are bounded, however long the memories.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from engrain.rules.traits import CORE_FROM
from engrain.services.traits.prompts import LINE_CHARS
from engrain.services.traits.reflection.planning import MEMORY_CHARS
from tests.conftest import Clock, call, connect
from tests.services.traits.test_a_year_of_sessions import later, lines, reflect_as, stage_of

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
DUE = "Reflection due"


def said(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


async def test_a_conversation_of_twelve_weekly_sessions_is_due_for_reflection_every_third(host_settings):
    due: list[int] = []
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        for week in range(12):
            later(clock)
            day = date(2022, 1, 3) + timedelta(weeks=week)
            messages = [
                {"role": "user", "content": f"This week I repaired bike number {week} and baked bread {week}."},
                {"role": "assistant", "content": "Nice! How did the bread turn out?"},
                {"role": "user", "content": f"The bread was great; I also walked to the lake on day {week}."},
            ]
            sent = await call(client, "ingest_conversation", messages=messages, said_at=day.isoformat())
            extraction = {
                "memories": [
                    {"content": f"I repaired bike number {week}", "message": 1},
                    {"content": f"I baked bread in week {week}", "message": 1},
                    {"content": f"I walked to the lake in week {week}", "message": 3},
                ]
            }
            result = await client.call_tool("ingest_conversation", {"task_id": sent["task_id"], "answer": extraction})
            assert not result.is_error, result.content
            if DUE in said(result):
                due.append(week + 1)
                await reflect_as(client, lambda task: {"new_trends": []})
    # Memories told on 3 days wait: due after sessions 3, 6, 9 and 12 — not after 11 of 12 (issue 61: 21 of 30).
    assert due == [3, 6, 9, 12], due


TRAIT = "Swims before work"
PREFERENCE = "Prefers exercising in the morning"
VALUE = "Values a disciplined, healthy routine"


def swimmer(task: str) -> dict[str, Any]:
    """Reinforce the swimming trait with every swimming memory the task shows (grade B), or report it new."""
    swims = [a for a, line in lines(task, "m") if "swam" in line]
    listed = [a for a, line in lines(task, "t") if TRAIT in line]
    if not swims:
        return {"new_trends": []}
    if listed:
        return {"reinforcements": [{"trait_id": listed[0], "new_evidence_ids": swims, "quality_grade": "B"}]}
    return {"new_behaviors": [{"content": TRAIT, "evidence_ids": swims, "confidence": 0.5}]}


async def test_a_trait_of_many_occasions_is_core_only_through_an_upgrade_that_says_what_it_explains(host_settings):
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        for month in range(1, 11):
            later(clock)
            items = [
                {"content": f"I swam 40 lengths before work ({month}/2022)", "said_at": f"2022-{month:02d}-03"},
                {"content": f"I swam at dawn again ({month}/2022)", "said_at": f"2022-{month:02d}-17"},
            ]
            await call(client, "remember_many", items=items)
            await reflect_as(client, swimmer)
        stage = await stage_of(client, TRAIT)
        detail = await call(client, "get_user_traits", min_stage="trend", include_evidence=True)
        # 20 occasions over 10 months, confidence past core's: held at established, and its history says why.
        assert stage is not None and stage[0] == "established" and stage[1] >= CORE_FROM, stage
        trait_id = next(t["id"] for t in detail["traits"] if t["content"] == TRAIT)
        text = (await client.read_resource(f"engrain://traits/{trait_id}")).contents[0].text
        assert "core needs an upgrade into a core value" in text, text

        # The model says what it explains: a preference, then the value behind it — core.
        def upgrade(into: str, content: str, source: str, reasoning: str):
            def model(task: str) -> dict[str, Any]:
                sources = [a for a, line in lines(task, "t") if source in line]
                return {
                    "upgrades": [
                        {"from_trait_ids": sources, "new_content": content, "new_subtype": into, "reasoning": reasoning}
                    ]
                }

            return model

        for into, content, source, why in (
            ("preference", PREFERENCE, TRAIT, "swims before work every week"),
            ("core", VALUE, PREFERENCE, "explains the morning exercise and the early swims"),
        ):
            later(clock)
            await call(client, "remember", content=f"Told a friend about my routine ({into})", said_at="2022-10-30")
            await reflect_as(client, upgrade(into, content, source, why))
        assert (await stage_of(client, PREFERENCE) or ("none",))[0] == "established"
        assert (await stage_of(client, VALUE) or ("none",))[0] == "core"


async def test_a_trend_of_evidence_older_than_its_window_lives_past_the_cycle_that_made_it(host_settings):
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        await call(client, "remember", content="I started learning the cello", said_at="2022-03-01")
        await call(client, "remember", content="Booked a dentist appointment", said_at="2022-04-05")
        out = await call(client, "reflect", force=True)
        task = out["task"]
        # The task says where the window counts from: the user's today, the newest told date.
        assert "Its window counts from 2022-04-05" in task, task
        cello = next(a for a, line in lines(task, "m") if "cello" in line)
        reply = {"new_trends": [{"content": "Learning the cello", "evidence_ids": [cello], "window_days": 30}]}
        done = await call(client, "reflect", task_id=out["task_id"], answer=reply)
        assert done["traits_created"] == 1 and done["traits_dissolved"] == 0, done
        assert await stage_of(client, "Learning the cello") == ("trend", 0.2)
        # Nothing told since: the next cycle keeps it too; told past its window (2022-05-05) with no reinforcement,
        # it passes.
        later(clock)
        await call(client, "remember", content="Went to the market", said_at="2022-04-20")
        await reflect_as(client, lambda task: {"new_trends": []})
        assert await stage_of(client, "Learning the cello") == ("trend", 0.2)
        later(clock)
        await call(client, "remember", content="Repainted the kitchen", said_at="2022-05-20")
        await reflect_as(client, lambda task: {"new_trends": []})
        assert await stage_of(client, "Learning the cello") is None


async def test_a_reflection_task_cuts_long_memories_and_stays_bounded(host_settings):
    """30 long memories: each line cut to LINE_CHARS; a task shows as many as fit MEMORY_CHARS of lines, and the
    next task the rest."""
    clock = Clock(NOW)
    long = "I keep notes on every experiment, " + "with the date, the setup and the outcome " * 20
    async with connect(host_settings(), clock) as (client, _):
        await call(
            client,
            "remember_many",
            items=[{"content": f"{long} (run {i})", "said_at": f"2022-01-{i + 1:02d}"} for i in range(30)],
        )
        out = await call(client, "reflect", force=True)
        await call(client, "reflect", task_id=out["task_id"], answer={"new_trends": []})
        rest = await call(client, "reflect", force=True)
    shown = lines(out["task"], "m")
    assert 10 < len(shown) < 30 and sum(len(line) + 1 for _, line in shown) <= MEMORY_CHARS, len(shown)
    # Each memory in one task (their ends are cut; the told dates say which).
    told = [line.split("said ")[1][:10] for _, line in [*shown, *lines(rest["task"], "m")]]
    assert sorted(told) == [f"2022-01-{i + 1:02d}" for i in range(30)], told
    # A line: its alias, its tags and the words cut to LINE_CHARS (a cut one is whole in recall).
    assert all(len(line) <= LINE_CHARS + 60 and line.rstrip("»").endswith("…") for _, line in shown), shown[0]
    instructions = re.sub(r"^\[m\d+\].*$\n?", "", out["task"], flags=re.MULTILINE)
    assert len(instructions) < 5_000, len(instructions)
