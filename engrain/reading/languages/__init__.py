"""What enrichment and ingestion read in a language other than English: dates, mood, procedures,
categories, importance cues and first-person statements.

English keeps its own, richer modules (`mood.py`, `dates.py`, `enrich.py`). Each other language
has one module holding its words (`zh.py`, `de.py`, `es.py`, `fr.py`); the reading below is shared.
Dates come from dateparser's data for every language it knows (`dateparser_phrases.py`), plus the
rules a language module adds where dateparser was measured not to read them (Chinese). A language
without a module still gets its dates from dateparser; its mood is the present.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from engrain.reading.languages import dateparser_phrases, de, es, fr, zh
from engrain.reading.mood import Mood

_NEVER = re.compile(r"(?!)")
# A title or a quotation (《三月的雨》, « Les Mois », „Der Mai“) holds no date of the user's.
_QUOTED = re.compile(r"《[^》]*》|“[^”]*”|「[^」]*」|«[^»]*»|„[^“”]*[“”]")
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")


@dataclass(frozen=True)
class Rules:
    """A language's words for what enrichment and ingestion look for."""

    plan: re.Pattern[str] = _NEVER
    past: re.Pattern[str] = _NEVER
    request: re.Pattern[str] = re.compile(r"[?？¿]\s*$")
    clauses: re.Pattern[str] = re.compile(r"[,;:.!?]\s*")
    first_person: re.Pattern[str] = _NEVER
    asks_when: re.Pattern[str] = _NEVER
    asks_ahead: re.Pattern[str] = _NEVER
    recurring: re.Pattern[str] = _NEVER  # a habit ("every Thursday"): a rule, not a date
    since: re.Pattern[str] = _NEVER  # a state that began at the date and holds now
    first_step: re.Pattern[str] = _NEVER
    next_step: re.Pattern[str] = _NEVER
    important: re.Pattern[str] = _NEVER
    categories: list[tuple[str, re.Pattern[str]]] = field(default_factory=list[tuple[str, re.Pattern[str]]])
    # Dates the language's module reads itself: (day, phrase, start) for each one in the text.
    dates: Callable[[str, datetime, bool], list[tuple[datetime, str, int]]] | None = None
    spaced: bool = True  # words are separated by spaces (not so in Chinese)
    booked: re.Pattern[str] = _NEVER  # "reserviert", "订了": what was booked is ahead, whatever the tense
    month_lead: re.Pattern[str] | None = None  # before a bare month name that is a date ("im Oktober"); None: any
    numbers: dict[str, int] = field(default_factory=dict[str, int])  # "zwei" → 2, before a unit of time
    units: re.Pattern[str] = _NEVER  # the units of time those numbers count ("Wochen")
    year: re.Pattern[str] = _NEVER  # a year after a word that makes it one ("en 2015"): its first day
    # The constructs engrain reads in English, said in this language: (pattern, English phrase) — weekends,
    # seasons, offsets from a year, phrases dateparser misses ("el mes que viene").
    glossary: list[tuple[re.Pattern[str], str]] = field(default_factory=list[tuple[re.Pattern[str], str]])
    words: dict[str, str] = field(default_factory=dict[str, str])  # the glossary's words in English ("sommer")
    # Single-valued facts stated about now (reading/slots.py): (attribute, pattern with `value`, optional `rel`).
    slots: list[tuple[str, re.Pattern[str]]] = field(default_factory=list[tuple[str, re.Pattern[str]]])
    not_now: re.Pattern[str] = _NEVER  # what makes such a statement not about now: negation, past, plan
    # The user speaking of such a fact without a value for now ("ich habe gekündigt"): slots.slot_topic.
    slot_topics: list[tuple[str, re.Pattern[str]]] = field(default_factory=list[tuple[str, re.Pattern[str]]])
    # Of those, what ends the live value whatever it was ("我辞职了", "wir haben uns getrennt").
    slot_ends: list[tuple[str, re.Pattern[str]]] = field(default_factory=list[tuple[str, re.Pattern[str]]])
    asks_slot: list[tuple[str, re.Pattern[str]]] = field(default_factory=list[tuple[str, re.Pattern[str]]])
    # Any attribute named with its one value ("mein neues Handy ist ein Pixel 8"): patterns with `attr`,
    # `value` and optional `rel`/`name`/`fav`; the words for attributes in English ("handy" → "phone"); what
    # before such a statement in its sentence makes it not the user's claim ("stell dir vor", "如果"); and
    # questions that name an attribute ("was ist mein Handy").
    named: list[re.Pattern[str]] = field(default_factory=list[re.Pattern[str]])
    attributes: dict[str, str] = field(default_factory=dict[str, str])
    frame: re.Pattern[str] = _NEVER
    asks_named: list[re.Pattern[str]] = field(default_factory=list[re.Pattern[str]])
    # A turn that answers the other speaker instead of telling about the user: agreement, praise, a guess
    # about them ("我也这么觉得", "Das klingt toll"): ingestion without a model does not keep it.
    reply: re.Pattern[str] = _NEVER
    # Words for the other speaker ("du", "tu"): a turn addressed to them is a reply unless it says something
    # of the user's own (`mine`: "mein", "mon") or fills a slot ("I told you, I live in Berlin now").
    addressed: re.Pattern[str] = _NEVER
    mine: re.Pattern[str] = _NEVER
    # Leaving a value by name (reading/leaving.py): patterns with `old`; "instead of X", which counts only with a
    # word of now (`now_words`); and the people other than the user a sentence may be about (`others`).
    leaving: list[re.Pattern[str]] = field(default_factory=list[re.Pattern[str]])
    instead: re.Pattern[str] = _NEVER
    now_words: re.Pattern[str] = _NEVER
    others: re.Pattern[str] = _NEVER
    holds: str = r"(?!)"  # verbs that say the user has, uses or goes to what follows (a regex fragment)
    # A change said by the new value alone (reading/changes.py): words of change or of now; what makes a statement
    # no change of the one value (an addition, an occasion, a thought); the words for what a value is for (gym,
    # bank…) besides `attributes`, in English.
    changed: re.Pattern[str] = _NEVER
    aside: re.Pattern[str] = _NEVER
    domains: dict[str, str] = field(default_factory=dict[str, str])
    # Someone named who does something of the user's ("C'est Julien qui me coupe les cheveux"): patterns with `v`,
    # matched at a fact's start; and a place of work said by no word for it ("Seit April bin ich bei BMW").
    does_mine: tuple[re.Pattern[str], ...] = ()
    workplace: re.Pattern[str] = _NEVER
    # After a value, its own ending ("est parti à la retraite", "走了"): named as gone, not as held. Before someone
    # else (`others`), what makes a thing bought theirs ("für", "para").
    departed: re.Pattern[str] = _NEVER
    for_someone: re.Pattern[str] = _NEVER


