"""Reading times in text: the one home for dates, used by enrichment, recall and every time argument.

Deterministic and fast: dateparser (about a millisecond a call) only runs when a cheap regex sees
something date-like, and its matches are kept only if they contain a real date cue, which drops its
false positives ("We", "may"). Which way an ambiguous date points ("Friday", "March 3") is decided
by the statement's mood (`reading/mood.py`): the coming one in a plan, the last one in the past.
Seasons ("last summer") are read here because dateparser does not read them (it returns None);
they are the meteorological seasons of the northern hemisphere.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from engrain.errors import InvalidInput
from engrain.reading import languages
from engrain.reading.calendar_words import FULL_MONTHS, FULL_WEEKDAYS, MONTHS, WEEKDAYS
from engrain.reading.date_library import library
from engrain.reading.mood import Mood, mood_at, text_mood
from engrain.reading.periods import Grain, Period, period_of
from engrain.text.languages import ENGLISH, detect

_RELATIVE = (
    r"yesterday|today|tonight|tomorrow|ago|next|last|this|weekend|summer|winter|spring|autumn|"
    r"in\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+"
    r"(?:minute|hour|day|week|month|year)s?"
)
# A match must contain one of these to count as a date (so "We" or a bare "may" do not).
_DATE_CUE = re.compile(rf"\d|\b(?:{MONTHS}|{WEEKDAYS}|{_RELATIVE})\b", re.IGNORECASE)
# Only text with one of these is handed to dateparser (costly a call): a year, a numeric date, an
# ordinal day, a month (a bare "may" only next to a number), a weekday or a relative phrase.
_DATE_GATE = re.compile(
    rf"\b(?:1[89]\d\d|20\d\d)\b|\b\d{{1,4}}[/.-]\d{{1,2}}(?:[/.-]\d{{1,4}})?\b|\b\d{{1,2}}(?:st|nd|rd|th)\b"
    rf"|\bmay\s+\d|\d\s+may\b|\b(?:{MONTHS}|{WEEKDAYS}|{_RELATIVE})\b",
    re.IGNORECASE,
)
_MONTH_NUMBER = {
    m: i
    for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)
}
# Absolute dates in their common written forms, read without dateparser (costly a call):
# 2025-03-04 · March 2025 · March 4(th)(, 2025) · 4(th) March 2025 · in 2019.
_ABSOLUTE = re.compile(
    r"\b(?:on\s+|in\s+)?(?:"
    r"(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2})(?![T:\d])"
    rf"|(?P<m1>{MONTHS}|may)\.?\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<y1>\d{{4}}))?(?![\d:])"
    rf"|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{MONTHS}|may)\.?(?:,?\s+(?P<y2>\d{{4}}))?"
    rf"|(?P<m3>{MONTHS}|may)\.?,?\s+(?P<y3>\d{{4}})"
    r"|(?<=in\s)(?P<y4>1[89]\d\d|20\d\d)(?![\d:/.-])"
    r")\b",
    re.IGNORECASE,
)
# Numbers and clock times alone are not dates ("3 cats", "the 7:40 train").
# An hour said bare ("on Friday at 9"): dateparser reads the 9 as September. It is masked with spaces (the
# same length, so positions hold) before dateparser sees the text: the day is read, the hour is lost.
_BARE_HOUR = re.compile(
    r"(\b(?:at|around|by|from|to|until|till)\s+)(\d{1,2})\b(?!\s*(?:[:.h]\d|am\b|pm\b|a\.m|p\.m|[/-]\d|st\b|nd\b|rd\b|th\b))",
    re.IGNORECASE,
)
_NOT_A_DATE = re.compile(r"^\s*(?:the|on|at|in|by)?\s*\d{1,3}(?:[:.]\d{2})?\s*(?:am|pm|h)?\s*$", re.IGNORECASE)
# A habit anywhere in a text: "every Thursday", "each morning", "on Thursdays", "Thursday evenings", "weekly".
_RECURRENCE = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+)?(?:{FULL_WEEKDAYS}|day|morning|afternoon|evening|night|week(?:end)?|month"
    rf"|year)s?\b|\bon\s+(?:{FULL_WEEKDAYS})s\b|\b(?:{FULL_WEEKDAYS})\s+(?:mornings|afternoons|evenings|nights)\b"
    r"|\b(?:daily|weekly|nightly|monthly)\b|\b(?:once|twice|\w+\s+times)\s+(?:a|per|every)\s+(?:day|week|month|year)\b",
    re.IGNORECASE,
)
# "I booked a table for Friday", "got tickets for Saturday": the date is what was booked, the next one.
_BOOKED_FOR = re.compile(
    r"\b(?:book(?:ed|ing)?|reserv(?:ed|ation)|schedul(?:ed|ing)|appointment|tickets?|signed\s+up)\b[^.;!?]*?"
    r"\bfor\s+(?:the\s+|this\s+|next\s+)?$",
    re.IGNORECASE,
)
# "since October", "ever since 2019": a state that began then and holds now; the date is behind.
_SINCE = re.compile(r"\b(?:ever\s+)?since\b", re.IGNORECASE)
_SINCE_BEFORE = re.compile(r"\b(?:ever\s+)?since\s+(?:the\s+|last\s+)?$", re.IGNORECASE)
_BARE_YEAR = re.compile(r"(?:in\s+)?(?:19|20)\d\d")
# A year right after a capitalised word is part of a name ("Cyberpunk 2077", "Blade Runner 2049", "Windows
# 2000"), unless that word says when ("Since 2019", "Christmas 2019").
_NAMED_BEFORE = re.compile(
    r"\b(?!(?:In|On|By|Since|Until|Till|From|Of|The|Before|After|During|Around|Early|Late|Mid|Christmas|Easter"
    r"|Thanksgiving|Halloween|Year)\b)[A-Z][\w'’.-]*\s+$"
)
# Words that are dates only in a date's company: "a bright sun", "march on", "may I", "my 18th birthday",
# a month named alone ("April is my sister's name", but "in April", "April 3rd").
_LOOKALIKE = re.compile(rf"(?:sun|sat|wed|mar|may|jan|aug|fall|{FULL_MONTHS})(?:\s+on)?|\d{{1,2}}(?:st|nd|rd|th)", re.I)
_DATE_LEAD = re.compile(
    r"\b(?:on|in|by|until|till|til|since|from|for|last|next|this|every|before|after|of|the|early|late|mid"
    r"|around|during|through|throughout|come)\s+$",
    re.I,
)
# Offsets from an anchor: "four years before 2023" is 2019; "two weeks after the wedding" names no date
# engrain can read (the wedding's is another memory's): no date rather than one counted from now.
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "twenty": 20}  # fmt: skip
_ANCHORED = re.compile(
    r"\b(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twenty|a\s+few|several|some)\s+"
    r"(?P<unit>days?|weeks?|months?|years?|decades?)\s+(?P<dir>before|after|earlier\s+than|later\s+than|prior\s+to)\s+"
    r"(?P<anchor>(?:19|20)\d\d\b)?",
    re.IGNORECASE,
)
# "every Monday", "on Tuesdays": a habit, not an event.
_RECURRING = re.compile(rf"\b(?:every|each)\s+(?:other\s+)?$|^\s*(?:on\s+)?(?:{WEEKDAYS})s\b", re.IGNORECASE)

# A mention of when something happened, even where a client-given event_time makes parsing it moot:
# what a "when did…" question is looking for. Full names only ("sat", "sun" and "mar" are words).
_TIME_PHRASE = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|(?:\w+\s+)?(?:days?|weeks?|months?|years?)\s+ago"
    rf"|(?:last|next|this|past|coming)\s+(?:week(?:end)?|month|year|night|morning|evening|afternoon|summer|"
    rf"winter|spring|autumn|fall|{FULL_WEEKDAYS})"
    rf"|in\s+(?:a|an|one|two|three|four|five|six|\d+)\s+(?:days?|weeks?|months?|years?)"
    rf"|{FULL_WEEKDAYS}|(?:{FULL_MONTHS})(?:\s+\d{{1,2}})?|(?:1[89]|20)\d\d|\d{{4}}-\d{{2}}-\d{{2}})\b",
    re.IGNORECASE,
)
# Questions about a time: "When did…", "What year…", "How long ago…".
_ASKS_WHEN = re.compile(
    r"\b(?:when|what\s+(?:day|date|time|year|month|week)|which\s+(?:day|date|year|month|week)"
    r"|how\s+long\s+ago|since\s+when)\b",
    re.IGNORECASE,
)

# Questions about what is ahead: "what's coming up", "what do I have on Friday", "anything next week".
_ASKS_AHEAD = re.compile(
    r"\b(?:coming\s+up|upcoming|ahead|schedule[ds]?|agenda|appointments?|"
    r"next\s+(?:week|month|weekend|year|few\s+days)|tomorrow|what(?:'s|\s+is)\s+on|do\s+i\s+have|am\s+i\s+(?:doing|going)|"
    r"will\s+i|going\s+to\s+do|to\s+do\s+(?:this|next))\b",
    re.IGNORECASE,
)
# The plan words ask what is ahead when they ask for the plans themselves: nothing follows them but "to do", whose
# plans they are and the question's end ("any plans?", "what is Jon planning?", "what plans does Maria have?"),
# or a period ahead is named ("plans for the weekend"). What else follows them names the one plan asked about,
# which is the answer whenever it falls, ahead or long past ("when is Jon planning to open his dance studio?",
# "what events is Maria planning for the fundraiser?": issue 60), and so is a plan asked of in the past ("what
# was I planning?").
_PLAN_WORD = r"\b(?:plans?|planned|plann?ing)\b"
_ASKS_PLANS = re.compile(_PLAN_WORD, re.IGNORECASE)
_PLANS_THEMSELVES = re.compile(
    rf"{_PLAN_WORD}(?:\s+(?:to\s+do|for\s+(?:me|us)|(?:do|does|have|has)\s+\w+(?:\s+(?:have|got|made))?))*"
    r"\s*(?:[?.!]|$)",
    re.IGNORECASE,
)
_ASKS_OF_THE_PAST = re.compile(r"\b(?:was|were|had|did)\b", re.IGNORECASE)
# What "what's coming up?" looks at when the question names no period: the coming week.
AHEAD_DAYS = 8

_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_SEASON = re.compile(
    r"\b(?:(?P<rel>last|this|next|past|coming)\s+(?P<s1>spring|summer|autumn|fall|winter)"
    r"|(?P<s2>spring|summer|autumn|fall|winter)\s+(?:of\s+)?(?P<year>(?:19|20)\d\d))\b",
    re.IGNORECASE,
)
# Where dateparser looks for the first date: windows around the first cues of a date, never the whole text.
MAX_DATE_WINDOWS, WINDOW_BEFORE, WINDOW_AFTER = 3, 40, 100
# The dates a person can mean (docs/SPEC.md §5): an event from the year 1000 to 2999, a told time from 1900 to
# now. Outside them a date is a slip ("0001-01-01", "December 9999"): refused as an argument, no date when read
# in a text. Python and PostgreSQL hold wider ranges, but at their edges a shift of time zone leaves Python's
# (year 0, year 10000) and asyncpg stores the year 1 as -infinity.
EARLIEST_EVENT = datetime(1000, 1, 1, tzinfo=UTC)
LATEST_EVENT = datetime(3000, 1, 1, tzinfo=UTC)  # exclusive
EARLIEST_TOLD = datetime(1900, 1, 1, tzinfo=UTC)
EVENT_RANGE = f"{EARLIEST_EVENT.year}-01-01 to {LATEST_EVENT.year - 1}-12-31"


def meant(when: datetime | None) -> datetime | None:
    """`when` if it is a date a person can mean, else None (a naive time is taken as UTC)."""
    if when is None:
        return None
    aware = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return aware if EARLIEST_EVENT <= aware < LATEST_EVENT else None


_DATEPARSER_SETTINGS = {
    "RETURN_AS_TIMEZONE_AWARE": False,
    "PREFER_DAY_OF_MONTH": "first",  # "in March 2025" is March 1st, not March <today's day>
}


@dataclass(frozen=True)
class QueryTime:
    """What a recall query says about time: it asks when something happened, and/or names a period."""

    asks_when: bool = False
    window: tuple[datetime, datetime] | None = None
    ahead: bool = False  # it asks what is coming: plans dated in `window` are what it looks for


def local(now: datetime, tz: tzinfo | None) -> datetime:
    """`now` in the user's zone (the machine's when none is set)."""
    return now.astimezone(tz) if tz else now.astimezone()


_WEEKEND = re.compile(r"\b(?P<rel>this|next|last|past|coming|the)\s+weekend\b", re.IGNORECASE)


def _anchored(m: re.Match[str], local_now: datetime) -> tuple[datetime | None, str | None]:
    """An offset in years from a year ("four years before 2023" → 2019-01-01); any other offset from an
    anchor has no date engrain can read, and gets none."""
    count = m["n"].lower()
    n = int(count) if count.isdigit() else _COUNTS.get(count)
    unit = m["unit"].lower()
    if m["anchor"] is None or n is None or not unit.startswith(("year", "decade")):
        return None, None
    years = n * (10 if unit.startswith("decade") else 1)
    sign = -1 if m["dir"].lower().startswith(("before", "earlier", "prior")) else 1
    return datetime(int(m["anchor"]) + sign * years, 1, 1, tzinfo=local_now.tzinfo), m.group(0).strip()


def _weekend(m: re.Match[str], local_now: datetime, prefer_past: bool) -> tuple[datetime, str]:
    """The weekend `m` names ("this", "next", "last weekend") as the Saturday it starts on; dateparser reads
    none of them. "This weekend" is the one under way or the coming one; in the past tense, the one just gone."""
    today = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
    saturday = today + timedelta(days=(5 - today.weekday()) % 7)  # the coming Saturday, or today
    if today.weekday() == 6:  # Sunday: this weekend began yesterday
        saturday = today - timedelta(days=1)
    rel = m["rel"].lower()
    if rel in ("last", "past") or (rel in ("this", "the") and prefer_past and saturday > today):
        saturday -= timedelta(days=7)
    elif rel in ("next",):
        saturday += timedelta(days=7)
    return saturday, m.group(0)


# "next month", "last week", "this year": read here, because dateparser's search misses them in some sentences
# ("a trip to Iceland next month, I already booked the flights" gave no date at all).
_RELATIVE_UNIT = re.compile(r"\b(?P<rel>next|last|this|past|coming)\s+(?P<unit>week|month|year)\b", re.IGNORECASE)


def _relative_unit(m: re.Match[str], local_now: datetime) -> datetime:
    """The first day of the week (its Monday), month or year `m` names, from `local_now`."""
    step = {"next": 1, "coming": 1, "last": -1, "past": -1}.get(m["rel"].lower(), 0)
    today = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
    unit = m["unit"].lower()
    if unit == "week":
        return today - timedelta(days=today.weekday()) + timedelta(days=7 * step)
    if unit == "month":
        month = today.month - 1 + step
        return today.replace(year=today.year + month // 12, month=month % 12 + 1, day=1)
    return today.replace(year=today.year + step, month=1, day=1)


def _season(text: str, local_now: datetime) -> tuple[datetime, str] | None:
    """A season named with a year or relative to now, as the day it starts."""
    m = _SEASON.search(text)
    if m is None:
        return None
    month = _SEASON_START[(m["s1"] or m["s2"]).lower()]
    if m["year"]:
        return datetime(int(m["year"]), month, 1, tzinfo=local_now.tzinfo), m.group(0)

    def start(year: int) -> datetime:
        return datetime(year, month, 1, tzinfo=local_now.tzinfo)

    def ended(begin: datetime) -> bool:
        return (begin + timedelta(days=92)).replace(day=1) <= local_now

    rel = m["rel"].lower()
    year = local_now.year
    if rel in ("last", "past"):  # the latest one that is over
        year = year if ended(start(year)) else year - 1
    elif rel in ("next", "coming"):  # the first one still to begin
        year = year if start(year) > local_now else year + 1
    elif month == 12 and local_now.month <= 2:  # "this winter" in January began last December
        year -= 1
    return start(year), m.group(0)


def _absolute_date(content: str, local_now: datetime, prefer_past: bool) -> tuple[datetime, str] | None:
    """The first date cue, when it is an absolute date in a common form (else None: ask dateparser).
    A date without a year is the coming one in a plan and the last one in a past-tense sentence."""
    cue = _DATE_GATE.search(content)
    m = _ABSOLUTE.search(content)
    if cue is None or m is None or not (m.start() <= cue.start() < m.end()):
        return None
    if _RECURRING.search(content[max(0, m.start() - 12) : m.start()]):
        return None
    g = m.groupdict()
    try:
        if g["iy"]:
            year, month, day = int(g["iy"]), int(g["im"]), int(g["id"])
        elif g["y4"]:
            year, month, day = int(g["y4"]), 1, 1
        else:
            name = (g["m1"] or g["m2"] or g["m3"]).lower()[:3]
            month = _MONTH_NUMBER[name]
            day = int(g["d1"] or g["d2"] or 1)
            given_year = g["y1"] or g["y2"] or g["y3"]
            year = int(given_year) if given_year else local_now.year
            if not given_year:
                candidate = datetime(year, month, day, tzinfo=local_now.tzinfo)
                if prefer_past and candidate.date() > local_now.date():
                    year -= 1
                elif not prefer_past and candidate.date() < local_now.date():
                    year += 1
        return datetime(year, month, day, tzinfo=local_now.tzinfo), m.group(0).strip()
    except ValueError:  # "February 30": let dateparser decide
        return None


def load_date_reader() -> None:
    """Import dateparser's search and read one phrase (its modules and language data take most of a second
    the first time): at start-up, in a worker thread, so that no user's first dated memory pays for it."""
    library()  # imported once, behind one lock (date_library.py)
    from dateparser.search import search_dates

    search_dates("two weeks after the 3rd of March", languages=["en"], settings=_DATEPARSER_SETTINGS)


