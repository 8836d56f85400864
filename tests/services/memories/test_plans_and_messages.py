"""What a new user met on the write path, through the MCP client: plans stored as past events,
requests to the assistant stored as plans, back-dated plans, time phrases refused, rule-based
ingestion that kept fragments, and error messages that were raw dumps."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from tests.conftest import Clock, call, call_error, connect, line_ids

pytestmark = pytest.mark.anyio
SUNDAY = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


async def read_json(client, uri: str):
    return json.loads((await client.read_resource(uri)).contents[0].text)


async def read_text(client, uri: str) -> str:
    return (await client.read_resource(uri)).contents[0].text


async def test_need_to_plans_point_forward_and_are_intentions(settings_factory):
    async with connect(settings_factory(), Clock(SUNDAY)) as (client, _):
        report = await call(client, "remember", content="I need to finish the report by Friday.")
        plumber = await call(client, "remember", content="I need to call the plumber on Monday.")
        intentions = await read_text(client, "engrain://intentions")
    assert (report["kind"], report["temporality"], report["event_time"][:10]) == ("fact", "prospective", "2026-11-27")
    assert (plumber["temporality"], plumber["event_time"][:10]) == ("prospective", "2026-11-23")
    assert line_ids(intentions, "Upcoming") == [plumber["id"][:8], report["id"][:8]]


async def test_requests_to_the_assistant_are_no_plans(settings_factory):
    async with connect(settings_factory(), Clock(SUNDAY)) as (client, _):
        ask = await call(
            client,
            "remember",
            content="Can you explain this step by step in detail? I want to understand it thoroughly.",
        )
        bed = await call(client, "remember", content="I'm going to bed.")
        real = await call(client, "remember", content="I plan to learn Portuguese")
        profile = await read_text(client, "engrain://profile")
    assert ask["temporality"] == "current" and bed["temporality"] == "current"
    plans = profile.split("## Upcoming plans\n", 1)[1].split("\n\n", 1)[0]
    assert re.fullmatch(r"- \[said 2026-11-22, plan\] «I plan to learn Portuguese» \([0-9a-f]{8}\)", plans)
    assert real["temporality"] == "prospective"


async def test_back_dated_plan_is_overdue_in_intentions_and_profile(settings_factory):
    async with connect(settings_factory(), Clock(SUNDAY)) as (client, _):
        passport = await call(client, "remember", content="I plan to renew my passport.", event_time="2026-11-10")
        intentions = await read_text(client, "engrain://intentions")
        profile = await read_text(client, "engrain://profile")
    assert passport["temporality"] == "prospective"
    assert line_ids(intentions, "Overdue") == [passport["id"][:8]]
    assert (
        f"## Overdue\n- [said 2026-11-22 · happened 2026-11-10, overdue plan] «I plan to renew my passport.» "
        f"({passport['id'][:8]})" in intentions
    )
    assert "## Overdue plans\n- [said 2026-11-22 · happened 2026-11-10, overdue plan] «I plan to renew" in profile


async def test_time_phrases_are_accepted_wherever_a_time_is_given(settings_factory):
    async with connect(settings_factory(), Clock(SUNDAY)) as (client, _):
        trip = await call(client, "remember", content="We hiked the Dolomites", event_time="last summer")
        assert trip["event_time"][:10] == "2026-06-01" and trip["temporality"] == "historical"
        found = await call(client, "recall", query="Dolomites", since="last summer", until="last week")
        assert [hit["id"] for hit in found["results"]] == [trip["id"]]
        message = await call_error(client, "remember", content="x", event_time="the day the moon fell")
    assert "event_time: 'the day the moon fell' is neither an ISO date nor a date phrase" in message


async def test_since_after_until_is_an_error(session):
    client, _ = session
    message = await call_error(client, "recall", query="anything", since="2026-11-20", until="2026-11-01")
    assert "since: 2026-11-20" in message and "later than until" in message


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        (
            "remember",
            {"content": "x", "kind": "bogus"},
            "invalid arguments: kind: 'bogus' is not one of 'fact', 'episodic' or 'procedural'",
        ),
        ("remember", {"content": "x", "importance": "high"}, "invalid arguments: importance: must be a valid integer"),
        (
            "recall",
            {"query": "x", "kinds": ["fact", "nope"]},
            "invalid arguments: kinds[1]: 'nope' is not one of 'fact', 'episodic', 'procedural', 'trait' or 'digest'",
        ),
        ("get_user_traits", {"min_stage": "legendary"}, "invalid arguments: min_stage: 'legendary' is not one of"),
        ("remember", {}, "invalid arguments: content: is required"),
    ],
)
async def test_wrong_argument_types_and_values_get_one_line(session, tool, args, expected):
    client, _ = session
    message = await call_error(client, tool, **args)
    assert expected in message
    assert "\n" not in message and "pydantic" not in message and "validation error" not in message


async def test_counts_in_tool_texts_are_english(session):
    client, _ = session
    await call(client, "remember", content="I collect vinyl records")
    one = await client.call_tool("recall", {"query": "vinyl records"})
    assert one.content[0].text.startswith("1 memory for «vinyl records»")


async def test_rule_ingestion_keeps_whole_statements_and_procedures(settings_factory):
    async with connect(settings_factory()) as (client, _):
        out = await call(
            client,
            "ingest_conversation",
            messages=[
                {
                    "role": "user",
                    "content": "Hi! I work as a nurse in Oslo… oh and I'm allergic to peanuts... "
                    "Can you help me plan meals?",
                },
                {"role": "assistant", "content": "Sure. What do you usually eat?"},
                {
                    "role": "user",
                    "content": "My morning routine: First I make coffee. Then I check my email. "
                    "Finally I go for a run.",
                },
            ],
        )
        assert out["method"] == "rules"
        stored = [await read_json(client, f"engrain://memories/{mid}") for mid in out["created"]]
    contents = [m["content"] for m in stored]
    assert "I'm allergic to peanuts" in contents and "I work as a nurse in Oslo" in contents
    assert not any(c.lower().startswith(("and ", "oh ")) or c.endswith(("...", "…")) for c in contents)
    routine = next(m for m in stored if m["content"].startswith("My morning routine"))
    assert routine["kind"] == "procedural"
    assert routine["procedure_steps"] == ["I make coffee", "I check my email", "I go for a run"]


async def test_the_profile_shows_the_soonest_and_oldest_of_many_plans(settings_factory):
    """With more plans than a section shows, the profile reads only what it shows: the soonest upcoming
    plans in date order and the oldest overdue ones, whatever order they were told in."""
    places = [
        "aquarium", "bakery", "cathedral", "dentist", "embassy", "florist", "garage", "harbour", "island",
        "jeweller", "kindergarten", "library", "market", "notary", "observatory", "pharmacy", "quarry", "riverbank",
        "stadium", "tailor", "university", "vineyard", "warehouse", "zoo", "airport", "bookshop", "cinema", "dairy",
        "estate", "fjord", "gallery", "hospital", "inn", "jetty",
    ]  # fmt: skip
    order = [(i * 7) % len(places) for i in range(len(places))]  # 34 plans, 17 on each side, told out of order
    async with connect(settings_factory(), Clock(SUNDAY)) as (client, _):
        for i in order:
            ahead = i % 2 == 0
            day = f"2027-01-{1 + i // 2:02d}" if ahead else f"2026-10-{1 + i // 2:02d}"
            await call(client, "remember", content=f"I plan to go to the {places[i]}.", event_time=day)
        profile = await read_text(client, "engrain://profile")

    def shown(title: str) -> list[str]:
        section = profile.split(f"## {title}\n", 1)[1].split("\n\n", 1)[0]
        return re.findall(r"go to the (\w+)\.", section)

    assert shown("Upcoming plans") == [places[i] for i in range(0, len(places), 2)][:8]
    assert shown("Overdue plans") == [places[i] for i in range(1, len(places), 2)][:8]
