"""SQLAlchemy models of the schema created by migrations/versions (docs/SPEC.md §4).

The migrations are the source of truth for DDL; these classes map the same tables
for the repositories' typed queries.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    Computed,
    DateTime,
    Float,
    ForeignKeyConstraint,
    Integer,
    SmallInteger,
    Text,
    func,
    select,
)
from sqlalchemy.dialects.postgresql import JSONB, REGCONFIG, TSVECTOR, UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, column_property, mapped_column


class Base(DeclarativeBase):
    pass


class MemoryVector(Base):
    """A memory's vector and the model that made it, apart from the memory's row.

    The row changes all the time (an access counted, an archive, an expiry, a supersede); the vector
    never does. Kept inline, every new row version entered the HNSW graph again (an UPDATE of a row
    of ~1.6 kB is rarely HOT, and a change of `valid_until` never is), and archiving took over thirty times as
    long with the index as without (docs/performance.md). Here a vector is written once per model."""

    __tablename__ = "memory_vectors"
    __table_args__ = (ForeignKeyConstraint(["user_id", "id"], ["memories.user_id", "memories.id"], ondelete="CASCADE"),)

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    embedder: Mapped[str] = mapped_column(Text)
    embedding: Mapped[list[float]] = mapped_column(Vector())


class MemoryWindow(Base):
    """The vector of one window of a long memory (engrain/text/windows.py): recall compares a query with the
    memory's own vector and with each of these, and counts the closest. Made after the memory, in the
    background, by the current model (services/memories/reembedding.py); rows of another model are replaced."""

    __tablename__ = "memory_windows"
    __table_args__ = (ForeignKeyConstraint(["user_id", "id"], ["memories.user_id", "memories.id"], ondelete="CASCADE"),)

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    window_no: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    embedder: Mapped[str] = mapped_column(Text)
    embedding: Mapped[list[float]] = mapped_column(Vector())


class Memory(Base):
    __tablename__ = "memories"
    # Every key leads with the user (docs/scaling.md): a user's rows, and the references among them,
    # can live on one shard of a database distributed by user_id.
    __table_args__ = (
        ForeignKeyConstraint(
            ["user_id", "trait_parent_id"], ["memories.user_id", "memories.id"], ondelete="SET NULL (trait_parent_id)"
        ),
    )

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    namespace: Mapped[str] = mapped_column(Text, default="default")
    kind: Mapped[str] = mapped_column(Text)
    content: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(Text)
    # The language's full-text form (engrain/text/fulltext.py): set by storage on insert.
    lang: Mapped[str] = mapped_column(Text, default="en")
    ts_config: Mapped[str] = mapped_column(REGCONFIG, default="english")
    search_text: Mapped[str | None] = mapped_column(Text, deferred=True)
    tsv: Mapped[Any] = mapped_column(
        TSVECTOR, Computed("to_tsvector(ts_config, coalesce(search_text, content))", persisted=True), deferred=True
    )
    importance: Mapped[int] = mapped_column(SmallInteger, default=5)
    category: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[str]] = mapped_column(ARRAY(Text), default=list)
    temporality: Mapped[str] = mapped_column(Text, default="current")
    # When it happened, as a period (reading/periods.py): event_time its start, event_end its exclusive end,
    # event_grain how precise it is (day, week, month, season, year, span). Rows from before migration 0016
    # have a grain and no end: their period is the one of that grain containing event_time.
    event_time: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    event_end: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    event_grain: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # When the user said it: now for a live remember, the message's time for imported or ingested history.
    told_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    valid_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    superseded_by: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    pinned: Mapped[bool] = mapped_column(Boolean, default=False)
    access_count: Mapped[int] = mapped_column(Integer, default=0)
    last_accessed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    source: Mapped[str | None] = mapped_column(Text)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSONB, default=dict)
    trait_subtype: Mapped[str | None] = mapped_column(Text)
    trait_stage: Mapped[str | None] = mapped_column(Text)
    trait_confidence: Mapped[float | None] = mapped_column(Float)
    trait_context: Mapped[str | None] = mapped_column(Text)
    trait_window_end: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    trait_reinforcement_count: Mapped[int | None] = mapped_column(Integer)
    trait_contradiction_count: Mapped[int | None] = mapped_column(Integer)
    trait_first_observed: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    trait_last_reinforced: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    trait_parent_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    # Which model made the vector (memory_vectors), read with the row; written by storage/memories.py.
    embedder: Mapped[str | None] = column_property(
        select(MemoryVector.embedder)
        .where(MemoryVector.user_id == user_id, MemoryVector.id == id)
        .correlate_except(MemoryVector)
        .scalar_subquery()
    )


class MemoryLink(Base):
    __tablename__ = "memory_links"
    __table_args__ = (
        ForeignKeyConstraint(["user_id", "source_id"], ["memories.user_id", "memories.id"], ondelete="CASCADE"),
        ForeignKeyConstraint(["user_id", "target_id"], ["memories.user_id", "memories.id"], ondelete="CASCADE"),
    )

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    source_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    target_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    relation: Mapped[str] = mapped_column(Text, primary_key=True)
    created_by: Mapped[str] = mapped_column(Text, default="user")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TraitEvidence(Base):
    __tablename__ = "trait_evidence"
    __table_args__ = (
        ForeignKeyConstraint(["user_id", "trait_id"], ["memories.user_id", "memories.id"], ondelete="CASCADE"),
        ForeignKeyConstraint(["user_id", "memory_id"], ["memories.user_id", "memories.id"], ondelete="CASCADE"),
        ForeignKeyConstraint(
            ["user_id", "cycle_id"],
            ["reflection_cycles.user_id", "reflection_cycles.id"],
            ondelete="SET NULL (cycle_id)",
            deferrable=True,
            initially="DEFERRED",  # the cycle row is written when the cycle ends (migration 0015)
        ),
    )

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    trait_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    memory_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    polarity: Mapped[str] = mapped_column(Text, primary_key=True)
    quality: Mapped[str | None] = mapped_column(Text)
    cycle_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ReflectionCycle(Base):
    __tablename__ = "reflection_cycles"

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    trigger_type: Mapped[str] = mapped_column(Text)
    trigger_value: Mapped[float | None] = mapped_column(Float)
    status: Mapped[str] = mapped_column(Text)
    stats: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    error: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class HostTask(Base):
    """Work handed to the calling model (a reflection, its contradiction review): what it was shown, by
    alias, so that its answer is resolved against exactly that."""

    __tablename__ = "host_tasks"

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    kind: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text)
    plan: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONB)


class ChatImport(Base):
    """A piece of an imported conversation (`engrain import-chats`) and whether a model has read it: its messages
    as the extraction shows them, the rules' statements the extraction replaces, and how many of the
    conversation's messages it and the pieces before it cover."""

    __tablename__ = "chat_imports"

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    source: Mapped[str] = mapped_column(Text, primary_key=True)
    piece: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    messages: Mapped[list[dict[str, Any]]] = mapped_column(JSONB)
    provisional: Mapped[list[uuid.UUID]] = mapped_column(ARRAY(UUID(as_uuid=True)))
    upto: Mapped[int] = mapped_column(Integer)
    first_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    queued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    extracted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # A coding session's piece: its project's namespace, where the model's reading of it is kept (reading/projects.py).
    project: Mapped[str | None] = mapped_column(Text)


class MemoryHistory(Base):
    __tablename__ = "memory_history"

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    memory_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True))
    action: Mapped[str] = mapped_column(Text)
    old_content: Mapped[str | None] = mapped_column(Text)
    new_content: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    stage: Mapped[str | None] = mapped_column(Text)  # traits: stage and confidence after the change
    confidence: Mapped[float | None] = mapped_column(Float)
    # Traits: the user's clock when the change was made (storage/timeline.py), what `as_of` reads; null before 0019.
    user_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class UserState(Base):
    __tablename__ = "user_state"

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    last_reflected_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # With last_reflected_at, the watermark (time, id): memories stored at one instant (a batch) can be
    # reflected on in parts without one being passed over.
    last_reflected_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    timezone: Mapped[str | None] = mapped_column(Text)
    settings: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class JobRun(Base):
    """The scheduler's bookkeeping for the whole deployment (a run may cover every user): not a user's
    data, so not keyed by user (docs/scaling.md: a coordinator-local table)."""

    __tablename__ = "job_runs"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    job: Mapped[str] = mapped_column(Text)
    user_id: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    stats: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    error: Mapped[str | None] = mapped_column(Text)