def find_event_time(
    content: str, now: datetime, tz: tzinfo | None, lang: str = ENGLISH
) -> tuple[datetime | None, str | None]:
    """The first explicit or relative date in `content` (written in `lang`), resolved against `now`
    in `tz`; an ambiguous one points the way the statement's mood at that date does. A date no person
    means ("December 9999") is no date."""
    try:
        when, phrase = _find_event_time(content, now, tz, lang)
    except (OverflowError, ValueError):  # a date at the edge of what Python holds
        return None, None
    return (when, phrase) if meant(when) is not None else (None, None)


# Phrases that point behind the told time, in the languages engrain reads: a period they name is never after it.
_POINTS_BACK = re.compile(
    r"\bago\b|\blast\b|\byesterday\b|\bvor\b|\bletzte|\bgestern\b|\bhace\b|pasad[oa]|\bayer\b|il y a|dernier"
    r"|dernière|\bhier\b|前|去年|昨|上个|上周|上星期",
    re.IGNORECASE,
)


# A year or a word saying which one ("next spring", "letzten Monat", "去年"): the phrase names its period itself.
_NAMES_WHICH = re.compile(
    r"\d{4}|\b(?:next|last|this|coming|past|nächst\w*|letzt\w*|dies\w*|vorig\w*|próxim[oa]|pasad[oa]|este|esta"
    r"|que viene|prochain\w*|dernier|dernière|ce|cet|cette)\b|[明去今上下这]",
    re.IGNORECASE,
)


