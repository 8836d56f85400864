"""Told time (issue 25, part 1): a memory keeps when the user said it, apart from when engrain stored it;
relative dates are read against the told time, never the server's clock; a plan whose date passed before
engrain heard of it is history; ingested conversations keep their messages' times and date their
summaries by them. Everything through a real MCP client."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.conftest import Clock, call, call_error, connect, line_ids
from tests.scripted import ScriptedLLM

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)  # a Monday


async def detail(client, memory_id: str) -> dict:
    return json.loads((await client.read_resource(f"engrain://memories/{memory_id}")).contents[0].text)


async def test_relative_dates_are_read_against_the_told_time(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(
            client, "remember", content="Yesterday I finished mastering the single", said_at="2023-05-08T10:00:00Z"
        )
        assert out["told_at"].startswith("2023-05-08T10:00")
        assert out["event_time"].startswith("2023-05-07") and out["kind"] == "episodic"
        live = await call(client, "remember", content="Yesterday I repotted the fig tree")
        assert live["told_at"].startswith("2026-11-23") and live["event_time"].startswith("2026-11-22")
        # An explicit event time given as a phrase counts from the told time too.
        given = await call(
            client, "remember", content="Signed the lease", event_time="last Friday", said_at="2023-05-08"
        )
        assert given["event_time"].startswith("2023-05-05")
        found = await call(client, "recall", explain=True, query="mastering the single")
        assert found["results"][0]["told_at"].startswith("2023-05-08T10:00")


async def test_a_plan_whose_date_passed_before_it_was_told_to_engrain_is_history(settings_factory):
    """Told to a user whose clock is at today (a live user), a plan of 2023 for a weekend long gone is history."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        live = await call(client, "remember", content="I'm going to paint the shed on Saturday")
        assert live["temporality"] == "prospective" and live["event_time"] > NOW.isoformat()
        old = await call(client, "remember", content="I'm going to paint the fence this weekend", said_at="2023-05-08")
        assert old["event_time"].startswith("2023-05-13") and old["temporality"] == "historical"
        intentions = (await client.read_resource("engrain://intentions")).contents[0].text
        assert line_ids(intentions, "Upcoming") == [live["id"][:8]] and line_ids(intentions, "Overdue") == []


