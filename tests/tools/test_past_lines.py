"""Lines that read as current but are not (issue 61, point 5), through a real MCP client: a past event given a key
is no fact about who the user is, a recurrence inside one stretch of the past is no habit, and a plan whose time
passed says so in every output that shows it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from engrain.scheduler import jobs
from tests.conftest import Clock, call, connect

pytestmark = pytest.mark.anyio
NOW = datetime(2022, 11, 20, 18, 0, tzinfo=UTC)
SCREENPLAY = (
    "By early February 2022 I had sent my first screenplay to the Sundance lab, and it has been on my mind every day."
)
ON_SET = "A week every day on set was awesome."
RUNS = "I run every day before work."
STUDIO = "I'm going to open my own dance studio next month."


def line_of(text: str, words: str) -> str:
    """The line of a tool's text that quotes `words`."""
    return next(line for line in text.splitlines() if words in line)


async def test_a_past_event_is_history_and_a_week_on_set_is_no_habit(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        await call(client, "remember", content="I live in Leeds.", said_at="2022-01-08")
        stored = await call(
            client, "remember", content=SCREENPLAY, said_at="2022-02-20", key="user · screenplay", importance=8
        )
        assert stored["temporality"] == "historical" and stored["kind"] == "episodic"
        await call(client, "remember", content=ON_SET, said_at="2022-03-05")
        await call(client, "remember", content=RUNS, said_at="2022-03-06")

        tool = await client.call_tool("get_profile", {})
        text = tool.content[0].text
        sections = {s["title"]: s for s in tool.structured_content["sections"]}
        about = [line["content"] for line in sections["About them"]["lines"]]
        assert about == ["I live in Leeds."]  # the screenplay's key is not who they are now
        # It is a key date, with its date: a line that shows it is past.
        assert [line["content"] for line in sections["Key dates"]["lines"]] == [SCREENPLAY]
        assert "happened 2022-02" in line_of(text, "first screenplay")
        habits = [line["content"] for line in sections["Habits"]["lines"]]
        assert habits == [RUNS]

        recalled = (await client.call_tool("recall", {"query": "every day on set"})).content[0].text
        assert "habit" not in line_of(recalled, ON_SET)
        runs = (await client.call_tool("recall", {"query": "run every day"})).content[0].text
        assert "habit" in line_of(runs, RUNS)


async def test_a_plan_whose_time_passed_is_marked_past_everywhere(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, app):
        plan = await call(client, "remember", content=STUDIO, said_at="2022-01-20")
        assert plan["temporality"] == "prospective"
        # Told later in the user's time, and the expiry pass the scheduler runs between sessions.
        await call(client, "remember", content="The studio on Main Street needs new floors.", said_at="2022-06-01")
        await jobs.expiry(app.job_context, app.clock(), None, False)
        # A plan told in the past whose time is over by the user's present arrives as history.
        late = await call(client, "remember", content="I'm painting the fence next weekend.", said_at="2022-03-01")
        assert late["temporality"] == "historical"

        recalled = (await client.call_tool("recall", {"query": "dance studio"})).content[0].text
        assert re.search(r"\[said 2022-01-20 · happened 2022-02, past plan\]", line_of(recalled, STUDIO))
        hits = (await call(client, "recall", query="dance studio"))["results"]
        assert next(h for h in hits if h["content"] == STUDIO)["was_plan"] is True
        fence = (await client.call_tool("recall", {"query": "paint the fence"})).content[0].text
        assert "past plan" in line_of(fence, "painting the fence")

        tool = await client.call_tool("get_profile", {})
        lines = [line for s in tool.structured_content["sections"] for line in s["lines"]]
        shown = [line for line in lines if line["content"] in (STUDIO, "I'm painting the fence next weekend.")]
        assert shown and all("past plan" in line["tags"] for line in shown)
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert "past plan" in line_of(profile, "dance studio")
        assert "dance studio" not in (await client.read_resource("engrain://intentions")).contents[0].text
        memory = json.loads((await client.read_resource(f"engrain://memories/{plan['id']}")).contents[0].text)
        assert memory["temporality"] == "historical" and memory["metadata"]["was_plan"] is True


async def test_after_a_correction_no_old_value_comes_back_unmarked(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        await call(client, "remember", content="I live in Berlin.", said_at="2022-01-10")
        summary = "Conversation summary: the user lives in Berlin, works at Zalando and loves techno."
        await call(client, "remember", content=summary, said_at="2022-01-10")
        no_pets = await call(client, "remember", content="I don't have any pets.", said_at="2022-01-20")
        never = "My landlord hates animals, so I may never get a pet."
        await call(client, "remember", content=never, said_at="2022-01-20")
        moved = await call(client, "remember", content="We moved to Hamburg last weekend.", said_at="2022-06-01")
        puppy = await call(
            client, "remember", content="We got a puppy!", said_at="2022-06-02", supersedes=no_pets["id"]
        )
        assert puppy["superseded"] and moved["superseded"]

        home = await client.call_tool("recall", {"query": "where do I live?"})
        line = line_of(home.content[0].text, "lives in Berlin")
        assert f"older than {moved['id'][:8]} (2022-06-01), which replaced «I live in Berlin.»" in line
        hits = home.structured_content["results"]
        assert hits[0]["content"] == "We moved to Hamburg last weekend."
        assert next(h for h in hits if h["content"] == summary)["outdated"]

        pets = await client.call_tool("recall", {"query": "do I have a pet?"})
        line = line_of(pets.content[0].text, "never get a pet")
        assert f"older than {puppy['id'][:8]} (2022-06-02), which replaced «I don't have any pets.»" in line
        assert "older than" not in line_of(pets.content[0].text, "We got a puppy")  # the new value is unmarked
        works = (await client.call_tool("recall", {"query": "techno"})).content[0].text
        assert "older than" in line_of(works, "loves techno.»")  # the summary still says Berlin
