"""What is ahead (issue 25, parts 2 and 5): a habit is a rule, never an upcoming plan; a booking for a bare
weekday is the next one; a question about what is coming finds the plans dated in its period, including
ones told earlier, in English and other languages. Through a real MCP client."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from tests.conftest import Clock, call, connect, line_ids

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)  # a Monday
HABITS = ["I go climbing on Thursday evenings", "Ich gehe jeden Donnerstag schwimmen", "我每周四去游泳"]


async def test_a_habit_is_never_an_upcoming_plan(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        for text in HABITS:
            out = await call(client, "remember", content=text)
            assert out["temporality"] == "current" and out["event_time"] is None, text
        intentions = (await client.read_resource("engrain://intentions")).contents[0].text
        assert line_ids(intentions) == [] and intentions.rstrip().endswith("No plans.")
        found = await call(client, "recall", explain=True, query="what is coming up for me this week")
        assert all(hit["breakdown"]["temporal"] == 0 for hit in found["results"])


async def test_a_booking_for_a_bare_weekday_is_the_next_one(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(client, "remember", content="I booked a table at Marlow's for Friday dinner")
        assert out["event_time"].startswith("2026-11-27") and out["temporality"] == "prospective"
        told_earlier = await call(
            client, "remember", content="I booked tickets for Saturday", said_at="2026-11-18T09:00:00Z"
        )
        assert told_earlier["event_time"].startswith("2026-11-21")  # the Saturday after it was told


@pytest.mark.parametrize(
    "question",
    [
        "what is coming up for me this week",
        "what's on this week?",
        "这周有什么安排",
        "Was steht diese Woche an?",
        "¿Qué planes tengo esta semana?",
        "Qu'est-ce qui est prévu cette semaine ?",
    ],
)
async def test_a_question_about_the_week_ahead_finds_its_plans(settings_factory, question):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        dentist = await call(
            client, "remember", content="Dentist appointment on Thursday at 3pm", said_at="2026-11-20T10:00:00Z"
        )
        party = await call(client, "remember", content="Going to Maya's birthday party on Saturday")
        later = await call(client, "remember", content="Flying to Lisbon on December 20")
        for text in ["I work as a sound engineer", "My sister lives in Porto", *HABITS]:
            await call(client, "remember", content=text)
        assert dentist["event_time"].startswith("2026-11-26") and party["event_time"].startswith("2026-11-28")
        found = await call(client, "recall", explain=True, query=question)
        first_two = {hit["id"] for hit in found["results"][:2]}
        assert first_two == {dentist["id"], party["id"]}, [h["content"] for h in found["results"]]
        assert later["id"] not in {hit["id"] for hit in found["results"] if hit["breakdown"]["temporal"] > 0}


@pytest.mark.parametrize(
    ("period", "dated"),
    [
        ("this%20week", ["dentist", "party"]),
        ("%E8%BF%99%E5%91%A8", ["dentist", "party"]),  # 这周
        ("n%C3%A4chste%20Woche", []),
        ("next%20month", ["flight"]),
    ],
)
async def test_the_intentions_of_a_period_are_its_plans(settings_factory, period, dated):
    """engrain://intentions/{period}: the plans dated in what is still ahead of the period, told whenever;
    never a habit, a plan already past or one dated outside it."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        plans = {
            "dentist": await call(
                client, "remember", content="Dentist appointment on Thursday at 3pm", said_at="2026-11-20T10:00:00Z"
            ),
            "party": await call(client, "remember", content="Going to Maya's birthday party on Saturday"),
            "flight": await call(client, "remember", content="Flying to Lisbon on December 20"),
        }
        await call(client, "remember", content="I had to renew my passport last Friday")
        for text in HABITS:
            await call(client, "remember", content=text)
        shown = (await client.read_resource(f"engrain://intentions/{period}")).contents[0].text
        assert line_ids(shown) == [plans[name]["id"][:8] for name in dated]
        start, end = re.search(r"^# Plans for «.+»: (\S+) to (\S+)$", shown, re.MULTILINE).groups()
        assert start >= "2026-11-23" and end > start


async def test_a_period_that_names_no_time_ahead_is_refused_with_its_field(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        for period in ("someday%20soon", "last%20week"):
            with pytest.raises(Exception, match="period"):
                await client.read_resource(f"engrain://intentions/{period}")
        assert line_ids((await client.read_resource("engrain://intentions")).contents[0].text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I live in Lisbon now, since October.",
        "Ich wohne seit Oktober in Lissabon",
        "我从十月开始住在里斯本",
        "Vivo en Lisboa desde octubre",
        "J'habite à Lisbonne depuis octobre",
    ],
)
async def test_since_a_month_is_a_current_state_dated_in_the_past(settings_factory, text):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(client, "remember", content=text)
        assert out["temporality"] == "current" and out["kind"] == "fact"
        assert out["event_time"].startswith("2026-10-01")
        assert line_ids((await client.read_resource("engrain://intentions")).contents[0].text) == []


async def test_since_a_year_is_that_year(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(client, "remember", content="I have lived in Lisbon since 2019")
        assert out["event_time"].startswith("2019-01-01") and out["temporality"] == "current"