async def test_a_history_told_to_a_fresh_home_is_judged_on_its_own_time(settings_factory):
    """A fresh home has no clock but the history it is told (issue 52: one clock): the plan is ahead there, in
    the result, the intentions and recall alike; a later live message moves the clock, and the plan is over."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        old = await call(client, "remember", content="I'm going to paint the fence this weekend", said_at="2023-05-08")
        intentions = (await client.read_resource("engrain://intentions")).contents[0].text
        recalled = (await client.call_tool("recall", {"query": "paint the fence"})).content[0].text
        assert old["temporality"] == "prospective" and line_ids(intentions, "Upcoming") == [old["id"][:8]]
        assert "plan]" in recalled and "overdue" not in recalled
        await call(client, "remember", content="I'm going to paint the shed on Saturday")
        intentions = (await client.read_resource("engrain://intentions")).contents[0].text
        recalled = (await client.call_tool("recall", {"query": "paint the fence"})).content[0].text
    assert line_ids(intentions, "Overdue") == [old["id"][:8]] and "overdue plan" in recalled


async def test_a_told_time_in_the_future_is_refused_with_its_field(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        error = await call_error(client, "remember", content="I like tea", said_at="2027-01-01")
        assert "said_at" in error and "future" in error
        items = [{"content": "I like tea"}, {"content": "I like coffee", "said_at": "2030-01-01"}]
        error = await call_error(client, "remember_many", items=items)
        assert "items[1].said_at" in error


async def test_remember_many_keeps_each_items_told_time(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(
            client,
            "remember_many",
            items=[
                {"content": "Yesterday I adopted a cat named Miso", "said_at": "2023-06-02"},
                {"content": "Yesterday I started a new job at the studio", "said_at": "2023-09-15"},
            ],
        )
        first, second = out["results"]
        assert first["told_at"].startswith("2023-06-02") and first["event_time"].startswith("2023-06-01")
        assert second["told_at"].startswith("2023-09-15") and second["event_time"].startswith("2023-09-14")


async def test_ingested_messages_keep_their_times_without_a_model(settings_factory):
    messages = [
        {
            "role": "user",
            "content": "Yesterday I passed the adoption agency interviews.",
            "said_at": "2023-05-08T09:00:00Z",
        },
        {"role": "assistant", "content": "Congratulations!"},
        {"role": "user", "content": "Yesterday I painted the nursery.", "said_at": "2023-10-02T18:30:00Z"},
    ]
    async with connect(settings_factory(llm="none"), Clock(NOW)) as (client, _):
        out = await call(client, "ingest_conversation", messages=messages, said_at="2023-05-08T08:00:00Z")
        assert out["method"] == "rules" and len(out["created"]) == 2
        stored = {m["content"]: m for m in [await detail(client, i) for i in out["created"]]}
        interviews = stored["Yesterday I passed the adoption agency interviews."]
        nursery = stored["Yesterday I painted the nursery."]
        assert interviews["told_at"].startswith("2023-05-08T09:00") and interviews["event_time"].startswith(
            "2023-05-07"
        )
        assert nursery["told_at"].startswith("2023-10-02T18:30") and nursery["event_time"].startswith("2023-10-01")
        error = await call_error(client, "ingest_conversation", messages=[{**messages[0], "said_at": "2031-01-01"}])
        assert "messages[0].said_at" in error


async def test_a_models_extraction_carries_the_message_times_and_the_summary_its_sources_date(settings_factory):
    llm = ScriptedLLM(
        {
            "memories": [
                {"content": "Passed the adoption agency interviews", "said_at": "2023-05-08 09:00"},
                {"content": "Painted the nursery", "kind": "episodic", "event_time": "2023-10-01"},
                {"content": "Has a cat named Miso", "said_at": "not a time the model should write"},
            ],
            "summary": "The adoption is progressing.",
        }
    )
    messages = [
        {"role": "user", "content": "I passed the adoption agency interviews!", "said_at": "2023-05-08T09:00:00Z"},
        {
            "role": "user",
            "content": "Yesterday I painted the nursery. Miso the cat watched.",
            "said_at": "2023-10-02T18:30:00Z",
        },
    ]
    async with connect(settings_factory(), Clock(NOW), llm) as (client, _):
        out = await call(client, "ingest_conversation", messages=messages)
        prompt = llm.prompts[0].user
        assert "[2023-05-08 09:00] user:" in prompt and "[2023-10-02 18:30] user:" in prompt
        assert "ended on 2023-10-02 (Monday)" in prompt and '"said_at"' in prompt
        interviews, nursery, cat = [await detail(client, i) for i in out["created"]]
        assert interviews["told_at"].startswith("2023-05-08T09:00")
        assert nursery["told_at"].startswith("2023-10-02T18:30")  # no time given: the conversation's end
        assert cat["told_at"].startswith("2023-10-02T18:30")  # an unreadable time: the conversation's end
        summary = await detail(client, out["summary_id"])
        assert summary["told_at"].startswith("2023-10-02T18:30") and summary["event_time"].startswith("2023-10-02")


async def test_a_host_task_extraction_is_told_at_the_conversations_time(settings_factory):
    messages = [
        {"role": "user", "content": "Yesterday I ran my first half marathon.", "said_at": "2023-04-17T08:00:00Z"},
        {"role": "assistant", "content": "Congratulations!", "said_at": "2023-04-17T08:01:00Z"},
        {"role": "user", "content": "My knees hurt today.", "said_at": "2023-04-18T07:30:00Z"},
    ]
    async with connect(settings_factory(llm="host"), Clock(NOW)) as (client, _):
        out = await call(client, "ingest_conversation", messages=messages)
        assert out["status"] == "needs_model" and "half marathon" not in out["task"]
        assert "When each was written: 1: 2023-04-17 08:00; 2: 2023-04-17 08:01; 3: 2023-04-18 07:30." in out["task"]
        provisional = await detail(client, out["created"][0])
        assert provisional["told_at"].startswith("2023-04-17") and provisional["event_time"].startswith("2023-04-16")
        answer = {
            "memories": [
                {"content": "Ran a first half marathon", "kind": "episodic", "event_time": "2023-04-16", "message": 1},
                {"content": "Knees hurt the day after the half marathon"},
            ]
        }
        wrong = {"memories": [{"content": "Knees hurt", "message": 4}]}
        refused = await call_error(client, "ingest_conversation", task_id=out["task_id"], answer=wrong)
        assert "answer.memories[0].message: 4 is not a message of this conversation (1–3)" in refused
        done = await call(client, "ingest_conversation", task_id=out["task_id"], answer=answer)
        stored, knees = [await detail(client, i) for i in done["created"]]
        # With a message number: that message's time; without one: the conversation's end.
        assert stored["told_at"].startswith("2023-04-17T08:00") and stored["event_time"].startswith("2023-04-16")
        assert knees["told_at"].startswith("2023-04-18T07:30")


async def test_an_imported_story_ranks_as_it_was_lived_and_its_newest_fact_first(settings_factory):
    """Recency runs on the user's timeline: of one story imported today, the fact told last ranks first, and
    a summary told with its sources gains nothing over them by recency (docs/SPEC.md §6)."""
    items = [
        {"content": "Adoption news: we sent the adoption agency our forms", "said_at": "2023-05-08"},
        {"content": "Adoption news: the adoption agency home visit went well", "said_at": "2023-07-20"},
        {"content": "Adoption news: we passed the adoption agency interviews", "said_at": "2023-10-02"},
        {"content": "Conversation summary: adoption news about the agency", "said_at": "2023-10-02"},
    ]
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        stored = (await call(client, "remember_many", items=items))["results"]
        forms, visit, interviews, summary = (r["id"] for r in stored)
        found = await call(client, "recall", explain=True, query="adoption news agency", include_links=False)
        rank = {hit["id"]: i for i, hit in enumerate(found["results"])}
        recency = {hit["id"]: hit["breakdown"]["recency"] for hit in found["results"]}
        assert rank[interviews] < rank[visit] < rank[forms]
        assert recency[interviews] == pytest.approx(1.0) and recency[forms] < recency[visit] < 1.0
        assert recency[summary] == pytest.approx(recency[interviews])  # no newer than what it stands for