# "Last week" in the languages engrain reads (not "two weeks ago", not "a week ago": those count days back).
_LAST_WEEK = re.compile(
    r"\b(?:last|past|previous)\s+week\b(?!\s*end)|\b(?:letzte|vorige|vergangene)[nmrs]?\s+woche\b"
    r"|\bsemana\s+pasada\b|\bpasada\s+semana\b|\bsemaine\s+(?:derni[eè]re|pass[ée]e)\b|\bderni[eè]re\s+semaine\b"
    r"|上(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末])",
    re.IGNORECASE,
)


def as_meant(period: Period, phrase: str | None, told: datetime) -> Period:
    """The period a relative phrase names as people mean it (docs/SPEC.md §5): weeks run Monday to Sunday,
    and "last week" told on a Sunday is the week ending that day — the days just past, not the week before
    them ("I graduated last week", said on Sunday 2 April, is the week of 27 March). Every other relative
    week, month and day counts whole units back from the told day ("last month" on 31 January is December)."""
    if (
        period.grain is Grain.WEEK
        and phrase
        and _LAST_WEEK.search(phrase)
        and told.weekday() == 6
        and period.end <= Period.containing(told, Grain.WEEK).start
    ):
        return Period.containing(told, Grain.WEEK)
    return period


def find_event_period(
    content: str, now: datetime, tz: tzinfo | None, lang: str = ENGLISH
) -> tuple[Period | None, str | None]:
    """The period the first date in `content` names, at the precision its words give (reading/periods.py),
    read against `now` — the told time. A month or a season named without a year that is under way at the told
    time is that one ("in January" said in January); a past statement is never dated after it was told."""
    when, phrase = find_event_time(content, now, tz, lang)
    if when is None:
        return None, None
    told = local(now, tz)
    period = as_meant(period_of(when, phrase), phrase, told)
    if period.grain in (Grain.MONTH, Grain.SEASON) and phrase and not _NAMES_WHICH.search(phrase):
        for years in (-1, 1):
            other = Period.containing(_years_later(period.start, years), period.grain)
            if other.start <= told < other.end:
                period = other
    if period.start > told and phrase and _POINTS_BACK.search(phrase):
        return None, None  # "last …", "… ago" dated after it was said: a misreading
    return period, phrase


