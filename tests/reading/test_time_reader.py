"""The time reader prefers no date to a wrong one (issue 25, part 2): explicit months and years, offsets
anchored to a year, weekends, seasons, bookings and habits in every supported language, and words that
only look like dates, read against a fixed told time. The labelled corpus (tests/data/time_corpus.tsv)
is measured by bench/time_reader.py; its dev split is held to a floor here, its test split is held out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.time_reader import CORPUS, Sentence, measure, read_corpus
from engrain.reading.dates import parse_period
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
        "I'm reading The Sun Also Rises again",  # was the coming Sunday
        "I love the smell of March rain",  # was next March
        "They told us to march on and not look back",
        "Mayo es mi mes favorito",  # a month named, no date
        "Mai ist mein Lieblingsmonat",
        "婚礼两周后我们搬到了丹佛",  # two weeks after the wedding: no date to count from
    ],
)
def test_words_that_only_look_like_dates_give_no_date(text):
    assert enrich(text, TOLD, UTC, lang=detect(text)).event_time is None


@pytest.mark.parametrize(
    ("text", "date", "temporality"),
    [
        # Number words, "que viene", a weekend and a season in each language (told Monday 2026-11-23), each read
        # as the period its words give (issue 41).
        ("Vor zwei Wochen haben wir eine Katze adoptiert.", "week of 2026-11-09", "historical"),
        ("In drei Tagen fliege ich nach Montreal.", "2026-11-26", "prospective"),
        ("Il y a deux semaines, nous avons adopté un chat.", "week of 2026-11-09", "historical"),
        ("Dentro de tres días vuelo a Montreal.", "2026-11-26", "prospective"),
        ("El mes que viene empiezo un curso de cerámica.", "2026-12", "prospective"),
        ("Letztes Wochenende waren wir an der Ostsee.", "2026-11-21..2026-11-22", "historical"),
        ("Ce week-end, je pars camper.", "2026-11-28..2026-11-29", "prospective"),
        ("El verano pasado recorrimos Islandia en coche.", "summer 2026", "historical"),
        ("Au printemps prochain, je veux aller à Kyoto.", "spring 2027", "prospective"),
        ("去年夏天我们自驾环游了冰岛。", "summer 2025", "historical"),
        ("下个月15号是Alice的生日。", "2026-12-15", "prospective"),
        ("2015年我大学毕业。", "2015", "historical"),
        ("Vier Jahre vor 2023 habe ich in Porto gelebt.", "2019", "historical"),
        # A booking points forward whatever the tense; "had" an appointment is the last one.
        ("Ich habe für Freitag einen Tisch im Marlow's reserviert.", "2026-11-27", "prospective"),
        ("Ich habe am Donnerstag einen Zahnarzttermin.", "2026-11-26", "prospective"),
        ("J'ai réservé une table chez Marlow's pour vendredi.", "2026-11-27", "prospective"),
        ("我周四约了牙医。", "2026-11-26", "prospective"),
        ("Ich hatte am Freitag einen Termin beim Friseur.", "2026-11-20", "historical"),
        # A date behind in a statement that is no plan tells of the past, whatever the verb's form.
        ("Nos casamos el 12 de marzo de 2021.", "2021-03-12", "historical"),
        ("Four years ago I quit smoking.", "2022", "historical"),
    ],
)
def test_every_language_reads_its_dates_and_which_way_they_point(text, date, temporality):
    info = enrich(text, TOLD, UTC, lang=detect(text))
    assert info.event is not None and info.event.label(UTC) == date, info
    assert info.temporality == temporality


@pytest.mark.parametrize(
    ("text", "lang"),
    [("Anteayer fui al médico.", "es"), ("Ce week-end, je pars camper.", "fr"), ("Me gradué en 2015.", "es")],
)
def test_short_sentences_are_told_by_their_function_words(text, lang):
    assert detect(text) == lang  # n-grams alone took each for English (below 0.8 for every language)


@pytest.mark.parametrize(
    "text", ["Einmal im Monat besuche ich meine Oma.", "I call my parents once a week.", "Le dimanche, je vais courir."]
)
def test_habits_said_in_other_ways(text):
    info = enrich(text, TOLD, UTC, lang=detect(text))
    assert info.recurrence is not None and info.event_time is None and info.temporality == "current"


def test_the_labelled_corpus_holds_its_dev_split_to_a_floor():
    """The reader is improved on the dev split only; it must not fall below what it reached there
    (bench/time_reader.py prints both splits, per language and construct; the note gives the held-out one)."""
    sentences = read_corpus()
    assert len(sentences) >= 300 and {s.lang for s in sentences} == {"en", "zh", "de", "es", "fr"}
    assert {s.split for s in sentences} == {"dev", "test"}
    dev = measure("dev", CORPUS)["overall"]
    assert dev["date_precision"] >= 0.97 and dev["date_recall"] >= 0.95
    assert dev["temporality_accuracy"] >= 0.97 and dev["recurrence_accuracy"] >= 0.97


def test_a_labelled_date_accepts_its_alternatives_and_ranges():
    s = Sentence("en", "weekend", TOLD, "x", "current", False, "2023-05-06|2023-05-10..2023-05-12", "dev", "span")
    assert s.accepts(datetime(2023, 5, 6).date()) and s.accepts(datetime(2023, 5, 11).date())
    assert not s.accepts(datetime(2023, 5, 7).date()) and not s.accepts(None) and s.dated
    optional = Sentence("de", "duration", TOLD, "x", "current", False, "-|2020-01-01..2020-12-31", "dev", "-")
    assert optional.accepts(None) and not optional.dated


@pytest.mark.anyio
async def test_a_chinese_month_is_read_through_remember(settings_factory):
    async with connect(settings_factory(), Clock(TOLD)) as (client, _):
        out = await call(client, "remember", content="去年十月我搬到了上海")
        assert out["event_time"].startswith("2025-10-01") and out["temporality"] == "historical"


SUNDAY_2_APRIL = datetime(2023, 4, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "told", "happened"),
    [
        # Told on a Sunday, "last week" is the week ending that day: the days just past (issue 52, part 6).
        ("I graduated last week.", SUNDAY_2_APRIL, "week of 2023-03-27"),
        ("Letzte Woche habe ich meinen Abschluss gemacht.", SUNDAY_2_APRIL, "week of 2023-03-27"),
        ("La semana pasada fui a Madrid.", SUNDAY_2_APRIL, "week of 2023-03-27"),
        ("La semaine dernière, je suis allé à Paris.", SUNDAY_2_APRIL, "week of 2023-03-27"),
        ("上周我毕业了。", SUNDAY_2_APRIL, "week of 2023-03-27"),
        # On any other day it is the calendar week before the told one; counted weeks count days back.
        ("I graduated last week.", datetime(2023, 4, 1, 12, 0, tzinfo=UTC), "week of 2023-03-20"),
        ("A week ago I adopted a cat.", SUNDAY_2_APRIL, "week of 2023-03-20"),
        ("Two weeks ago I adopted a cat.", SUNDAY_2_APRIL, "week of 2023-03-13"),
        ("Next week I fly to Rome.", SUNDAY_2_APRIL, "week of 2023-04-03"),
        ("Last month I started a new job.", datetime(2023, 1, 31, 12, 0, tzinfo=UTC), "2022-12"),
    ],
)
def test_a_relative_week_is_read_as_people_mean_it(text, told, happened):
    info = enrich(text, told, UTC, lang=detect(text))
    assert info.event is not None and info.event.label(UTC) == happened


@pytest.mark.parametrize(
    "text",
    [
        "I started playing Cyberpunk 2077.",  # was `happened 2077`, a plan
        "Blade Runner 2049 is my favourite film",
        "My old laptop ran Windows 2000",
    ],
)
def test_a_year_in_a_name_is_no_date(text):
    info = enrich(text, SUNDAY_2_APRIL, UTC)
    assert info.event is None and info.temporality != "prospective"


@pytest.mark.parametrize(
    ("text", "year"), [("Christmas 2019 was at my parents' place", "2019"), ("Since 2019 I live in Porto", "2019")]
)
def test_a_year_after_a_word_of_time_is_still_a_date(text, year):
    info = enrich(text, SUNDAY_2_APRIL, UTC)
    assert info.event is not None and info.event.label(UTC) == year


@pytest.mark.parametrize(
    ("given", "happened"),
    [
        ("2024-06..2024-08", "2024-06-01..2024-08-31"),  # was ending 2024-08-01
        ("2022-12-03..2022-12-05", "2022-12-03..2022-12-05"),
        ("2022-W48..2022-W49", "2022-11-28..2022-12-11"),
        ("last week", "week of 2023-03-27"),
    ],
)
def test_a_given_span_ends_at_the_end_of_its_last_part(given, happened):
    assert parse_period("event_time", given, SUNDAY_2_APRIL, UTC, prefer_past=True).label(UTC) == happened