_RULES = {
    "zh": Rules(
        plan=zh.PLAN,
        past=zh.PAST,
        request=zh.REQUEST,
        clauses=zh.CLAUSES,
        first_person=zh.FIRST_PERSON,
        asks_when=zh.ASKS_WHEN,
        asks_ahead=zh.ASKS_AHEAD,
        recurring=zh.RECURRING,
        since=zh.SINCE,
        first_step=zh.FIRST_STEP,
        next_step=zh.NEXT_STEP,
        important=zh.IMPORTANT,
        categories=zh.CATEGORIES,
        dates=zh.dates,
        spaced=False,
        booked=zh.BOOKED,
        slots=zh.SLOTS,
        not_now=zh.NOT_NOW,
        slot_topics=zh.SLOT_TOPICS,
        slot_ends=zh.SLOT_ENDS,
        asks_slot=zh.ASKS_SLOT,
        named=zh.NAMED,
        attributes=zh.ATTRIBUTES,
        frame=zh.FRAME,
        asks_named=zh.ASKS_NAMED,
        reply=zh.REPLY,
        mine=zh.MINE,
        leaving=zh.LEAVING,
        instead=zh.INSTEAD,
        now_words=zh.NOW_WORDS,
        others=zh.OTHERS,
        holds=zh.HOLDS,
        changed=zh.CHANGED,
        aside=zh.ASIDE,
        domains=zh.DOMAINS,
        departed=zh.DEPARTED,
    ),
    **{
        m.CODE: Rules(
            plan=m.PLAN,
            past=m.PAST,
            first_person=m.FIRST_PERSON,
            asks_when=m.ASKS_WHEN,
            asks_ahead=m.ASKS_AHEAD,
            recurring=m.RECURRING,
            since=m.SINCE,
            first_step=m.FIRST_STEP,
            next_step=m.NEXT_STEP,
            important=m.IMPORTANT,
            categories=m.CATEGORIES,
            booked=m.BOOKED,
            month_lead=m.MONTH_LEAD,
            numbers=m.NUMBERS,
            units=m.UNITS,
            year=m.YEAR,
            glossary=m.GLOSSARY,
            words=m.WORDS,
            slots=m.SLOTS,
            not_now=m.NOT_NOW,
            slot_topics=m.SLOT_TOPICS,
            slot_ends=m.SLOT_ENDS,
            asks_slot=m.ASKS_SLOT,
            named=m.NAMED,
            attributes=m.ATTRIBUTES,
            frame=m.FRAME,
            asks_named=m.ASKS_NAMED,
            reply=m.REPLY,
            addressed=m.ADDRESSED,
            mine=m.MINE,
            leaving=m.LEAVING,
            instead=m.INSTEAD,
            now_words=m.NOW_WORDS,
            others=m.OTHERS,
            holds=m.HOLDS,
            changed=m.CHANGED,
            aside=m.ASIDE,
            domains=m.DOMAINS,
            does_mine=m.DOES_MINE,
            workplace=m.WORKPLACE,
            departed=m.DEPARTED,
            for_someone=m.FOR_SOMEONE,
        )
        for m in (de, es, fr)
    },
}
_DEFAULT = Rules()