def mood_of(content: str, lang: str, position: int | None = None) -> Mood:
    """English reads tense (mood.py); other languages their cue words (languages/)."""
    if lang != ENGLISH:
        return languages.mood(lang, content, position)
    return mood_at(content, position) if position is not None else text_mood(content)


def _years_later(when: datetime, years: int) -> datetime:
    try:
        return when.replace(year=when.year + years)
    except ValueError:  # 29 February
        return when.replace(year=when.year + years, day=28)


def _find_event_time(
    content: str, now: datetime, tz: tzinfo | None, lang: str = ENGLISH
) -> tuple[datetime | None, str | None]:
    if lang != ENGLISH:
        return _find_in(lang, content, local(now, tz))
    cue = _DATE_GATE.search(content)
    if cue is None:
        return None, None
    local_now = local(now, tz)
    before = content[max(0, cue.start() - 120) : cue.start()]
    booked = _BOOKED_FOR.search(before) is not None
    prefer_past = (mood_at(content, cue.start()) is Mood.PAST and not booked) or _SINCE_BEFORE.search(
        before
    ) is not None
    season = _season(content, local_now)
    season_at = _SEASON.search(content)
    if season is not None and season_at is not None and season_at.start() <= cue.start() + len(cue.group(0)):
        return season
    anchored = _ANCHORED.search(content)
    if anchored is not None and anchored.start() <= cue.start() + len(cue.group(0)):
        return _anchored(anchored, local_now)
    weekend = _WEEKEND.search(content)
    if weekend is not None and weekend.start() <= cue.start() + len(cue.group(0)):
        return _weekend(weekend, local_now, prefer_past)
    unit = _RELATIVE_UNIT.search(content)
    if unit is not None and unit.start() <= cue.start() + len(cue.group(0)):
        return _relative_unit(unit, local_now), unit.group(0)
    fast = _absolute_date(content, local_now, prefer_past)
    if fast is not None:
        return fast
    return _read_by_dateparser(content, local_now, prefer_past)


