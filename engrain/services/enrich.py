"""Write-time enrichment without an LLM (SPEC §5.2): dates, temporality, procedures, category.

Deterministic and fast (about a millisecond): dateparser only runs when a cheap regex
sees something date-like, and its matches are kept only if they contain a real date
cue, which drops its false positives ("We", "may").
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

_MONTHS = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|jun(?:e)?|jul(?:y)?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
_WEEKDAYS = r"mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?"
_RELATIVE = (r"yesterday|today|tonight|tomorrow|ago|next|last|this|weekend|"
             r"in\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+"
             r"(?:minute|hour|day|week|month|year)s?")
# A match must contain one of these to count as a date (so "We" or a bare "may" do not).
_DATE_CUE = re.compile(rf"\d|\b(?:{_MONTHS}|{_WEEKDAYS}|{_RELATIVE})\b", re.IGNORECASE)
# Only text with one of these is handed to dateparser (about 1 ms a call): a year, a numeric date, an
# ordinal day, a month (a bare "may" only next to a number), a weekday or a relative phrase.
_DATE_GATE = re.compile(
    rf"\b(?:1[89]\d\d|20\d\d)\b|\b\d{{1,4}}[/.-]\d{{1,2}}(?:[/.-]\d{{1,4}})?\b|\b\d{{1,2}}(?:st|nd|rd|th)\b"
    rf"|\bmay\s+\d|\d\s+may\b|\b(?:{_MONTHS}|{_WEEKDAYS}|{_RELATIVE})\b",
    re.IGNORECASE,
)
_MONTH_NUMBER = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}
# Absolute dates in their common written forms, read without dateparser (which costs ~1 ms a call):
# 2025-03-04 · March 2025 · March 4(th)(, 2025) · 4(th) March 2025 · in 2019.
_ABSOLUTE = re.compile(
    r"\b(?:on\s+|in\s+)?(?:"
    r"(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2})(?![T:\d])"
    rf"|(?P<m1>{_MONTHS}|may)\.?\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<y1>\d{{4}}))?(?![\d:])"
    rf"|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_MONTHS}|may)\.?(?:,?\s+(?P<y2>\d{{4}}))?"
    rf"|(?P<m3>{_MONTHS}|may)\.?,?\s+(?P<y3>\d{{4}})"
    r"|(?<=in\s)(?P<y4>1[89]\d\d|20\d\d)(?![\d:/.-])"
    r")\b",
    re.IGNORECASE,
)
# Numbers and clock times alone are not dates ("3 cats", "the 7:40 train").
_NOT_A_DATE = re.compile(r"^\s*(?:the|on|at|in|by)?\s*\d{1,3}(?:[:.]\d{2})?\s*(?:am|pm|h)?\s*$", re.IGNORECASE)
# "every Monday", "on Tuesdays": a habit, not an event.
_RECURRING = re.compile(rf"\b(?:every|each)\s+(?:other\s+)?$|^\s*(?:on\s+)?(?:{_WEEKDAYS})s\b", re.IGNORECASE)

# A mention of when something happened, even where a client-given event_time makes parsing it moot:
# what a "when did…" question is looking for. Full names only ("sat", "sun" and "mar" are words).
_FULL_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_FULL_MONTHS = (r"january|february|march|april|june|july|august|september|october|november|december")
_TIME_PHRASE = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|(?:\w+\s+)?(?:days?|weeks?|months?|years?)\s+ago"
    rf"|(?:last|next|this|past|coming)\s+(?:week(?:end)?|month|year|night|morning|evening|afternoon|summer|"
    rf"winter|spring|autumn|fall|{_FULL_WEEKDAYS})"
    rf"|in\s+(?:a|an|one|two|three|four|five|six|\d+)\s+(?:days?|weeks?|months?|years?)"
    rf"|{_FULL_WEEKDAYS}|(?:{_FULL_MONTHS})(?:\s+\d{{1,2}})?|(?:1[89]|20)\d\d|\d{{4}}-\d{{2}}-\d{{2}})\b",
    re.IGNORECASE,
)
# Questions about a time: "When did…", "What year…", "How long ago…".
_ASKS_WHEN = re.compile(r"\b(?:when|what\s+(?:day|date|time|year|month|week)|which\s+(?:day|date|year|month|week)"
                        r"|how\s+long\s+ago|since\s+when)\b", re.IGNORECASE)

_INTENT = re.compile(
    r"\b(?:will|shall|going to|gonna|plan(?:ning)? to|plans? to|intend(?:s|ing)? to|want to|hope to|"
    r"remind me|need to|have to|has to|must|should|upcoming|scheduled|appointment|deadline|due)\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|born|did|had|went|got|met|saw|made|took|came|began|bought|"
                   r"ate|spent|left|won|lost|[a-z]{2,}ed)\b", re.IGNORECASE)

_ARROW = re.compile(r"\s*(?:→|->|=>|⟶|⇒)\s*")
_SEQUENCE_WORD = re.compile(
    r"(?:^|[,;.]\s*|\s+)(?:and\s+)?\b(?:first(?:ly)?|then|next|after that|afterwards|finally|lastly)\b[,:]?\s*",
    re.IGNORECASE,
)
_FIRST = re.compile(r"\bfirst(?:ly)?\b", re.IGNORECASE)
_THEN = re.compile(r"\b(?:then|finally|lastly)\b", re.IGNORECASE)
_NUMBERED = re.compile(r"(?:^|\s)(?:\d{1,2}[.)]|step\s+\d{1,2}:?)\s+", re.IGNORECASE)

_CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    ("workflow", re.compile(r"\b(?:workflow|process|procedure|steps?|how to|deploy|routine)\b", re.I)),
    ("health", re.compile(r"\b(?:doctor|dentist|allerg\w*|medication|sick|ill|diet|therapy|"
                          r"hospital|symptom\w*|injur\w*)\b", re.I)),
    ("relationship", re.compile(r"\b(?:wife|husband|partner|girlfriend|boyfriend|mom|mother|dad|father|"
                                r"sister|brother|daughter|son|friend|kids?|children|family)\b", re.I)),
    ("work", re.compile(r"\b(?:work(?:s|ing)?|job|office|boss|colleague|coworker|manager|team|project|"
                        r"meeting|client|company|employer|career|startup)\b", re.I)),
    ("location", re.compile(r"\b(?:live[sd]? in|living in|moved to|moving to|based in|relocat\w+|"
                            r"hometown|address|city|country|neighbo(?:u)?rhood)\b", re.I)),
    ("skill", re.compile(r"\b(?:know how|skilled|expert|fluent|speak|learn(?:ing|ed|t)?|proficient|"
                         r"programming|certified|practice)\b", re.I)),
    ("preference", re.compile(r"\b(?:like[sd]?|love[sd]?|adore[sd]?|prefer\w*|favou?rite|hate[sd]?|"
                              r"dislike[sd]?|enjoy\w*|fan of|can't stand)\b", re.I)),
]


def normalize(content: str) -> str:
    """The form two memories must share to count as the same text."""
    text = unicodedata.normalize("NFKC", content).casefold()
    text = re.sub(r"\s+", " ", text).strip()
    return text.rstrip(".!?;, ")


def content_hash(content: str) -> str:
    return hashlib.sha256(normalize(content).encode()).hexdigest()


@dataclass
class Enrichment:
    kind: str
    temporality: str
    event_time: datetime | None
    category: str
    procedure_steps: list[str] = field(default_factory=list)
    date_text: str | None = None
    time_phrase: str | None = None


@dataclass(frozen=True)
class QueryTime:
    """What a recall query says about time: it asks when something happened, and/or names a period."""

    asks_when: bool = False
    window: tuple[datetime, datetime] | None = None


def _absolute_date(content: str, local_now: datetime, prefer_past: bool) -> tuple[datetime, str] | None:
    """The first date cue, when it is an absolute date in a common form (else None: ask dateparser).
    A date without a year is the coming one in a plan and the last one in a past-tense sentence."""
    cue = _DATE_GATE.search(content)
    m = _ABSOLUTE.search(content)
    if cue is None or m is None or not (m.start() <= cue.start() < m.end()):
        return None
    if _RECURRING.search(content[max(0, m.start() - 12):m.start()]):
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


def find_event_time(content: str, now: datetime, tz: ZoneInfo | None) -> tuple[datetime | None, str | None]:
    """The first explicit or relative date in `content`, resolved against `now` in `tz`."""
    if not _DATE_GATE.search(content):
        return None, None
    local_now = now.astimezone(tz) if tz else now.astimezone()
    prefer_past = bool(_PAST.search(content))
    fast = _absolute_date(content, local_now, prefer_past)
    if fast is not None:
        return fast
    settings = {
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
        "RETURN_AS_TIMEZONE_AWARE": False,
        "PREFER_DAY_OF_MONTH": "first",  # "in March 2025" is March 1st, not March <today's day>
        # A bare "Friday" is the coming one in a plan, the last one in a past-tense sentence.
        "PREFER_DATES_FROM": "past" if prefer_past else "future",
    }
    from dateparser.search import search_dates  # heavy import, deferred off the start-up path

    try:
        found = search_dates(content, languages=["en"], settings=settings) or []
    except Exception:  # dateparser can trip on odd unicode; a date is a bonus, never a failure
        return None, None
    position = 0
    for text, value in found:
        start = content.find(text, position)
        position = max(position, start + len(text))
        if not _DATE_CUE.search(text) or _NOT_A_DATE.match(text):
            continue
        if _RECURRING.search(content[max(0, start - 12):start]) or _RECURRING.match(text):
            continue
        return value.replace(tzinfo=local_now.tzinfo), text
    return None, None


def procedure_steps(content: str) -> list[str]:
    """Steps of a workflow written as "A → B → C", "first…, then…, finally…" or "1. … 2. …"."""
    parts = [p.strip(" .;") for p in _ARROW.split(content)]
    if len(parts) >= 3 and all(parts):
        if ":" in parts[0]:
            parts[0] = parts[0].split(":", 1)[1].strip()
        return [p for p in parts if p]
    first = _FIRST.search(content)
    if first and _THEN.search(content, first.end()):
        body = content[first.start():]
        steps = [s.strip(" ,.;:") for s in _SEQUENCE_WORD.split(body)]
        steps = [s for s in steps if s]
        if len(steps) >= 2:
            return steps
    if len(_NUMBERED.findall(content)) >= 2:
        steps = [s.strip(" ,.;:") for s in _NUMBERED.split(content)[1:]]
        steps = [s for s in steps if s]
        if len(steps) >= 2:
            return steps
    return []


def category_of(content: str, steps: list[str]) -> str:
    if steps:
        return "workflow"
    for name, pattern in _CATEGORIES:
        if pattern.search(content):
            return name
    return "general"


def enrich(content: str, now: datetime, tz: ZoneInfo | None, event_time: datetime | None = None) -> Enrichment:
    """Infer kind, temporality, event_time, category and procedure steps from the text alone.
    A client-given `event_time` wins over a date found in the text."""
    date_text: str | None = None
    if event_time is None:
        event_time, date_text = find_event_time(content, now, tz)
    steps = procedure_steps(content)
    without_date = content.replace(date_text, " ") if date_text else content
    past = bool(_PAST.search(without_date))
    intent = bool(_INTENT.search(without_date))
    if event_time is not None and event_time > now + timedelta(minutes=1):
        temporality = "prospective"
    elif event_time is not None and past:
        temporality = "historical"
    elif event_time is None and intent and not past:
        temporality = "prospective"
    else:
        temporality = "current"
    if steps:
        kind = "procedural"
    elif event_time is not None and past:
        kind = "episodic"
    else:
        kind = "fact"
    phrase = _TIME_PHRASE.search(content)
    return Enrichment(kind, temporality, event_time, category_of(content, steps), steps, date_text,
                      date_text or (phrase.group(0) if phrase else None))


def _period(phrase: str, when: datetime) -> tuple[datetime, datetime]:
    """The stretch of time a date phrase names: a year, a month, a week or a day (±1 for slack)."""
    p = phrase.lower()
    day = when.replace(hour=0, minute=0, second=0, microsecond=0)
    has_day = re.search(r"\b\d{1,2}(?:st|nd|rd|th)?\b|\d{4}-\d{2}-\d{2}|yesterday|today|tonight|tomorrow|day|"
                        + _FULL_WEEKDAYS, p)
    if "year" in p or (re.fullmatch(r"(?:in\s+)?\d{4}", p.strip())):
        return day.replace(month=1, day=1), day.replace(year=day.year + 1, month=1, day=1)
    if "month" in p or (re.search(rf"\b(?:{_MONTHS}|may)\b", p) and not has_day):
        start = day.replace(day=1)
        return start, (start + timedelta(days=32)).replace(day=1)
    if "week" in p:
        return day - timedelta(days=4), day + timedelta(days=4)
    return day - timedelta(days=1), day + timedelta(days=2)


def read_query_time(query: str, now: datetime, tz: ZoneInfo | None) -> QueryTime:
    """Query-time date understanding: "when did…" questions and periods named in the query
    ("last March", "in 2023", "yesterday"), resolved in the user's zone."""
    when, phrase = find_event_time(query, now, tz)
    return QueryTime(asks_when=bool(_ASKS_WHEN.search(query)),
                     window=_period(phrase, when) if when is not None and phrase else None)
