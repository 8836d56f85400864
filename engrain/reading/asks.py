"""What kind of answer a question wants, beyond its words (issue 51): the order of things told over time
("which did I do first…", "walk me through the order in which…") and a summary of a topic ("what have I told
you about my project", "give me a summary of…"). For such a question recall's text lists its memories in the
order they were told, so that a model reads the story as it happened, not as it ranked."""

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