# A day of the month alone ("on the 12th", masked hour and all): dateparser reads it as the 12th month.
_ORDINAL_DAY = re.compile(
    r"(?:\b(?:at|around|by)\s+\d{1,2}\s+)?(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)", re.IGNORECASE
)


def _ordinal_day(text: str, local_now: datetime, prefer_past: bool) -> datetime | None:
    """The next (or, for the past, the last) date with the day of the month `text` names, if it names only that."""
    m = _ORDINAL_DAY.fullmatch(text.strip())
    if m is None:
        return None
    day, month, year = int(m.group(1)), local_now.month, local_now.year
    for _ in range(13):
        try:
            candidate = local_now.replace(year=year, month=month, day=day, hour=0, minute=0, second=0, microsecond=0)
        except ValueError:  # no such day this month ("the 31st" in November)
            candidate = None
        today = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
        if candidate is not None and (candidate <= today if prefer_past else candidate >= today):
            return candidate
        month, year = (month - 1 or 12, year - (month == 1)) if prefer_past else (month % 12 + 1, year + (month == 12))
    return None


def _read_by_dateparser(content: str, local_now: datetime, prefer_past: bool) -> tuple[datetime | None, str | None]:
    """The first date dateparser finds near a cue, judged as the text has it."""
    settings = {
        **_DATEPARSER_SETTINGS,
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
        "PREFER_DATES_FROM": "past" if prefer_past else "future",
    }
    library()  # imported once, behind one lock (date_library.py)
    from dateparser.search import search_dates  # heavy import, deferred off the start-up path

    # dateparser reads every candidate of the text it is given (an 8,000-character list of dates costs
    # seconds of CPU); the first date stands near a cue, so it reads only a window around each of the
    # first few cues: the cost is bounded whatever the text.
    covered = 0
    for cue_at in itertools.islice(_DATE_GATE.finditer(content), MAX_DATE_WINDOWS):
        begin, end = max(covered, cue_at.start() - WINDOW_BEFORE), cue_at.end() + WINDOW_AFTER
        if begin >= end or cue_at.end() <= covered:
            continue
        covered = end
        window = _BARE_HOUR.sub(lambda m: m.group(1) + " " * len(m.group(2)), content[begin:end])
        try:
            found = search_dates(window, languages=["en"], settings=settings) or []
        except Exception:  # dateparser can trip on odd unicode; a date is a bonus, never a failure
            return None, None
        position = 0
        for said, value in found:
            # dateparser gives the phrase with its spaces collapsed ("at on Friday" from a masked hour):
            # find it with any run of spaces, and judge it as the text has it.
            where = re.compile(r"\s+".join(map(re.escape, said.split()))).search(window, position)
            if where is None:
                continue
            position = where.end()
            start = begin + where.start()
            text = content[start : begin + where.end()]
            if not _DATE_CUE.search(text) or _NOT_A_DATE.match(text):
                continue
            if _RECURRING.search(content[max(0, start - 12) : start]) or _RECURRING.match(text):
                continue
            if _lookalike(content, start, text):
                continue
            if _BARE_YEAR.fullmatch(text.strip()):  # "2019" is the year, not today's date moved to 2019
                if _NAMED_BEFORE.search(content[max(0, start - 40) : start]):
                    continue
                value = value.replace(month=1, day=1)
            day = _ordinal_day(text, local_now, prefer_past)
            return (day or value.replace(tzinfo=local_now.tzinfo)), text
    return None, None


def _find_in(lang: str, content: str, local_now: datetime) -> tuple[datetime | None, str | None]:
    """The first date in a text in `lang` (not English): the language's own phrases and dateparser's
    (`languages.find_date`), or a construct read here in English (`languages.english_phrases`: weekends,
    seasons, offsets from a year), whichever comes first."""
    prefer_past = languages.mood(lang, content) is Mood.PAST
    found: list[tuple[datetime, str, int]] = []
    for english, said, start in languages.english_phrases(lang, content):
        when = _english_construct(english, local_now, prefer_past)
        if when is not None:
            found.append((when, said, start))
    native = languages.find_date(lang, content, local_now)
    if native is not None:
        found.append(native)
    if not found:
        return None, None
    when, said, _ = min(found, key=lambda f: (f[2], -len(f[1])))
    return when, said