def rules(lang: str) -> Rules:
    return _RULES.get(lang, _DEFAULT)


def mood(lang: str, text: str, position: int | None = None) -> Mood:
    """The mood of the clause holding `position` (else of the whole text): a request when the text asks
    the assistant, a plan on a forward-pointing cue, the past on a past cue, else the present."""
    r = rules(lang)
    if r.request.search(text.strip()):
        return Mood.REQUEST
    scope = text
    if position is not None:
        bounds = [0] + [m.end() for m in r.clauses.finditer(text)] + [len(text)]
        start = max(b for b in bounds if b <= position)
        end = min((b for b in bounds if b > position), default=len(text))
        scope = text[start:end]
    for part in (scope, text):
        if r.plan.search(part):
            return Mood.PLAN
        if r.past.search(part):
            return Mood.PAST
    return Mood.PRESENT


def _digits(r: Rules, content: str) -> str:
    """`content` with each number word before a unit of time as digits, zero-padded to the word's length so
    that every position still points into the original ("vor zwei Wochen" → "vor 0002 Wochen")."""
    if not r.numbers:
        return content
    words = "|".join(sorted(r.numbers, key=len, reverse=True))
    pattern = re.compile(rf"\b(?:{words})\b(?=\s+(?:{r.units.pattern})\b)", re.IGNORECASE)
    return pattern.sub(lambda m: str(r.numbers[m.group(0).lower()]).zfill(len(m.group(0))), content)


def find_date(lang: str, content: str, local_now: datetime) -> tuple[datetime, str, int] | None:
    """The first date in `content` (the language's own rules and dateparser's, whichever comes first):
    (date, phrase as written, start). An ambiguous one points the way the whole text does, and forward
    when the text books it; a bare month name is a date only after a word that makes it one."""
    r = rules(lang)
    booked = r.booked.search(content) is not None
    prefer_past = (mood(lang, content) is Mood.PAST and not booked) or r.since.search(content) is not None
    found = list(r.dates(content, local_now, prefer_past)) if r.dates else []
    found += [
        (local_now.replace(year=int(m["y"]), month=1, day=1), m.group(0), m.start()) for m in r.year.finditer(content)
    ]
    parsed = dateparser_phrases.find(
        _digits(r, content),
        lang,
        local_now,
        prefer_past,
        lambda start, phrase: _dated_month(lang, r, content, start, phrase),
    )
    if parsed is not None:
        when, _, start = parsed
        found.append((when, content[start : start + len(parsed[1])], start))
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(content)]
    found = [f for f in found if not any(a <= f[2] < b for a, b in quoted)]
    if not found:
        return None
    return min(found, key=lambda f: (f[2], -len(f[1])))


def _dated_month(lang: str, r: Rules, content: str, start: int, phrase: str) -> bool:
    """A phrase is a date unless it is a bare month name with no word before it that makes it one
    ("Mayo es mi mes favorito" is about May, not a date; "en mayo" is one)."""
    if r.month_lead is None or phrase.strip().lower() not in dateparser_phrases.month_names(lang):
        return True
    return r.month_lead.search(content[max(0, start - 24) : start]) is not None


