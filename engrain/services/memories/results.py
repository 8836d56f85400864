"""What the memories domain answers with: the result models of remember, remember_many, forget,
ingest_conversation and link, and the view of one memory. Their fields and descriptions are the tools'
output schemas."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from engrain.reading.metadata import MemoryMetadata
from engrain.reading.periods import GRAIN, HAPPENED
from engrain.services.memories.redacting import merged
from engrain.storage.links import Link
from engrain.storage.models import Memory, MemoryHistory

REDACTED = "Secrets replaced by a placeholder before anything was stored: kind → count."


class Replaceable(BaseModel):
    """A live memory this one may replace: it speaks of the same single-valued fact, and the rules cannot tell
    (remember again with supersedes=<its id> if it does; reflect asks the model otherwise)."""

    id: str
    content: str


class Unsettled(BaseModel):
    """A memory just stored that may end an older fact the rules could not settle (ingest_conversation, remember_many):
    if it does, remember its words again with supersedes=<the older one's id>."""

    id: str
    content: str
    may_replace: Replaceable


WORDS_ONLY = (
    "Why it was stored with no vector, found by its words only until a model of meaning serves and embeds it: "
    "no model could load (engrain://status says why). A model still loading is not reported: it embeds the "
    "memory in the background as soon as it serves."
)


class RememberResult(BaseModel):
    id: str
    status: Literal["created", "duplicate", "merged"]
    kind: str
    temporality: str
    event_time: datetime | None = Field(description="When it happened: the start of `happened`.")
    happened: str | None = Field(default=None, description=HAPPENED)
    told_at: datetime = Field(description="When the user said it (now, unless said_at was given).")
    importance: int
    category: str | None = None
    procedure_steps: list[str] | None = None
    superseded: str | None = Field(default=None, description="Id of the memory this one replaced.")
    key: str | None = Field(
        default=None,
        description="The single-valued fact it states (whose · what): a later value of it replaces this one.",
    )
    may_replace: Replaceable | None = None  # described by its model: a field description would split the schema
    content: str | None = Field(
        default=None, description="The text as stored, given only when secrets in it were replaced."
    )
    redacted: dict[str, int] | None = Field(default=None, description=REDACTED)
    words_only: str | None = Field(default=None, description=WORDS_ONLY)


class RememberManyResult(BaseModel):
    results: list[RememberResult] = Field(description="One per item, in the order given.")
    created: int
    duplicates: int
    redacted: dict[str, int] | None = Field(default=None, description=REDACTED)
    words_only: str | None = Field(default=None, description=WORDS_ONLY)

    @classmethod
    def of(cls, results: list[RememberResult]) -> RememberManyResult:
        created = sum(r.status == "created" for r in results)
        redacted = merged(*(r.redacted for r in results))
        words_only = next((r.words_only for r in results if r.words_only), None)
        duplicates = len(results) - created
        return cls(results=results, created=created, duplicates=duplicates, redacted=redacted, words_only=words_only)


class ForgetResult(BaseModel):
    id: str
    deleted: bool
    traits_dissolved: list[str] = Field(default_factory=list[str])


class IngestResult(BaseModel):
    created: list[str] = Field(description="Ids of new memories (merged ones included).")
    duplicates: list[str] = Field(default_factory=list[str], description="Ids of memories that already existed.")
    summary_id: str | None = None
    method: Literal["llm", "rules"]
    llm: str
    status: Literal["stored", "needs_model"] = Field(
        default="stored",
        description="needs_model: the user's own statements were stored for now; answer `task` "
        "with ingest_conversation(task_id, answer) to store a model's extraction.",
    )
    task_id: str | None = None
    task: str | None = None
    redacted: dict[str, int] | None = Field(default=None, description=REDACTED)
    imports_waiting: int = Field(
        default=0, description="Pieces of the user's imported chat history still waiting for a model to read them."
    )
    replies: list[str] = Field(
        default_factory=list[str], description="Ids of the assistant's replies kept (found when asked about)."
    )
    may_replace: list[Unsettled] = Field(default_factory=list[Unsettled])  # described by its model


class LinkResult(BaseModel):
    source_id: str
    target_id: str
    relation: str
    status: Literal["created", "exists"]


class MemoryView(BaseModel):
    """A memory as resources show it."""

    id: str
    kind: str
    content: str
    namespace: str
    importance: int
    category: str | None
    tags: list[str]
    temporality: str
    event_time: datetime | None
    event_end: datetime | None = None
    event_grain: str | None = Field(default=None, description=GRAIN)
    told_at: datetime
    created_at: datetime
    valid_until: datetime | None
    pinned: bool
    access_count: int
    last_accessed_at: datetime | None
    embedder: str | None
    procedure_steps: list[str] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict[str, Any])
    stage: str | None = None
    confidence: float | None = None

    @classmethod
    def of(cls, m: Memory) -> MemoryView:
        return cls(
            id=str(m.id),
            kind=m.kind,
            content=m.content,
            namespace=m.namespace,
            importance=m.importance,
            category=m.category,
            tags=list(m.tags or []),
            temporality=m.temporality,
            event_time=m.event_time,
            event_end=m.event_end,
            event_grain=m.event_grain,
            told_at=m.told_at,
            created_at=m.created_at,
            valid_until=m.valid_until,
            pinned=m.pinned,
            access_count=m.access_count,
            last_accessed_at=m.last_accessed_at,
            embedder=m.embedder,
            procedure_steps=MemoryMetadata.of(m.metadata_).procedure_steps,
            metadata=m.metadata_ or {},
            stage=m.trait_stage,
            confidence=m.trait_confidence,
        )


class LinkView(BaseModel):
    """A link of a memory, with the linked memory's text."""

    id: str
    relation: str
    created_by: str
    content: str

    @classmethod
    def of(cls, link: Link) -> LinkView:
        return cls(id=str(link.target_id), relation=link.relation, created_by=link.created_by, content=link.content)


class HistoryEntry(BaseModel):
    """One change of a memory or trait (`at` in ISO 8601, as stored)."""

    action: str
    at: str
    old_content: str | None
    new_content: str | None
    reason: str | None
    stage: str | None = None  # a trait's stage after this change
    confidence: float | None = None  # a trait's confidence after this change

    @classmethod
    def of(cls, h: MemoryHistory) -> HistoryEntry:
        return cls(
            action=h.action,
            at=h.at.isoformat(),
            old_content=h.old_content,
            new_content=h.new_content,
            reason=h.reason,
            stage=h.stage,
            confidence=h.confidence,
        )


class MemoryRef(BaseModel):
    """Another memory named from one: its id, words and when it was told."""

    id: str
    content: str
    told_at: datetime


class PinResult(BaseModel):
    id: str
    pinned: bool
    changed: bool = Field(description="False when the memory already was so.")


class MemoryDetail(MemoryView):
    """One memory with its links and its history (the `engrain://memories/{id}` resource)."""

    links: list[LinkView]
    history: list[HistoryEntry]
    superseded_by: str | None = Field(default=None, description="The memory that replaced this one, if any.")
    supersedes: list[MemoryRef] = Field(
        default_factory=list[MemoryRef], description="The earlier memories this one replaced, newest first."
    )


class PlansInPeriod(BaseModel):
    """The plans dated in what is still ahead of a named period (`engrain://intentions/{period}`)."""

    period: str  # as the client named it
    start: datetime  # from today (or the period's start, if later) ...
    end: datetime  # ... to the period's end
    upcoming: list[MemoryView]
