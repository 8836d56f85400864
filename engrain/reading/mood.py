"""Tense and modality: does a statement tell of the past, point forward, or ask the assistant?

This is the one place that decides it. Enrichment asks it two things: which way an ambiguous
date points ("Friday" is the coming one in "I need to call the plumber on Friday" and the
last one in "We met Anna on Friday"), and whether an undated statement is an intention.

The decision is made on the clause that holds the date, falling back to its sentence and then
to the whole text, because one memory often mixes both directions ("I went to the doctor and
need to go back on Friday"). Within a clause the rules are grammar, checked in this order:

1. a past form of a forward-pointing verb ("had to", "was going to", "should have") → past;
2. a forward-pointing form ("will", "need to", "going to" + a verb, "due", "by Friday") → plan;
3. a past-tense verb (an irregular form or a regular "-ed" that is not an adjective after
   "am/is/feel…", like "I'm excited") → past;
4. otherwise → present (states and habits).

A sentence addressed to the assistant — a question, or an ask such as "can you…", "please…",
"explain…" — is a request: what the user wants from the conversation, not a plan of their life.
"remind me" is the exception, an intention handed to the assistant.
"""

from __future__ import annotations

import re
from enum import StrEnum

from engrain.reading.calendar_words import MONTHS, WEEKDAYS


class Mood(StrEnum):
    PAST = "past"
    PLAN = "plan"
    REQUEST = "request"
    PRESENT = "present"


# "going to" is the future only before a verb: before an article, a possessive or one of the bare
# nouns English uses without one ("go to bed / school / church"), it is a movement happening now.
_MOVEMENT = (
    r"(?:the|a|an|my|your|his|her|our|their|this|that|bed|sleep|school|church|class|town|lunch|dinner"
    r"|breakfast|college|hospital|work(?=\s*(?:[.,!;]|$)))\b"
)

# 1. Forward-pointing verbs in a past form: the plan lies behind.
_PAST_MODAL = re.compile(
    r"\b(?:had|needed|wanted|planned|hoped|intended|meant|tried|was|were)\s+(?:to|going\s+to|gonna)\b"
    r"|\b(?:should|must|could|would|might|may)(?:\s+not|n't)?\s+have\b|\bused\s+to\b",
    re.IGNORECASE,
)
# 2. Forward-pointing forms. Verbs of the future, intention and obligation count when the user is
# their subject ("I need to", "we'll", or none: "Need to call the plumber"); "you should", "she'll",
# "my neighbours must hate me" are someone else's future, advice, or a guess.
_FORWARD_VERB = re.compile(
    rf"\b(?:will|shall|won't|gonna|going\s+to\s+(?!{_MOVEMENT})"
    r"|(?:plan|plans|planning|intend|intends|intending|hope|hopes|want|wants|need|needs|have|has|got|ought"
    r"|(?:would|'d)\s+like|am\s+supposed|are\s+supposed|'m\s+supposed)\s+to"
    r"|gotta|must|should)\b|'ll\b",
    re.IGNORECASE,
)
_USER_SUBJECT = re.compile(
    r"(?:^|\b(?:i|we|i'm|we're|i've|we've|i|we)|\b(?:and|but|so|then|also|still))"
    r"(?:\s+(?:really|also|still|just|definitely|probably|finally|actually|seriously|\w+ly))*\s*$",
    re.IGNORECASE,
)
# Deadlines and reminders point forward whoever is named: "The report is due Friday".
_FORWARD_MARK = re.compile(
    r"\b(?:remind\s+me|upcoming|scheduled|appointment|deadline|due|(?:starting|beginning)\s+(?:in|on|from|next)"
    rf"|by\s+(?:the\s+end\s+of\s+|end\s+of\s+)?(?:{WEEKDAYS}|{MONTHS}|may|tomorrow|tonight|next|then|noon|\d))\b",
    re.IGNORECASE,
)


def _points_forward(text: str) -> bool:
    if _FORWARD_MARK.search(text):
        return True
    return any(_USER_SUBJECT.search(text[: m.start()]) for m in _FORWARD_VERB.finditer(text))


