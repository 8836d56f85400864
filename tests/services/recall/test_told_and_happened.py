"""Time told honestly (issue 41), through a real MCP client: every line says when the user said it and when it
happened, each at its own precision, so that a model never shifts "last month" a second time."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest

from bench.time_reader import FINENESS, read_corpus
from engrain.reading.periods import Period
from tests.conftest import Clock, call, connect

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
LINE = re.compile(
    r"^- \[said (?P<said>\d{4}-\d\d-\d\d)(?: · happened (?P<happened>[^,\]]+))?[^\]]*\] «.*» \((?P<id>\w{8})\)$"
)


def days(period: Period) -> list[date]:
    first, last = period.start.date(), (period.end - timedelta(microseconds=1)).date()
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


async def test_held_out_sentences_show_the_told_day_and_a_period_that_holds_the_date(settings_factory):
    """The held-out split of tests/data/time_corpus.tsv, each told at its own time: its recall line carries the
    told day; the period shown holds the labelled date and is never finer than the words (a month or a week
    never shows as a day)."""
    held_out = [s for s in read_corpus() if s.split == "test" and s.grain != "-"]
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        checked, periods = 0, 0
        for i, sentence in enumerate(held_out):
            # Each recalled before the next is told: the corpus holds corrections of one another ("I live in …"),
            # and a namespace each keeps one sentence's recall to its own memory.
            told = {"content": sentence.text, "said_at": sentence.told_at.isoformat(), "namespace": f"s{i}"}
            item = await call(client, "remember", **told)
            query = {"query": sentence.text, "limit": 3, "include_links": False, "namespace": f"s{i}"}
            result = await client.call_tool("recall", query)
            hit = next((h for h in result.structured_content["results"] if h["id"] == item["id"]), None)
            assert hit is not None, (sentence.text, result.content[0].text)
            lines = map(LINE.match, result.content[0].text.splitlines())
            line = next(m for m in lines if m and m["id"] == item["id"][:8])
            assert line["said"] == sentence.told_at.date().isoformat(), line.string
            checked += 1
            if hit["event_time"] is None:
                assert line["happened"] is None
                continue
            period = Period.stored(
                datetime.fromisoformat(hit["event_time"]),
                datetime.fromisoformat(hit["event_end"]) if hit["event_end"] else None,
                hit["event_grain"],
                UTC,
            )
            assert period is not None and line["happened"] == period.label(UTC) == hit["happened"]
            # Never finer than the words: "last month" is no day, "two weeks ago" no day either.
            assert FINENESS[str(period.grain)] >= FINENESS[sentence.grain], (sentence.text, period)
            periods += any(sentence.accepts(d) for d in days(period))
        assert checked == len(held_out)
    # The reader's held-out misses (bench/time_reader.py: date precision 0.926) are dates it gives wrong, not
    # false precision: those are refused above one by one.
    assert periods >= 0.9 * sum(1 for s in held_out if s.dated)


async def test_the_calling_models_period_wins_at_its_precision(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        month = await call(client, "remember", content="We toured Portugal", event_time="2022-12")
        year = await call(client, "remember", content="I learned to sail", event_time="2019")
        week = await call(client, "remember", content="I had the flu", event_time="2026-W45")
        span = await call(client, "remember", content="We were in Rome", event_time="2026-10-02..2026-10-05")
        assert [r["happened"] for r in (month, year, week, span)] == [
            "2022-12",
            "2019",
            "week of 2026-11-02",
            "2026-10-02..2026-10-05",
        ]
        text = (await client.call_tool("recall", {"query": "Portugal"})).content[0].text
        assert f"- [said 2026-11-27 · happened 2022-12] «We toured Portugal» ({month['id'][:8]})" in text
        bad = await client.call_tool("remember", {"content": "x", "event_time": "2022-13"})
        assert bad.is_error and "event_time" in bad.content[0].text


async def test_since_and_until_meet_the_period_not_its_first_day(settings_factory):
    """ "Last month" told on 2023-01-01 is December 2022: a window in mid-December finds it, one in January
    does not (the first day of the month alone would have missed the first window)."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        photo = await call(client, "remember", content="I took this photo last month", said_at="2023-01-01")
        assert photo["happened"] == "2022-12"
        inside = await call(client, "recall", query="photo", since="2022-12-15", until="2022-12-20")
        after = await call(client, "recall", query="photo", since="2023-01-02", until="2023-01-20")
        assert [h["id"] for h in inside["results"]] == [photo["id"]] and after["results"] == []
