"""Write-time enrichment without an LLM (docs/SPEC.md §5.2): dates, temporality, procedures, category.

Deterministic and fast (about a millisecond). Dates are read by `dates.py`, tense and modality
by `mood.py`; this module combines them into a memory's kind and temporality.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, tzinfo

from engrain.reading import languages
from engrain.reading.dates import (
    began,
    changing,
    find_event_period,
    kept_since,
    mood_of,
    recurrence,
    time_phrase,
)
from engrain.reading.mood import Mood
from engrain.reading.periods import Period
from engrain.reading.speakers import REPLY
from engrain.reading.validity import expiry_date
from engrain.text.languages import ENGLISH

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
    (
        "health",
        re.compile(
            r"\b(?:doctor|dentist|allerg\w*|medication|sick|ill|diet|therapy|"
            r"hospital|symptom\w*|injur\w*)\b",
            re.I,
        ),
    ),
    (
        "relationship",
        re.compile(
            r"\b(?:wife|husband|partner|girlfriend|boyfriend|mom|mother|dad|father|"
            r"sister|brother|daughter|son|friend|kids?|children|family)\b",
            re.I,
        ),
    ),
    (
        "work",
        re.compile(
            r"\b(?:work(?:s|ing)?|job|office|boss|colleague|coworker|manager|team|project|"
            r"meeting|client|company|employer|career|startup)\b",
            re.I,
        ),
    ),
    (
        "location",
        re.compile(
            r"\b(?:live[sd]? in|living in|moved to|moving to|based in|relocat\w+|"
            r"hometown|address|city|country|neighbo(?:u)?rhood)\b",
            re.I,
        ),
    ),
    (
        "skill",
        re.compile(
            r"\b(?:know how|skilled|expert|fluent|speak|learn(?:ing|ed|t)?|proficient|"
            r"programming|certified|practice)\b",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\b(?:like[sd]?|love[sd]?|adore[sd]?|prefer\w*|favou?rite|hate[sd]?|"
            r"dislike[sd]?|enjoy\w*|fan of|can't stand|vegetarian|vegan|pescatarian|teetotal)\b",
            re.I,
        ),
    ),
]


def normalize(content: str) -> str:
    """The form two memories must share to count as the same text."""
    text = unicodedata.normalize("NFKC", content).casefold()
    text = re.sub(r"\s+", " ", text).strip()
    return text.rstrip(".!?;, ")


def content_hash(content: str) -> str:
    return hashlib.sha256(normalize(content).encode()).hexdigest()


# A memory's importance when neither the client nor its text says otherwise, and when its text says it matters.
DEFAULT_IMPORTANCE = 5
IMPORTANT = 8


@dataclass
class Enrichment:
    kind: str
    temporality: str
    event: Period | None  # when it happened, at the precision the text (or the client) gave
    category: str
    procedure_steps: list[str] = field(default_factory=list[str])
    date_text: str | None = None
    time_phrase: str | None = None
    important: bool = False  # the text says it matters ("重要", "wichtig", "allergisch"): importance 8
    recurrence: str | None = None  # the phrase that makes it a habit ("every Thursday")

    @property
    def event_time(self) -> datetime | None:
        return self.event.start if self.event is not None else None

    def as_reply(self) -> Enrichment:
        """The reading of what an assistant said: a reply, current, with no event, habit or steps of the user's
        (its "next week" is advice, not the user's plan; reading/speakers.py)."""
        return replace(
            self,
            kind=REPLY,
            temporality="current",
            event=None,
            procedure_steps=[],
            date_text=None,
            time_phrase=None,
            recurrence=None,
        )


def procedure_steps(content: str, lang: str = ENGLISH) -> list[str]:
    """Steps of a workflow written as "A → B → C", "first…, then…, finally…" (or the sequence words
    of `lang`: "首先…然后…最后", "先…再…") or "1. … 2. …"."""
    parts = [p.strip(" .;") for p in _ARROW.split(content)]
    if len(parts) >= 3 and all(parts):
        if ":" in parts[0]:
            parts[0] = parts[0].split(":", 1)[1].strip()
        return [p for p in parts if p]
    first = _FIRST.search(content) if lang == ENGLISH else None
    if lang != ENGLISH and (steps := languages.procedure_steps(lang, content)):
        return steps
    if first and _THEN.search(content, first.end()):
        body = content[first.start() :]
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


def category_of(content: str, steps: list[str], lang: str = ENGLISH) -> str:
    if steps:
        return "workflow"
    if lang != ENGLISH:
        return languages.category(lang, content) or "general"
    for name, pattern in _CATEGORIES:
        if pattern.search(content):
            return name
    return "general"


# A date at least this far behind the told time is in the past whatever the verb's tense says (many
# languages' past forms are not read as such: "nos mudamos", "ich habe 2015 abgeschlossen").
PAST_DATE = timedelta(hours=12)


def temporality_of(mood: Mood, asks_assistant: bool, event_time: datetime | None, now: datetime) -> str:
    """Prospective: a date ahead, or a plan (whose given date may have passed: it is overdue).
    Historical: a dated statement about the past. What the user asks of the assistant is not a plan
    of theirs, so a request is current whatever its wishes ("I want to understand it thoroughly")."""
    if asks_assistant:
        return "current"
    if (event_time is not None and event_time > now + timedelta(minutes=1)) or mood is Mood.PLAN:
        return "prospective"
    if event_time is not None and (mood is Mood.PAST or event_time <= now - PAST_DATE):
        return "historical"  # a date behind, in a statement that is no plan: it tells of the past
    return "current"


def bounded_by(period: Period, content: str, now: datetime, lang: str) -> bool:
    """A recurrence inside a stretch of the past that `content` dates ("In 2019 I swam every morning", "By early
    February 2022 I had sent my first screenplay… on my mind every day", "Letzte Woche bin ich jeden Tag
    gelaufen"): those days, over when told or told in the past tense, not a rule the user keeps — unless the words
    say the habit began then or is kept ("since May", "started running every day last week", "used to")."""
    if kept_since(content) or period.start > now - PAST_DATE:
        return False
    return period.end <= now or mood_of(content, lang) is Mood.PAST


def enrich(
    content: str,
    now: datetime,
    tz: tzinfo | None,
    event: Period | None = None,
    lang: str = ENGLISH,
    *,
    read_dates: bool = True,
    retold: bool = False,
) -> Enrichment:
    """Infer kind, temporality, the event's period, category and procedure steps from the text alone (written
    in `lang`), told at `now`. A client-given `event` (the calling model's reading) wins over a date found in
    the text; `read_dates=False`: the model read the text and found no date, which wins too. A `retold` text
    (a conversation's summary) tells what was said, not the user's rule: it holds no habit."""
    date_text: str | None = None
    habit = recurrence(content, lang) if not retold else None
    if event is None and read_dates:  # a habit's weekday ("every Thursday") is a rule, not a date
        found, found_text = find_event_period(content, now, tz, lang)
        if habit is None:
            event, date_text = found, found_text
        elif found is not None and bounded_by(found, content, now, lang):
            habit, event, date_text = None, found, found_text  # "last summer I swam every morning": that summer
    event_time = event.start if event is not None else None
    steps = procedure_steps(content, lang)
    whole = mood_of(content, lang)
    mood = mood_of(content, lang, content.find(date_text)) if date_text else whole
    temporality = temporality_of(mood, whole is Mood.REQUEST, event_time, now)
    # "since October": a state that began then and holds now (a fact, not an event).
    state = habit is None and event_time is not None and event_time <= now and began(content, lang)
    if habit is not None:  # a habit is kept, or was: never an upcoming plan
        temporality = "historical" if whole is Mood.PAST else "current"
    elif state or (event is None and changing(content, lang)):  # "since October", "gets better every day"
        temporality = "current"
    elif temporality == "prospective" and mood is not Mood.PLAN and expiry_date(content, date_text):
        temporality = "current"  # "my passport expires 2031": the passport's date, no plan of the user's
    if steps:
        kind = "procedural"
    elif not state and event_time is not None and mood is Mood.PAST and event_time <= now + timedelta(minutes=1):
        kind = "episodic"
    else:
        kind = "fact"
    return Enrichment(
        kind,
        temporality,
        event,
        category_of(content, steps, lang),
        steps,
        date_text,
        date_text or time_phrase(content, lang),
        languages.important(lang, content),
        habit,
    )
