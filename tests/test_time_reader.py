"""The time reader prefers no date to a wrong one (issue 25, part 2, in part): explicit months and years in
Chinese, offsets anchored to a year, and words that only look like dates. The corpus and its measurement
are still to come; these are the cases the issue found, read against a fixed told time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engrain.reading.enrich import enrich
from engrain.text.languages import detect
from tests.conftest import Clock, call, connect

TOLD = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("2025年3月我开始学钢琴", "2025-03-01"),  # was the coming March (2027)
        ("去年十月我搬到了上海", "2025-10-01"),  # was November, "last year" from today
        ("今年5月份我换了工作", "2026-05-01"),
        ("明年三月我要去日本", "2027-03-01"),
        ("3月5日我见了老王", "2026-03-05"),
        ("about four years before 2023 I lived in Porto", "2019-01-01"),  # was now minus four years
        ("A decade before 2020 I studied in Paris", "2010-01-01"),
        ("I flew to Rome on the 18th", "2026-11-18"),
        ("I moved here in March", "2026-03-01"),
        ("I have lived in Lisbon since 2019", "2019-01-01"),
    ],
)
def test_explicit_and_anchored_dates(text, date):
    info = enrich(text, TOLD, UTC, lang=detect(text))
    assert info.event_time is not None and info.event_time.date().isoformat() == date


@pytest.mark.parametrize(
    "text",
    [
        "It was a bright sun that day",  # was last Sunday
        "We will march on",  # was March 2027
        "My 18th birthday was great",  # was the 18th of this month
        "Two weeks after the wedding we moved",  # the wedding's date is not in the text
        "May I ask you something",
    ],
)
def test_words_that_only_look_like_dates_give_no_date(text):
    assert enrich(text, TOLD, UTC, lang=detect(text)).event_time is None


@pytest.mark.anyio
async def test_a_chinese_month_is_read_through_remember(settings_factory):
    async with connect(settings_factory(), Clock(TOLD)) as (client, _):
        out = await call(client, "remember", content="去年十月我搬到了上海")
        assert out["event_time"].startswith("2025-10-01") and out["temporality"] == "historical"
