"""Who spoke a turn, and whether a question asks what the assistant said (issue 51).

A chat is a conversation between the user and an assistant. The user's words are the memory of the user; an
assistant's reply is kept as a `reply` (services/memories/writing.py) — found when a question is about what
the assistant said, suggested or wrote, and otherwise ranked behind the user's own words, further behind on a
question the user asks about themselves (rules/recall.py) — and never read as the user's fact, plan, preference
or trait, nor listed to a reflection as learned about the user (storage/cycles.new_memories).

A turn says who spoke by a leading name ("Assistant: …", "ChatGPT: …", "User: …"), as transcripts and
imports write them; a client may say it instead (`role` on `remember` and `remember_many`), and then its
word wins.
"""

from __future__ import annotations

import re
from typing import Literal

Role = Literal["user", "assistant"]
ROLES: tuple[Role, ...] = ("user", "assistant")
REPLY = "reply"  # the kind of a memory that holds what an assistant said

# The names transcripts give the two sides, before a colon at the start of a turn.
_ASSISTANT_NAMES = (
    r"assistant|ai|ai assistant|chatgpt|gpt|gpt-4o?|claude|gemini|copilot|bot|chatbot|model|llm|"
    r"助手|ai助手|智能助手|assistent|asistente|assistante"
)
_USER_NAMES = r"user|human|me|you|用户|我|benutzer|nutzer|usuario|utilisateur"
_SPEAKER = re.compile(rf"^\s*\[?(?P<name>{_ASSISTANT_NAMES}|{_USER_NAMES})\]?\s*[:：]\s*", re.IGNORECASE)
_ASSISTANT = re.compile(rf"^(?:{_ASSISTANT_NAMES})$", re.IGNORECASE)

# A question about what the assistant said, suggested, wrote or gave before ("what did you recommend for…",
# "the code you wrote", "你推荐的…", "was hast du mir empfohlen"), in English, Chinese, German, Spanish and
# French — not a request for something new ("what do you suggest", "can you give me a summary").
_PAST = (
    r"said|told|suggested|recommended|mentioned|proposed|wrote|written|gave|given|explained|advised|shared|showed|"
    r"shown|provided|listed|offered|outlined|described|pointed\s+out|came\s+up\s+with|put\s+together|walked\s+me"
)
_BASE = (
    r"say|tell|suggest|recommend|mention|propose|write|give|explain|advise|share|show|provide|list|offer|outline|"
    r"describe|point\s+out|come\s+up\s+with|put\s+together|walk\s+me"
)
_OUTPUT = (
    r"advice|suggestions?|recommendations?|answers?|reply|replies|explanations?|examples?|code|snippets?|lists?|"
    r"plans?|outline|steps|tips|ideas"
)
_ASKS_ASSISTANT = re.compile(
    rf"\bdid\s+(?:you|u)\s+(?:\w+\s+){{0,2}}?(?:{_BASE})\b"
    rf"|\b(?:you|u)(?:'ve|\s+have|\s+had)?\s+(?:\w+\s+){{0,2}}?(?:{_PAST})\b"
    rf"|\byour\s+(?:earlier|previous|last|first|original|old)\s+(?:{_OUTPUT})\b"
    r"|你(?:之前|上次|刚才|以前)?(?:说过|讲过|建议过|推荐过|提到过|写过|给过|说的|建议的|推荐的|提到的|写的|给的|列的)"
    r"|\b(?:hast|hattest)\s+du\b|\bdu\s+(?:hast|hattest|sagtest|empfahlst|meintest)\b"
    r"|\b(?:me\s+)?(?:dijiste|recomendaste|sugeriste|escribiste|mencionaste|explicaste|diste)\b"
    r"|\b(?:tu|vous)\s+(?:m'as|m'avez|as|avez)\s+(?:dit|conseillé|recommandé|suggéré|écrit|proposé|expliqué|donné)\b",
    re.IGNORECASE,
)


# The user speaking of themselves in the first person singular ("What are my hobbies?", "where do I live", "我的爱好",
# "meine Hobbys", "mis aficiones", "mes loisirs") — not "we" or "our", which take the assistant in ("what did we
# discuss"), nor an object "me" ("tell me about…"), which asks for something rather than about the user.
_ABOUT_USER = re.compile(
    r"\b(?:I|my|mine|myself)\b|我(?!们)|\b(?:ich|mein\w*)\b|\b(?:yo|mis?)\b|\b(?:je|mon|ma|mes)\b|\bj'",
    re.IGNORECASE,
)


def spoken_by(content: str) -> Role | None:
    """The side a turn's leading name says spoke it; None when it names no side ("Caroline: …" is a person)."""
    found = _SPEAKER.match(content)
    if found is None:
        return None
    return "assistant" if _ASSISTANT.match(found.group("name").strip()) else "user"


def words_of(content: str) -> str:
    """A turn's words without the name of the side that spoke it ("User: Always…" → "Always…")."""
    found = _SPEAKER.match(content)
    return content[found.end() :] if found is not None else content


def asks_assistant(query: str) -> bool:
    """Whether a question asks what the assistant said, suggested, wrote or gave."""
    return _ASKS_ASSISTANT.search(query) is not None


def asks_about_user(query: str) -> bool:
    """Whether a question is the user's about themselves, in the first person ("What are my hobbies?"): what the
    user said answers it, and what an assistant said of itself in the same words ("my main hobbies are video games")
    only sounds like it (issue 61)."""
    return _ABOUT_USER.search(query) is not None