def slot_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    return rules(lang).slots


def slot_topic_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    return rules(lang).slot_topics


def slot_end_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    return rules(lang).slot_ends


def not_now(lang: str) -> re.Pattern[str]:
    return rules(lang).not_now


def asks_slot_patterns(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    return rules(lang).asks_slot


def named_patterns(lang: str) -> list[re.Pattern[str]]:
    return rules(lang).named


def attribute_words(lang: str) -> dict[str, str]:
    return rules(lang).attributes


def frame(lang: str) -> re.Pattern[str]:
    return rules(lang).frame


def asks_named_patterns(lang: str) -> list[re.Pattern[str]]:
    return rules(lang).asks_named


def english_phrases(lang: str, content: str) -> list[tuple[str, str, int]]:
    """The language's phrases for constructs engrain reads in English (`Rules.glossary`): (the phrase in
    English, as written, start), for the English readers of weekends, seasons and offsets from a year."""
    r = rules(lang)
    found: list[tuple[str, str, int]] = []
    for pattern, english in r.glossary:
        for m in pattern.finditer(content):
            said = m.expand(english)
            said = " ".join(str(r.numbers[w]) if w in r.numbers else r.words.get(w, w) for w in said.lower().split())
            found.append((said, m.group(0), m.start()))
    return found


def date_phrase(lang: str, content: str) -> str | None:
    """The first date phrase in `content`, unresolved: what a "when did…" question looks for."""
    r = rules(lang)
    found = [(start, phrase) for _, phrase, start in r.dates(content, datetime.now(), False)] if r.dates else []
    pattern = dateparser_phrases.phrase_pattern(lang)
    m = pattern.search(content) if pattern is not None else None
    if m is not None:
        found.append((m.start(), m.group(0)))
    return min(found, key=lambda f: (f[0], -len(f[1])))[1] if found else None


def asks_when(lang: str, query: str) -> bool:
    return bool(rules(lang).asks_when.search(query))


def began(lang: str, content: str) -> bool:
    """Does `content` speak of a state that began at its date ("seit Oktober")?"""
    return rules(lang).since.search(content) is not None


def recurrence(lang: str, content: str) -> str | None:
    """The phrase that makes `content` a habit ("jeden Donnerstag", "每周四"), if it is one."""
    m = rules(lang).recurring.search(content)
    return m.group(0) if m else None


def asks_ahead(lang: str, query: str) -> bool:
    """Does the query ask what is coming (plans, appointments, "this week's schedule")?"""
    return bool(rules(lang).asks_ahead.search(query))


def procedure_steps(lang: str, content: str) -> list[str]:
    """Steps told with the language's sequence words ("首先…然后…最后", "zuerst… dann…")."""
    r = rules(lang)
    first = r.first_step.search(content)
    if first is None or r.next_step.search(content, first.end()) is None:
        return []
    steps = [s.strip(" ,.;:，。；：") for s in r.next_step.split(content[first.end() :])]
    steps = [s for s in steps if s]
    return steps if len(steps) >= 2 else []


def category(lang: str, content: str) -> str | None:
    return next((name for name, pattern in rules(lang).categories if pattern.search(content)), None)


def important(lang: str, content: str) -> bool:
    return bool(rules(lang).important.search(content))


def is_reply(lang: str, sentence: str) -> bool:
    """A turn that answers the other speaker (agreement, praise, a guess about them), not one about the user."""
    r = rules(lang)
    return bool(r.reply.search(sentence)) or (bool(r.addressed.search(sentence)) and not r.mine.search(sentence))


def is_statement(lang: str, sentence: str) -> bool:
    """A first-person statement long enough to be a memory (not a question)."""
    r = rules(lang)
    long_enough = len(sentence.split()) >= 3 if r.spaced else len(sentence) >= 4
    return long_enough and not r.request.search(sentence) and bool(r.first_person.search(sentence))


__all__ = [
    "Rules",
    "asks_ahead",
    "asks_named_patterns",
    "asks_slot_patterns",
    "asks_when",
    "attribute_words",
    "began",
    "category",
    "date_phrase",
    "english_phrases",
    "find_date",
    "frame",
    "important",
    "is_reply",
    "is_statement",
    "mood",
    "named_patterns",
    "not_now",
    "procedure_steps",
    "recurrence",
    "rules",
    "slot_end_patterns",
    "slot_patterns",
    "slot_topic_patterns",
]