def _english_construct(english: str, local_now: datetime, prefer_past: bool) -> datetime | None:
    """A weekend, a season, an offset from a year or another phrase, said in English (see `_find_in`)."""
    if (season := _season(english, local_now)) is not None:
        return season[0]
    if (weekend := _WEEKEND.search(english)) is not None:
        return _weekend(weekend, local_now, prefer_past)[0]
    if (anchored := _ANCHORED.search(english)) is not None:
        return _anchored(anchored, local_now)[0]
    library()  # imported once, behind one lock (date_library.py)
    import dateparser  # deferred off the start-up path

    settings = {**_DATEPARSER_SETTINGS, "RELATIVE_BASE": local_now.replace(tzinfo=None)}
    parsed = dateparser.parse(english, languages=["en"], settings=settings)
    return parsed.replace(tzinfo=local_now.tzinfo) if parsed is not None else None


# Words dateparser takes in with a date ("the Sun", "of March", "march on and"): not part of what is judged.
_EDGE_WORDS = re.compile(r"^(?:(?:the|of|on|at|in)\s+)*|(?:\s+(?:and|or|but))+$", re.IGNORECASE)


def _lookalike(content: str, start: int, text: str) -> bool:
    """A word that reads as a date only beside one ("sun", "march", "18th") with no date word before it and
    no number after it: "a bright sun", "we will march on", "my 18th birthday" are no dates. "The" and
    "of" make a date only of an ordinal ("the 18th"), not of a word ("the Sun Also Rises", "of March rain")."""
    core = _EDGE_WORDS.sub("", text.strip())
    if not _LOOKALIKE.fullmatch(core):
        return False
    at = start + text.find(core)
    before = content[max(0, at - 12) : at]
    lead = _DATE_LEAD.search(before) is not None
    if lead and re.search(r"\b(?:the|of)\s+$", before, re.IGNORECASE) and not core[:1].isdigit():
        lead = False
    number_after = re.match(r"\s*\d", content[at + len(core) :]) is not None
    return not lead and not number_after


def parse_when(field: str, value: str, now: datetime, tz: tzinfo | None, *, prefer_past: bool) -> datetime:
    """A time argument (`event_time`, `since`, `until`, `as_of`): an ISO date/datetime or any phrase
    that a memory's text may hold ("yesterday", "in 3 days", "last summer"), aware in the user's
    zone. `prefer_past` says which way an ambiguous phrase ("Friday") points."""
    local_now = local(now, tz)
    try:
        parsed: datetime | None = datetime.fromisoformat(value)
    except ValueError:
        season = _season(value, local_now)
        parsed = season[0] if season is not None else None
        if parsed is None:
            parsed = _phrase(value, local_now, prefer_past)
        if parsed is None:
            raise InvalidInput(
                field, f"{value!r} is neither an ISO date nor a date phrase like 'last week' or 'last summer'"
            ) from None
    if meant(parsed) is None:
        raise InvalidInput(field, f"{value!r} is outside the dates engrain keeps ({EVENT_RANGE})")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=local_now.tzinfo)
    return parsed


_ISO_YEAR = re.compile(r"(\d{4})")
_ISO_MONTH = re.compile(r"(\d{4})-(\d{2})")
_ISO_WEEK = re.compile(r"(\d{4})-?W(\d{2})", re.IGNORECASE)
_RANGE = re.compile(r"\s*(\S+)\s*(?:\.\.|/)\s*(\S+)\s*")


def parse_period(field: str, value: str, now: datetime, tz: tzinfo | None, *, prefer_past: bool) -> Period:
    """When something happened as a client or the calling model gives it, at the precision given: "2022" a
    year, "2022-12" a month, "2022-W48" a week, "2022-12-03..2022-12-05" a span, an ISO day or datetime a day
    (from that time), "summer 2022" a season, a phrase ("last month") the period it names from `now`."""
    text = value.strip()
    local_now = local(now, tz)
    try:
        if m := _ISO_YEAR.fullmatch(text):
            period = Period.containing(datetime(int(m[1]), 1, 1, tzinfo=local_now.tzinfo), Grain.YEAR)
        elif m := _ISO_MONTH.fullmatch(text):
            period = Period.containing(datetime(int(m[1]), int(m[2]), 1, tzinfo=local_now.tzinfo), Grain.MONTH)
        elif m := _ISO_WEEK.fullmatch(text):
            monday = datetime.fromisocalendar(int(m[1]), int(m[2]), 1).replace(tzinfo=local_now.tzinfo)
            period = Period.containing(monday, Grain.WEEK)
        elif (m := _RANGE.fullmatch(text)) and not _RANGE.fullmatch(m[1]) and not _RANGE.fullmatch(m[2]):
            # Each end at its own precision: "2024-06..2024-08" runs to the end of August, not its first day.
            first, last = (parse_period(field, part, now, tz, prefer_past=prefer_past) for part in (m[1], m[2]))
            if last.end <= first.start:
                raise InvalidInput(field, f"{value!r} ends before it begins")
            period = Period.between(first.start, max(first.end, last.end) - timedelta(microseconds=1))
        else:
            when = parse_when(field, text, now, tz, prefer_past=prefer_past)
            exact = _is_iso(text)
            read = Period(when, Period.containing(when, Grain.DAY).end, Grain.DAY) if exact else period_of(when, text)
            period = as_meant(read, text, local_now)
    except ValueError:  # a month 13, a week 54
        raise InvalidInput(field, f"{value!r} is not a date, a month (2022-12), a week (2022-W48) or a year") from None
    if meant(period.start) is None:
        raise InvalidInput(field, f"{value!r} is outside the dates engrain keeps ({EVENT_RANGE})")
    return period


