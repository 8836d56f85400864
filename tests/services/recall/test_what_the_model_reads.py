"""What the model reads (issue 26, parts 2 and 3): a recall's text shows each hit's date, what it is when
that matters (plan, overdue plan, habit, trait) and its whole words, with a short id every tool takes back;
the score's terms only with explain=true; get_user_traits shows the traits still forming, marked so.
Through a real MCP client, as Claude Desktop hands the model the text and not the structured content."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import Clock, call, call_error, connect, execute
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)  # a Monday
CHECKLIST = (
    "My release checklist: 1. bump the version in pyproject 2. run the full test suite on a clean clone "
    "3. build the wheel and check its size 4. tag the commit and push the tag 5. publish to PyPI with the "
    "token from the vault 6. announce it in the team channel with the changelog and thank the reviewers"
)


async def recall_text(client, query: str, **args) -> tuple[str, dict]:
    result = await client.call_tool("recall", {"query": query, **args})
    return result.content[0].text, result.structured_content


async def test_each_hit_is_its_date_its_whole_words_and_a_short_id(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        single = await call(
            client, "remember", content="Yesterday I finished mastering the single", said_at="2023-05-08T10:00:00Z"
        )
        steps = await call(client, "remember", content=CHECKLIST)
        text, data = await recall_text(client, "when did I finish mastering the single")
        said = "- [said 2023-05-08 · happened 2023-05-07] «Yesterday I finished mastering the single» "
        assert f"{said}({single['id'][:8]})" in text  # both times, labelled: the model shifts neither
        text, _ = await recall_text(client, "release checklist")
        assert f"- [said 2026-11-23, procedure] «{CHECKLIST}» ({steps['id'][:8]})" in text  # steps 4-6 included
        assert single["id"] not in text and "score" not in text
        assert all(hit["breakdown"] is None for hit in data["results"])  # the terms only on request


async def test_plans_habits_and_overdue_plans_say_so(settings_factory):
    clock = Clock(NOW)
    async with connect(settings_factory(), clock) as (client, _):
        plan = await call(client, "remember", content="Dentist appointment on Thursday")
        await call(client, "remember", content="I go climbing on Thursday evenings")
        text, _ = await recall_text(client, "Thursday")
        said = "said 2026-11-23 · happened 2026-11-26"
        assert f"- [{said}, plan] «Dentist appointment on Thursday» ({plan['id'][:8]})" in text
        assert "- [said 2026-11-23, habit] «I go climbing on Thursday evenings»" in text
        clock.now += timedelta(days=5)
        text, _ = await recall_text(client, "dentist")
        assert "[said 2026-11-23 · happened 2026-11-26, overdue plan] «Dentist appointment on Thursday»" in text


async def test_explain_adds_the_score_terms_to_the_text_and_the_result(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        await call(client, "remember", content="Lena plays the cello in an orchestra")
        text, data = await recall_text(client, "Lena cello", explain=True)
        assert "  score " in text and "vector" in text and "recency" in text
        assert data["results"][0]["breakdown"]["text"] is True


async def test_the_text_keeps_to_its_token_budget(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        for i in range(6):
            await call(client, "remember", content=f"Gardening note {i}: " + "compost and mulch the beds. " * 30)
        text, data = await recall_text(client, "gardening compost", max_tokens=600)
        assert len(text) <= 4 * 600 + 400  # the header and the ids beside the budgeted words
        full, _ = await recall_text(client, "gardening compost")
        assert len(full) > len(text)
        assert data["results"]


async def test_every_tool_takes_the_short_id_back(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        old = await call(client, "remember", content="I live in Berlin")
        other = await call(client, "remember", content="My sister lives in Lisbon")
        newer = await call(client, "remember", content="I live in Lisbon now", supersedes=old["id"][:8])
        assert newer["superseded"] == old["id"]
        linked = await call(client, "link", source_id=newer["id"][:8], target_id=other["id"][:10])
        assert (linked["source_id"], linked["target_id"]) == (newer["id"], other["id"])
        detail = json.loads((await client.read_resource(f"engrain://memories/{other['id'][:8]}")).contents[0].text)
        assert detail["id"] == other["id"]
        gone = await call(client, "forget", memory_id=other["id"][:8])
        assert gone["id"] == other["id"]
        assert "not a memory id" in await call_error(client, "forget", memory_id="abc")  # too short to be one


async def test_a_short_id_that_starts_two_memories_is_refused_with_both(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, app):
        first = await call(client, "remember", content="I like green tea")
        twin = uuid.UUID(first["id"][:8] + "0" * 24)  # another memory whose id starts the same
        await execute(
            app,
            "INSERT INTO memories (id, user_id, kind, content, content_hash) VALUES (:id, :u, 'fact', 'x', 'h')",
            id=twin,
            u=app.settings.user,
        )
        error = await call_error(client, "forget", memory_id=first["id"][:8])
        assert "starts more than one memory id" in error and first["id"][:13] in error
        assert (await call(client, "forget", memory_id=first["id"][:13]))["id"] == first["id"]


async def test_the_traits_a_first_reflection_makes_are_shown_as_forming(settings_factory):
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {"content": "Runs before work", "confidence": 0.45, "evidence_ids": [alias(p, "ran 5k")]},
                {"content": "Drinks green tea", "confidence": 0.3, "evidence_ids": [alias(p, "green tea")]},
            ]
        )
    )
    async with connect(settings_factory(), Clock(NOW), llm) as (client, _):
        await call(client, "remember", content="I ran 5k before work today")
        await call(client, "remember", content="Had my usual green tea")
        await call(client, "reflect", force=True)
        result = await client.call_tool("get_user_traits", {})
        text, traits = result.content[0].text, result.structured_content["traits"]
        assert {t["content"] for t in traits} == {"Runs before work", "Drinks green tea"}
        assert text.startswith("2 of 2 traits at or above candidate, 2 of them still forming")
        ids = {t["content"]: t["id"][:8] for t in traits}
        assert f"- [forming: candidate, 0.45] «Runs before work» ({ids['Runs before work']})" in text
        assert f"- [forming: candidate, 0.30] «Drinks green tea» ({ids['Drinks green tea']})" in text
        reviewed = await call(client, "review_trait", trait_id=ids["Drinks green tea"], action="dismiss")
        assert reviewed["stage"] == "dissolved"


async def test_a_result_says_when_a_reflection_is_due_and_nothing_otherwise(settings_factory, monkeypatch):
    """Claude Desktop does not read the server's instructions: what a model must do next is in the result."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    clock = Clock(NOW)
    async with connect(settings_factory(llm="host"), clock) as (client, _):
        # Issue 39: the line closed every result from the first memory on, with a count up to 30 s old. It comes
        # once a reflection is worth a turn — five new memories told on three days of the user's time (issue 61:
        # on evidence, not on how often the model is asked) — and counts the memory just stored.
        days = [NOW - timedelta(days=2), NOW - timedelta(days=2), NOW - timedelta(days=1), NOW - timedelta(days=1)]
        texts = ["I ran 5k before work that day", "I cycle to the office", "I read before bed", "I cook on Sundays"]
        for text, day in zip(texts, days, strict=True):
            told = {"content": text, "said_at": day.isoformat()}
            assert "\n" not in (await client.call_tool("remember", told)).content[0].text
        fifth = await client.call_tool("remember", {"content": "I drink green tea in the afternoon"})
        assert fifth.content[0].text.endswith(
            "Reflection due (5 new memories to digest): call reflect when the conversation allows."
        )
        many = await client.call_tool(
            "remember_many", {"items": [{"content": "I swim on Fridays"}, {"content": "I garden in spring"}]}
        )
        assert many.content[0].text.endswith(
            "Reflection due (7 new memories to digest): call reflect when the conversation allows."
        )
        out = await call(client, "reflect")
        assert out["status"] == "needs_model"
        found = await client.call_tool("recall", {"query": "running"})
        assert found.content[0].text.endswith("A reflection task waits for you: call reflect to get it.")
        await call(client, "reflect", task_id=out["task_id"], answer=answer())
        clock.now += timedelta(seconds=10)
        quiet = await client.call_tool("remember", {"content": "I like green tea"})
        assert "\n" not in quiet.content[0].text  # reflected 10 s ago: nothing is due, nothing is said
