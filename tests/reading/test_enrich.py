"""Write-time enrichment without an LLM: dates, temporality, kind, procedures, categories."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from engrain.reading.dates import parse_when, read_query_time
from engrain.reading.enrich import content_hash, enrich, procedure_steps
from engrain.reading.periods import Grain, Period

NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)  # a Sunday
UTC_ZONE = ZoneInfo("UTC")


# Tense and modality (services/mood.py): which way a date points, and what is a plan.
TENSE_AND_MODALITY = [
    # Obligations and plans point forward: a bare weekday is the coming one (NOW is a Sunday).
    ("I need to finish the report by Friday.", "fact", "prospective", "2026-11-27"),
    ("I need to call the plumber on Monday.", "fact", "prospective", "2026-11-23"),
    ("I have to get the car fixed by Monday", "fact", "prospective", "2026-11-23"),
    ("The report is due Friday", "fact", "prospective", "2026-11-27"),
    ("I went to the doctor and need to go back on Friday", "fact", "prospective", "2026-11-27"),
    ("I'm excited about the concert on Friday", "fact", "prospective", "2026-11-27"),  # an adjective
    ("Need to call the plumber", "fact", "prospective", None),
    # A forward-pointing verb in a past form, and the past itself, point back.
    ("I had to call the plumber on Monday", "episodic", "historical", "2026-11-16"),
    ("I should have called mom on Friday", "episodic", "historical", "2026-11-20"),
    ("We went to Greece last summer", "episodic", "historical", "2026-06-01"),
    # Requests to the assistant and movements now are no plans; someone else's advice neither.
    ("Can you explain this step by step in detail? I want to understand it thoroughly.", "fact", "current", None),
    ("I'm going to bed.", "fact", "current", None),
    ("You should write a book about your life.", "fact", "current", None),
    ("I'm going to learn Japanese", "fact", "prospective", None),
    ("Can you remind me to call mom on Friday?", "fact", "prospective", "2026-11-27"),
]


@pytest.mark.parametrize(
    ("text", "kind", "temporality", "date"),
    [
        ("I went hiking yesterday", "episodic", "historical", "2026-11-21"),
        ("We met Anna last Wednesday at the cafe", "episodic", "historical", "2026-11-18"),
        ("We met Anna on Friday", "episodic", "historical", "2026-11-20"),
        ("Moved to Lisbon in March 2025", "episodic", "historical", "2025-03-01"),
        ("I was born on 12 May 1990", "episodic", "historical", "1990-05-12"),
        ("Call mom tomorrow at 5pm", "fact", "prospective", "2026-11-23"),
        ("Dentist appointment next Tuesday", "fact", "prospective", "2026-11-24"),
        ("Dentist appointment in 3 days", "fact", "prospective", "2026-11-25"),
        ("Renew passport by Friday", "fact", "prospective", "2026-11-27"),
        ("I'm moving to Lisbon next month", "fact", "prospective", "2026-12-01"),
        ("Concert on December 5", "fact", "prospective", "2026-12-05"),
        ("I plan to learn Portuguese", "fact", "prospective", None),
        ("Takes the 7:40 train to work every weekday", "fact", "current", None),
        ("I go swimming every Tuesday morning", "fact", "current", None),
        ("Plays chess on Sundays", "fact", "current", None),
        ("I have 3 cats", "fact", "current", None),
        ("We may adopt a dog", "fact", "current", None),
        ("I like sushi", "fact", "current", None),
        ("I see a therapist called Ruth every Monday", "fact", "current", None),  # "called": a name, no past
        ("We have a dog named Biscuit", "fact", "current", None),
        *TENSE_AND_MODALITY,
    ],
)
def test_dates_kind_and_temporality(text, kind, temporality, date):
    info = enrich(text, NOW, UTC_ZONE)
    assert (info.kind, info.temporality) == (kind, temporality)
    assert (info.event_time.date().isoformat() if info.event_time else None) == date


def test_relative_dates_use_the_users_timezone():
    # 23:30 UTC on the 22nd is already the 23rd in Tokyo: "yesterday" there is the 22nd.
    late = datetime(2026, 11, 22, 23, 30, tzinfo=UTC)
    info = enrich("I went to the onsen yesterday", late, ZoneInfo("Asia/Tokyo"))
    assert info.event_time.astimezone(ZoneInfo("Asia/Tokyo")).date().isoformat() == "2026-11-22"


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("Release: bump version → tag → push → publish", ["bump version", "tag", "push", "publish"]),
        ("deploy: build -> test -> ship", ["build", "test", "ship"]),
        (
            "First pull the latest main, then run the migrations, finally restart the workers",
            ["pull the latest main", "run the migrations", "restart the workers"],
        ),
        (
            "Onboarding: 1. create the account 2. add to Slack 3. book the intro call",
            ["create the account", "add to Slack", "book the intro call"],
        ),
        ("A -> B", []),
        ("I like first editions", []),
    ],
)
def test_procedure_steps(text, steps):
    assert procedure_steps(text) == steps
    info = enrich(text, NOW, UTC_ZONE)
    assert (info.kind == "procedural") == bool(steps)
    assert info.procedure_steps == steps


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I adore sushi", "preference"),
        ("My manager at the startup is Priya", "work"),
        ("I live in Porto", "location"),
        ("My sister is a nurse", "relationship"),
        ("I'm allergic to penicillin", "health"),
        ("I'm learning Japanese", "skill"),
        ("The sky is blue", "general"),
    ],
)
def test_categories(text, category):
    assert enrich(text, NOW, UTC_ZONE).category == category


def test_hash_ignores_case_spacing_and_trailing_punctuation():
    assert content_hash("My cat is  Miso.") == content_hash("my cat is miso")
    assert content_hash("My cat is Miso") != content_hash("My dog is Miso")


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("We adopted a dog last weekend", "last weekend"),
        ("Two days ago I sold my car", "Two days ago"),
        ("I moved to Denver yesterday", "yesterday"),
        ("In March we went to Rome", "March"),
        ("I sat in the sun", None),  # "sat" and "sun" are words here, not days
        ("This is great", None),
    ],
)
def test_time_phrase_is_kept_even_with_a_given_event_time(text, phrase):
    assert enrich(text, NOW, UTC_ZONE, event=Period.containing(NOW, Grain.DAY)).time_phrase == phrase


@pytest.mark.parametrize(
    ("query", "asks_when", "window"),
    [
        ("When did Alice move to Denver?", True, None),
        ("what year did I start chess", True, None),
        ("How long ago did we meet?", True, None),
        ("what is my dog called", False, None),
        ("what happened in March 2023", False, ("2023-03-01", "2023-04-01")),
        ("trips in 2024", False, ("2024-01-01", "2025-01-01")),
        ("what did I do yesterday", False, ("2026-11-20", "2026-11-23")),
        ("dinner last week", False, ("2026-11-09", "2026-11-16")),  # the calendar week (issue 41)
    ],
)
def test_query_time_understanding(query, asks_when, window):
    read = read_query_time(query, NOW, UTC_ZONE)
    assert read.asks_when is asks_when
    assert (tuple(d.date().isoformat() for d in read.window) if read.window else None) == window


@pytest.mark.parametrize(
    ("query", "ahead"),
    [
        ("what is coming up for me this week", True),
        ("any plans?", True),
        ("What is Jon planning?", True),
        ("What plans does Maria have?", True),
        ("What are my plans for the weekend?", True),  # a period named
        ("what do I have planned for next week", True),
        ("When am I free next week?", True),  # a "when" question over a period it names
        # One plan, named by what follows the plan word or asked of by "when": the answer whenever it falls.
        ("When is Jon planning to open his dance studio?", False),
        ("When was I planning to open my dance studio?", False),
        ("What events is Maria planning for the fundraiser?", False),
        ("What is Jon planning to do with his studio?", False),
        ("When is my next dentist appointment?", False),
        ("What was I planning?", False),  # plans of the past
        ("what did I plan last month", False),
    ],
)
def test_what_asks_about_the_plans_ahead(query, ahead):
    """Issue 60: the plan words alone read "when was I planning to open my studio?" as a question about the coming
    week, whose plans then crowded the passed plan it asks about out of the first ten."""
    read = read_query_time(query, NOW, UTC_ZONE)
    assert read.ahead is ahead
    assert ahead or read.window is None or read.window[1] <= NOW  # no window of the coming days


def test_a_plan_whose_given_date_passed_is_prospective_and_overdue():
    given = Period.containing(datetime(2026, 11, 10, tzinfo=UTC), Grain.DAY)
    assert enrich("I plan to renew my passport.", NOW, UTC_ZONE, event=given).temporality == "prospective"
    assert enrich("I renewed my passport.", NOW, UTC_ZONE, event=given).temporality == "historical"


@pytest.mark.parametrize(
    ("phrase", "day"),
    [
        ("last summer", "2026-06-01"),
        ("this winter", "2026-12-01"),
        ("next spring", "2027-03-01"),
        ("summer 2024", "2024-06-01"),
        ("last week", "2026-11-15"),
        ("2026-11-10", "2026-11-10"),
    ],
)
def test_every_time_argument_reads_the_phrases_a_memory_may_hold(phrase, day):
    assert parse_when("event_time", phrase, NOW, UTC_ZONE, prefer_past=True).date().isoformat() == day


@pytest.mark.parametrize(
    "text, day",
    [
        ("Dentist on Friday at 9", "2026-11-27"),  # the bare hour is no month (it read as September 2027)
        ("Meet Anna at 9 on Friday", "2026-11-27"),
        ("The meeting is from 9 to 5 on Monday", "2026-11-23"),
        ("Dinner at 7 on the 12th", "2026-12-12"),  # a day of the month alone is the next such day
        ("Dinner on the 12th", "2026-12-12"),
        ("I paid the rent on the 1st", "2026-11-01"),
    ],
)
def test_a_bare_hour_or_a_day_of_the_month_is_read_as_one(text, day):
    info = enrich(text, NOW, UTC)
    assert info.event_time is not None and info.event_time.date().isoformat() == day, info.event_time