# 3. Past-tense verbs: common irregular forms, and regular "-ed" forms (not "-eed": need, feed, proceed).
_IRREGULAR_PAST = (
    r"was|were|did|didn't|had|went|got|met|saw|made|took|came|began|bought|ate|spent|left|won|lost|said|told|"
    r"found|felt|thought|gave|ran|wrote|drove|flew|sold|paid|sent|heard|kept|broke|chose|fell|forgot|grew|"
    r"knew|led|lent|rode|rang|sang|sat|slept|spoke|stood|swam|taught|threw|understood|woke|wore|brought|"
    r"caught|fought|built|held|became|born|drank|forgave|hid|hung|shot|shut|stole|struck|swore|tore|wept"
)
_PAST_VERB = re.compile(rf"\b(?:{_IRREGULAR_PAST}|[a-z]*[a-df-z]ed|[a-z]+ied)\b", re.IGNORECASE)
# Words in "-ed" that are never past tense.
_NOT_PAST = re.compile(
    r"\b(?:hundred|sacred|naked|wicked|rugged|ragged|kindred|beloved|crooked|wretched|"
    r"bed|red|shed|wed|united)\b",
    re.IGNORECASE,
)
# A participle after a linking verb or an intensifier is an adjective: "I'm excited", "so tired"; one that names
# what a noun is called is none either: "a therapist called Ruth", "an app named Notion".
_ADJECTIVE = re.compile(
    r"\b(?:am|is|are|'m|'re|be|being|feel|feels|feeling|get|gets|getting|seem|seems|look|looks|so|very|"
    r"really|too|quite|pretty|super|kind\s+of)\s+(?:\w+ly\s+)?[a-z]+(?:ed|ied)\b"
    r"|\ban?\s+(?:\w+\s+){1,2}?(?:called|named)\b",
    re.IGNORECASE,
)

# Addressed to the assistant.
_REQUEST = re.compile(
    r"^\W*(?:please\b|(?:can|could|would|will|won't)\s+you\b|(?:help|tell|show|give|teach)\s+me\b|explain\b"
    r"|let\s+me\s+know\b|i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to\b)",
    re.IGNORECASE,
)
_REMIND = re.compile(r"\bremind\s+me\b", re.IGNORECASE)

# Chinese and Japanese end a sentence with 。！？ and no space before the next one.
_SENTENCES = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？])\s*|\n+")
_CLAUSES = re.compile(
    r"\s*[,;:]\s*|\s+(?=(?:and|but|so|because|while|although|though|after|before|when|until)\b)", re.IGNORECASE
)


def _clause_mood(text: str) -> Mood:
    if _PAST_MODAL.search(text):
        return Mood.PAST
    if _points_forward(text):
        return Mood.PLAN
    if _PAST_VERB.search(_NOT_PAST.sub(" ", _ADJECTIVE.sub(" ", text))):
        return Mood.PAST
    return Mood.PRESENT


def _sentence_mood(sentence: str) -> Mood:
    if (_REQUEST.search(sentence) or sentence.rstrip().endswith(("?", "？"))) and not _REMIND.search(sentence):
        return Mood.REQUEST
    return _clause_mood(sentence)


def _segments(separator: re.Pattern[str], text: str, base: int = 0) -> list[tuple[int, str]]:
    """`text` cut at `separator`, each piece with its offset (plus `base`)."""
    pieces: list[tuple[int, str]] = []
    begin = 0
    for cut in separator.finditer(text):
        pieces.append((base + begin, text[begin : cut.start()]))
        begin = cut.end()
    pieces.append((base + begin, text[begin:]))
    return [(at, piece) for at, piece in pieces if piece.strip()]


def sentences(text: str) -> list[str]:
    """The sentences of `text`, trimmed, in order."""
    return [sentence.strip() for _, sentence in _segments(_SENTENCES, text)]


def text_mood(text: str) -> Mood:
    """The mood of a whole memory: a request if it asks the assistant anything (its wishes are about
    the conversation), else a plan if any sentence points forward, else past if any tells of the
    past, else present."""
    moods = {_sentence_mood(sentence) for sentence in sentences(text)}
    return next((mood for mood in (Mood.REQUEST, Mood.PLAN, Mood.PAST) if mood in moods), Mood.PRESENT)


def mood_at(text: str, position: int) -> Mood:
    """The mood that governs the words at `position` (a date): its clause's, else its sentence's,
    else the whole text's."""
    for at, sentence in _segments(_SENTENCES, text):
        if not at <= position <= at + len(sentence):
            continue
        for clause_at, clause in _segments(_CLAUSES, sentence, at):
            if clause_at <= position <= clause_at + len(clause):
                mood = _clause_mood(clause)
                if mood is not Mood.PRESENT:
                    return mood
                break
        mood = _sentence_mood(sentence)
        return mood if mood is not Mood.PRESENT else text_mood(text)
    return text_mood(text)