def _is_iso(text: str) -> bool:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _phrase(value: str, local_now: datetime, prefer_past: bool) -> datetime | None:
    """A date phrase in any language dateparser or a language module reads; None when it reads none (or only
    one past the end of Python's calendar)."""
    library()  # imported once, behind one lock (date_library.py)
    import dateparser  # deferred off the start-up path

    try:
        parsed = dateparser.parse(
            value,
            languages=["en"],
            settings={
                **_DATEPARSER_SETTINGS,
                "RELATIVE_BASE": local_now.replace(tzinfo=None),
                "PREFER_DATES_FROM": "past" if prefer_past else "future",
            },
        )
        if parsed is None and (lang := detect(value)) != ENGLISH:  # "上周三", "la semana pasada"
            parsed = _find_in(lang, value, local_now)[0]
    except (OverflowError, ValueError):
        return None
    return parsed


def began(content: str, lang: str = ENGLISH) -> bool:
    """Does `content` speak of a state that began at its date ("since October", "seit 2019")? It holds now."""
    return languages.began(lang, content) if lang != ENGLISH else _SINCE.search(content) is not None


# Change told over time ("my knee gets better every day", "jeden Tag besser", "一天比一天好"): the recurrence
# belongs to a comparative, not to a rule the user keeps, so it is no habit (issue 41: an injury became an
# undated habit and left the key dates). "Every Sunday I bake, it gets easier each time" is still one.
_COMPARATIVE = (
    r"better|worse|easier|harder|stronger|weaker|more|less|improv\w*|besser|schlechter|mejor|peor|mejora\w*|mieux"
    r"|pire|am[ée]liore\w*"
)
_PROGRESS_BEFORE = re.compile(rf"\b(?:{_COMPARATIVE})\b\W+(?:\w+\W+){{0,2}}$", re.IGNORECASE)
_PROGRESS_AFTER = re.compile(rf"^\W*(?:\w+\W+){{0,2}}(?:{_COMPARATIVE})\b", re.IGNORECASE)
_PROGRESS_ZH = re.compile(r"一天比一天|越来越|好转")


def _progress(content: str, phrase: str) -> bool:
    at = content.find(phrase)
    if at < 0:
        return False
    before, after = content[:at], content[at + len(phrase) :]
    return bool(_PROGRESS_BEFORE.search(before) or _PROGRESS_AFTER.match(after) or _PROGRESS_ZH.search(content))


def _recurring(content: str, lang: str) -> str | None:
    if lang != ENGLISH:
        return languages.recurrence(lang, content)
    m = _RECURRENCE.search(content)
    return m.group(0) if m else None


def recurrence(content: str, lang: str = ENGLISH) -> str | None:
    """The phrase that makes `content` a habit ("every Thursday", "on Thursday evenings", "jeden Donnerstag",
    "每周四"), if it is one: a habit has a rule the user states, not a date, and is never an upcoming plan. A
    change told over time ("gets better every day") is no habit, nor a recurrence that is what a sentence speaks
    of rather than when its user acts ("every day on set is awesome": the subject of "is"), nor one inside a
    bounded stretch of the past ("a week every day on set was awesome", "for two weeks I ran every day")."""
    found = _recurring(content, lang)
    if found is None or _progress(content, found) or _spoken_of(content, found, lang):
        return None
    return None if _bounded_past(content, lang) else found


# A recurrence that is the subject of "is/was" ("every day on set is awesome", "each morning there felt
# endless"): a judgement of those days, not an action the user repeats (issue 61).
_COPULA_AFTER = re.compile(
    r"^(?:\s+(?:on|at|in|of|with|here|there|of\s+the)\b[\w'’ -]{0,30}?)?\s+"
    r"(?:is|was|were|are|has\s+been|had\s+been|feels|felt|seems|seemed|looks|looked)\b",
    re.IGNORECASE,
)
_SUBJECT_BEFORE = re.compile(r"(?:^|[.!?;:]\s*|\b(?:and|but|so|because)\s+|\b(?:a|one|that|the)\s+\w+\s+)$", re.I)
# A stretch the past statement spans ("a week", "for two months", "that summer", "all year"): the
# recurrence is how those days went, not a rule kept now.
_SPAN = re.compile(
    r"\b(?:(?:for\s+)?(?:a|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|several|\d+)\s+"
    r"(?:whole\s+|full\s+|straight\s+)?(?:days?|weeks?|months?|years?)"
    r"|(?:that|all|the\s+whole|the\s+entire)\s+(?:day|week|month|year|summer|winter|spring|autumn|fall|semester"
    r"|trip|holiday|vacation|shoot))\b",
    re.IGNORECASE,
)
# A habit taken up ("started", "began", "took up") or kept since ("since", "used to", "still"), whatever the
# tense: it holds now, or was a rule of the user's life.
_KEPT = re.compile(
    r"\b(?:start\w*|began|begun|begin\w*|took\s+up|taken\s+up|since|used\s+to|would|still|now|"
    r"angefangen|begonnen|seit|früher|empez\w+|comenz\w+|desde|antes|commenc\w+|depuis|avant)\b|开始|以前|一直",
    re.IGNORECASE,
)


