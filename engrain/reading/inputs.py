"""Checking what clients send: every error names the field and the limit it broke.

Checks run before anything is written, so a rejected call leaves no trace.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from datetime import datetime, timedelta, tzinfo
from typing import Literal, get_args

from engrain.errors import InvalidInput
from engrain.reading.dates import EARLIEST_TOLD, parse_period, parse_when
from engrain.reading.periods import Period
from engrain.reading.slots import key_of

MAX_CONTENT_CHARS = 8_000
MAX_QUERY_CHARS = 2_000
MAX_LIMIT = 100
MAX_TAGS = 20
MAX_TAG_CHARS = 40
MAX_CATEGORY_CHARS = 40
MAX_RELATION_CHARS = 40
MAX_NAMESPACE_CHARS = 64
MAX_USER_CHARS = 200
MAX_KEY_CHARS = 80
WRITABLE_KINDS = ("fact", "episodic", "procedural")
# Why a memory was forgotten: a fixed category, never free text. A reason in the user's words would
# repeat what they asked to erase ("forget that I have diabetes") in the history and in exports.
ForgetReason = Literal["user_request", "incorrect", "outdated", "duplicate", "private", "other"]
FORGET_REASONS: tuple[str, ...] = get_args(ForgetReason)
# a reply: what an assistant said in a chat (reading/speakers.py); a digest: a model's summary of one topic
# (rules/digests.py)
ALL_KINDS = (*WRITABLE_KINDS, "reply", "trait", "digest")
TEMPORALITIES = ("current", "historical", "prospective")
_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$")


def text_field(field: str, value: object, max_chars: int, *, allow_empty: bool = False) -> str:
    """Trimmed text without NUL bytes and within `max_chars`, in Unicode's composed form (NFC): "nächste"
    typed as "a" plus a combining diaeresis (macOS file names, some keyboards) reads as the same word."""
    if not isinstance(value, str):
        raise InvalidInput(field, f"must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInput(field, "contains a NUL byte (\\x00), which cannot be stored")
    if len(value) > 4 * max_chars:  # refused before any work is spent on it
        raise InvalidInput(field, f"is {len(value):,} characters long; the limit is {max_chars:,}")
    value = unicodedata.normalize("NFC", value).strip()
    if not value and not allow_empty:
        raise InvalidInput(field, "must not be empty")
    if len(value) > max_chars:
        raise InvalidInput(field, f"is {len(value):,} characters long; the limit is {max_chars:,}")
    return value


SHORT_ID = 8  # the characters of an id the texts show; any unique prefix this long or longer is accepted
_HEX_PREFIX = re.compile(rf"[0-9a-f]{{{SHORT_ID},32}}")


def short_id(memory_id: object) -> str:
    """The first SHORT_ID characters of an id: what the texts show a model (the tools accept them back)."""
    return str(memory_id)[:SHORT_ID]


def memory_ref(field: str, value: object) -> uuid.UUID | str:
    """A whole memory id, or a prefix of one (SHORT_ID hex characters or more, hyphens optional) to be
    resolved among the user's memories (`services/wording/short_ids.py`)."""
    if not isinstance(value, str) or "\x00" in value:
        raise InvalidInput(field, f"must be a memory id: a UUID or its first {SHORT_ID} or more characters")
    text = value.strip().lower()
    try:
        return uuid.UUID(text)
    except ValueError:
        pass
    bare = text.replace("-", "")
    if _HEX_PREFIX.fullmatch(bare):
        return bare
    raise InvalidInput(
        field, f"{value[:60]!r} is not a memory id (expected a UUID or its first {SHORT_ID} or more characters)"
    )


def memory_id(field: str, value: object) -> uuid.UUID:
    if not isinstance(value, str) or "\x00" in value:
        raise InvalidInput(field, "must be a memory id (a UUID string)")
    try:
        return uuid.UUID(value.strip())
    except ValueError:
        raise InvalidInput(field, f"{value[:60]!r} is not a valid memory id (expected a UUID)") from None


def int_range(field: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field, f"must be an integer from {low} to {high}")
    if not low <= value <= high:
        raise InvalidInput(field, f"{value} is out of range; it must be from {low} to {high}")
    return value


def kind(field: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise InvalidInput(field, f"{str(value)[:40]!r} is not one of {', '.join(allowed)}")
    return value


def namespace(value: str) -> str:
    value = text_field("namespace", value, MAX_NAMESPACE_CHARS)
    if not _NAMESPACE.match(value):
        raise InvalidInput("namespace", "use letters, digits and . _ : / - only, starting with a letter or digit")
    return value


def tags(values: list[str]) -> list[str]:
    if len(values) > MAX_TAGS:
        raise InvalidInput("tags", f"{len(values)} tags; the limit is {MAX_TAGS}")
    out: list[str] = []
    for tag in values:
        tag = text_field("tags", tag, MAX_TAG_CHARS)
        if tag not in out:
            out.append(tag)
    return out


# A client's clock may run a little ahead of the server's: a told time up to this far ahead is now.
TOLD_AHEAD = timedelta(minutes=5)


def said_at(field: str, value: str, now: datetime, tz: tzinfo | None) -> datetime:
    """When the user said something: an ISO date/datetime or a phrase ("yesterday", "last May"), never
    later than now (a time a little ahead, from a fast clock, counts as now)."""
    told = when(field, value, now, tz, prefer_past=True)
    if told > now + TOLD_AHEAD:
        raise InvalidInput(field, f"{told.isoformat()} is in the future; give when the user said it")
    if told < EARLIEST_TOLD:
        raise InvalidInput(
            field, f"{told.date().isoformat()} is before {EARLIEST_TOLD.year}; give when the user said it"
        )
    return min(told, now)


def slot_key(field: str, value: object) -> str:
    """A single-valued fact's key as a caller writes it — whose · what: "user · phone", "Mei · due date",
    or just "gym" (the user's) — as stored ("user:phone")."""
    key = key_of(text_field(field, value, MAX_KEY_CHARS))
    whose, _, what = key.rpartition(":")
    if not what or not whose:
        raise InvalidInput(field, "names no attribute; write whose · what, e.g. 'user · phone'")
    return key


def period(field: str, value: str, now: datetime, tz: tzinfo | None, *, prefer_past: bool) -> Period:
    """When something happened, at the precision given (reading/dates.parse_period)."""
    return parse_period(field, text_field(field, value, 100), now, tz, prefer_past=prefer_past)


def when(field: str, value: str, now: datetime, tz: tzinfo | None, *, prefer_past: bool = True) -> datetime:
    """An ISO date/datetime or a date phrase ("yesterday", "in 3 days", "last summer"), aware in the
    user's zone. Time filters look back, so an ambiguous phrase ("Friday") is the last one unless
    `prefer_past` is False."""
    return parse_when(field, text_field(field, value, 100), now, tz, prefer_past=prefer_past)
