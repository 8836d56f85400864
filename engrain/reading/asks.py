"""What kind of answer a question wants, beyond its words (issue 51).

The order of things told over time ("which did I do first…", "walk me through the order in which…") and a
summary of a topic ("what have I told you about my project", "give me a summary of…"): for such a question
recall's text lists its memories in the order they were told, so that a model reads the story as it happened,
not as it ranked. A question that gathers ("what books have I read", "how many tournaments…", "what kinds of…",
"everything about…", a summary): its answer is spread over many occasions, so recall shows one piece per occasion
instead of ten near-copies from one (services/recall/gathering.py). What the user told ("what did I say
about…", "how old was I when…"): a look-up of the past, on which the user's standing instructions for answers do
not bear (rules/recall.STANDING_WEIGHTS)."""

from __future__ import annotations

import re

_IN_TIME = re.compile(
    r"\b(?:in\s+(?:what|which|the)\s+order|in\s+order|(?:which|what)\b[^?]{0,80}?\bfirst\b|first\s+or\b|"
    r"\bbefore\s+or\s+after\b|chronolog\w*|timeline|sequence|over\s+time|progress(?:ed|ion)?\b|walk\s+me\s+through|"
    r"summar(?:y|ies|i[sz]e)|recap|overview|everything\s+(?:I(?:'ve)?|we(?:'ve)?)\s+(?:told|said|mentioned|discussed)|"
    r"what\s+(?:have\s+)?I\s+(?:told|said\s+to|mentioned\s+to)\s+you\s+about|history\s+of)\b"
    r"|先后|顺序|最早|依次|总结|概括|回顾"
    r"|\b(?:Reihenfolge|zuerst|zusammenfass\w*|Überblick)\b|\b(?:en\s+qué\s+orden|primero|resum\w+)\b"
    r"|\b(?:dans\s+quel\s+ordre|d'abord|résum\w+|récapitul\w+)\b",
    re.IGNORECASE,
)


def asks_in_time(query: str) -> bool:
    """Whether a question asks for things in the order they happened, or for a summary of a topic."""
    return _IN_TIME.search(query) is not None


_WHAT_USER_TOLD = re.compile(
    r"\b(?:did|have|had|was|were)\s+I\b|\bI\s+(?:said|told|mentioned|shared)\b"
    r"|我(?:之前|以前|上次)?(?:说过|提到过|提过|告诉过你|讲过)"
    r"|\b(?:habe|hatte|war)\s+ich\b|\bich\s+(?:sagte|erwähnte|erzählte)\b"
    r"|\b(?:dije|mencioné|conté)\b"
    r"|\b(?:ai-je|avais-je|étais-je)\b|\bj'ai\s+(?:dit|mentionné|raconté)\b",
    re.IGNORECASE,
)


def asks_what_user_told(query: str) -> bool:
    """Whether a question asks what the user told, did or was ("what did I say…", "how old was I…")."""
    return _WHAT_USER_TOLD.search(query) is not None


# A list, a count, a kind of thing, everything about a topic: "what books has Tim read", "which countries have I
# visited", "how many tournaments", "what kinds of…", "list…", "all the…", a summary. A plural noun after
# what/which followed by a verb is the common English form of a list question ("what approaches would you suggest"
# asks for advice, not for memories); "how much" is left out (a price, an amount: one fact), and so is "how many
# days/hours…" (the time between two things: BEAM-500K asks it 60 times, always of two memories). "Resume" is
# English more often than Spanish: only "resumen"/"resumir".
_GATHERS = re.compile(
    r"\bhow\s+many\b(?!\s+(?:\w+\s+)?(?:days?|hours?|weeks?|months?|years?|minutes?|seconds?)\b)|\bhow\s+often\b|\bnumber\s+of\b|\b(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b"
    r"|\b(?:what|which)\s+(?:\w+\s+){0,2}?\w{2,}(?<![sui])(?<!\bha)(?<!\bwa)(?<!\bdoe)s\s+"
    r"(?:has|have|had|did|do|does|is|are|was|were)\b"
    r"|\blist\b|\benumerate\b|\ball\s+(?:the|of|my|his|her|their|our)\b|\bevery\s+(?:time|one)\b"
    r"|\beverything\b|\bbesides\b|\bapart\s+from\b|\bother\s+than\b"
    r"|summar(?:y|ies|i[sz]e)|recap|overview"
    r"|哪些|多少|几次|几个|都有什么|列出|所有|总结|概括"
    r"|\b(?:wie\s+viele|wie\s+oft|welche\s+\w+\s+(?:hat|haben|habe|hast)|alle|zusammenfass\w*|Überblick)\b"
    r"|\b(?:cuánt[oa]s|cuántas\s+veces|qué\s+\w+s\s+(?:ha|han|he|has)|tod[oa]s\s+l[oa]s|resumen|resumir)\b"
    r"|\b(?:combien|quel(?:le)?s\s+\w+|tou(?:te)?s\s+les|résum\w+|récapitul\w+)\b",
    re.IGNORECASE,
)


# A number the user gave, asked back: "how many entries did I say my dataset includes" (one statement), unlike
# "how many different tasks have I mentioned across my sessions" (a count over them). BEAM-500K asks the first 2
# times in 700, the second 5.
_REPORTED_NUMBER = re.compile(
    r"\bhow\s+many\b(?![^?]*\b(?:different|across|total|altogether|overall|all)\b)[^?]*\bdid\s+I\s+"
    r"(?:say|mention|tell|state)\b",
    re.IGNORECASE,
)


def asks_to_gather(query: str) -> bool:
    """Whether a question's answer gathers many memories: a list, a count, the kinds of a thing, a summary."""
    return _GATHERS.search(query) is not None and _REPORTED_NUMBER.search(query) is None