def _spoken_of(content: str, phrase: str, lang: str) -> bool:
    if lang != ENGLISH:
        return False
    at = content.find(phrase)
    return (
        at >= 0
        and _SUBJECT_BEFORE.search(content[:at]) is not None
        and _COPULA_AFTER.match(content[at + len(phrase) :]) is not None
    )


def _bounded_past(content: str, lang: str) -> bool:
    """A past statement whose recurrence lies inside a stretch it names ("a week every day on set was
    awesome", "last summer I swam every morning"): English by its tense and a span; every language by a date of
    its own that is over when told (checked by the caller, `enrich`)."""
    return (
        lang == ENGLISH
        and _KEPT.search(content) is None
        and _SPAN.search(content) is not None
        and text_mood(content) is Mood.PAST
    )


def kept_since(content: str) -> bool:
    """Whether `content` says a habit was taken up or is kept ("started running every day", "since May",
    "used to"): then a past date in it is when the habit began, not a stretch it was bounded by."""
    return _KEPT.search(content) is not None


def changing(content: str, lang: str = ENGLISH) -> bool:
    """A change told over time ("my knee gets better every day", "Mein Knie wird jeden Tag besser"): how
    things are now, neither a habit nor a plan, whatever the verb's form ("wird", "va")."""
    found = _recurring(content, lang)
    return (found is not None and _progress(content, found)) or bool(_PROGRESS_ZH.search(content))


def time_phrase(content: str, lang: str = ENGLISH) -> str | None:
    """A mention of when something happened, even where a client-given event_time makes parsing it
    moot: what a "when did…" question is looking for."""
    if lang != ENGLISH:
        return languages.date_phrase(lang, content)
    phrase = _TIME_PHRASE.search(content)
    return phrase.group(0) if phrase else None


_WEEK = re.compile(r"week|woche|semana|semaine|(?:周|星期|礼拜)(?![一二三四五六日天末])")


def _period(phrase: str, when: datetime) -> tuple[datetime, datetime]:
    """The stretch of time a date phrase names (reading/periods.py): a year, a season, a month or a calendar
    week as it is; a day or a weekend with a day of slack at each end."""
    period = period_of(when, phrase)
    if period.grain in (Grain.DAY, Grain.SPAN):
        start = period.start.replace(hour=0, minute=0, second=0, microsecond=0)
        return start - timedelta(days=1), period.end + timedelta(days=1)
    return period.start, period.end


def read_query_time(query: str, now: datetime, tz: tzinfo | None, lang: str = ENGLISH) -> QueryTime:
    """Query-time date understanding: "when did…" questions and periods named in the query
    ("last March", "in 2023", "yesterday", 上个月), resolved in the user's zone."""
    when, phrase = find_event_time(query, now, tz, lang)
    asks = bool(_ASKS_WHEN.search(query) if lang == ENGLISH else languages.asks_when(lang, query))
    window = _period(phrase, when) if when is not None and phrase else None
    ahead = _asks_ahead(query, lang, asks_when=asks, names_period=window is not None)
    if ahead:  # what is coming: from today, over the named period or else the coming week
        window = _ahead(window, phrase, when, local(now, tz))
        ahead = window is not None  # a period that is over ("what did I plan last month"): about the past
    return QueryTime(asks_when=asks, window=window, ahead=ahead)


def _asks_ahead(query: str, lang: str, *, asks_when: bool, names_period: bool) -> bool:
    """Does the query ask what is coming, the plans of a period ahead? A "when…" question asks the date of one
    thing, which may lie anywhere: the coming week's plans are no likelier its answer than any other, and their
    bonus crowded a passed plan it asked about out of the first ten (issue 60), so it asks what is ahead only
    over a period it names ("when am I free next week?")."""
    if asks_when and not names_period:
        return False
    if lang != ENGLISH:
        return languages.asks_ahead(lang, query)
    if _ASKS_AHEAD.search(query):
        return True
    if not _ASKS_PLANS.search(query) or _ASKS_OF_THE_PAST.search(query):
        return False
    return names_period or _PLANS_THEMSELVES.search(query) is not None


def period_ahead(text: str, now: datetime, tz: tzinfo | None, lang: str = ENGLISH) -> tuple[datetime, datetime] | None:
    """The part still ahead of the period `text` names ("this week", "next month", "这周", "nächste Woche"),
    as `read_query_time` reads it in a question about what is coming; None when it names no period or
    one that is over."""
    when, phrase = find_event_time(text, now, tz, lang)
    if when is None or not phrase:
        return None
    return _ahead(_period(phrase, when), phrase, when, local(now, tz))


def _ahead(
    window: tuple[datetime, datetime] | None, phrase: str | None, when: datetime | None, local_now: datetime
) -> tuple[datetime, datetime] | None:
    """From today over the named period (to the end of a week named), else the coming AHEAD_DAYS; None
    when the named period is over."""
    today = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
    if window is None:
        return today, today + timedelta(days=AHEAD_DAYS)
    # A week is its own Monday to Sunday, still ahead on its Sunday ("这周" on a Thursday was once over: its
    # window was four days around its Monday); another period has a day of slack at each end (`_period`), so
    # it is over once it ends by tomorrow.
    if phrase and when is not None and _WEEK.search(phrase.lower()):
        monday = when.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=when.weekday())
        window, end_of_slack = (monday, monday + timedelta(days=7)), today
    else:
        end_of_slack = today + timedelta(days=1)
    if window[1] <= end_of_slack:
        return None
    return max(window[0], today), window[1]
