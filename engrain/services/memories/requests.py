"""What a write is asked to store: the request the write path (`writing.py`) takes and redaction
(`redacting.py`) rewrites before it is read. Its own module so that neither of them imports the other for it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class RememberRequest(BaseModel):
    """One memory to store, as `remember` takes it; `remember_many` takes a list of them (without
    `supersedes`). Every value is checked when it is stored, and an error names its field.

    `said_at` is the told time: relative dates in the text and in `event_time` are read against it.
    `temporality` and `procedure_steps` are not tool arguments: conversation ingestion passes what the
    model extracted, which wins over the rule-based inference like any given value."""

    content: str
    kind: str | None = None
    importance: int | None = None
    event_time: str | None = None
    category: str | None = None
    tags: list[str] | None = None
    namespace: str | None = None
    pinned: bool = False
    metadata: dict[str, Any] | None = None
    supersedes: str | None = None
    said_at: str | None = None  # when the user said it (ISO or a phrase); None: now
    key: str | None = None  # the single-valued fact it states, as the caller read it ("user · phone")
    temporality: str | None = None
    procedure_steps: list[str] | None = None
    role: str | None = None  # who said it, for a turn of a chat (reading/speakers.py); None: read from the text
    undated: bool = False  # the model read the text and gave no date (`event_time: null`): none is read from it
    retold: bool = False  # a conversation's summary: what was said, retold; no habit, slot or standing of its own
