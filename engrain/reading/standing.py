"""Standing instructions and preferences (issue 51): what the user asks of every later answer ("always answer
with TypeScript examples", "use 24-hour time when I ask about meetings", "从现在起用中文回答") and how they
like things done ("I prefer short answers", "I'd rather use Postgres than MySQL"). Recall brings them to any
later request they bear on, not only to one that repeats their words (rules/recall.STANDING_WEIGHTS), and the
profile shows them. A habit ("I always run on Sundays") is neither: it says what the user does, not what they
ask of the answers.
"""

from __future__ import annotations

import re
from typing import Literal

Standing = Literal["instruction", "preference"]

# How answers look: what a bare imperative about answers names ("use metric units", "keep answers short").
_STYLE = (
    r"units?|metric|imperial|format(?:ting)?|style|tone|spelling|language|English|Chinese|French|German|Spanish|"
    r"examples?|answers?|responses?|replies|bullet\s+points|markdown|tables?|emojis?|24-hour|12-hour|formal|"
    r"informal|brief|concise|short|detailed|plain\s+text|code\s+blocks?|type\s+(?:hints|annotations)|TypeScript"
)
# An instruction: a rule for answers, told as one — the sentence opens with it, or asks "you" to keep it.
_INSTRUCTION = re.compile(
    rf"^\s*(?:please\s+)?(?:use|answer|respond|reply|write|keep|give|format|call\s+me|address\s+me)\b"
    rf"[^.!?\n]{{0,40}}?\b(?:{_STYLE})\b"
    r"|^\s*(?:(?:please|and|also|oh|ok(?:ay)?|btw|by the way)[,\s]+)*"
    r"(?:always|never|don'?t\s+ever|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|by\s+default|"
    r"whenever\s+I|every\s+time\s+I|each\s+time\s+I|when\s+I\s+ask|make\s+sure\s+(?:you|to)\s+(?:always|never))\b"
    r"|\b(?:I\s+(?:want|need|would\s+like|'d\s+like)|please\s+make\s+sure)\s+(?:you\s+)?(?:to\s+)?(?:always|never)\b"
    r"|\b(?:from\s+now\s+on|going\s+forward|by\s+default),?\s+(?:please\s+)?(?:always\s+|never\s+)?"
    r"(?:use|give|answer|respond|reply|include|provide|show|write|format|explain|add|keep|call|address|list)\b"
    r"|^\s*(?:以后|今后|从现在起|从现在开始|每次我问|请(?:总是|始终|一直|永远)|不要再|永远不要|别再)"
    r"|\b(?:ab\s+jetzt|in\s+Zukunft|von\s+nun\s+an|immer\s+wenn\s+ich|jedes\s+Mal,?\s+wenn\s+ich)\b|^\s*(?:bitte\s+)?(?:immer|nie(?:mals)?)\b"
    r"|\b(?:a\s+partir\s+de\s+ahora|de\s+ahora\s+en\s+adelante|siempre\s+que\s+te\s+pregunte|cada\s+vez\s+que\s+te\s+pregunte)\b"
    r"|^\s*(?:por\s+favor,?\s+)?(?:siempre|nunca)\b"
    r"|\b(?:désormais|à\s+partir\s+de\s+maintenant|dorénavant|chaque\s+fois\s+que\s+je\s+te\s+demande)\b"
    r"|^\s*(?:s'il\s+te\s+plaît,?\s+)?(?:toujours|ne\s+jamais)\b",
    re.IGNORECASE,
)
# A preference: the user says which way they like things.
_PREFERENCE = re.compile(
    r"\bI\s+(?:really\s+|much\s+|strongly\s+|generally\s+|usually\s+|still\s+)?(?:prefer|'d\s+rather|would\s+rather)\b"
    r"|\bmy\s+(?:preference|preferred\s+\w+)\s+is\b|\bI\s+(?:like|love)\s+to\s+(?:use|keep|have|work|write)\b"
    r"|我(?:更|比较|还是)?(?:喜欢用|偏好|倾向于|更喜欢|宁愿)"
    r"|\bich\s+(?:bevorzuge|mag\s+lieber|hätte\s+lieber|nehme\s+lieber)\b|\bmir\s+ist\s+\w+\s+lieber\b"
    r"|\bprefiero\b|\bme\s+gusta\s+más\b"
    r"|\bje\s+préfère\b|\bj'aime\s+mieux\b",
    re.IGNORECASE,
)


def standing_of(content: str) -> Standing | None:
    """Whether a user's statement is a standing instruction or a preference (None: neither)."""
    if _INSTRUCTION.search(content):
        return "instruction"
    if _PREFERENCE.search(content):
        return "preference"
    return None
