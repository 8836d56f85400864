"""The queue of imported conversations a model has yet to read (`chat_imports`, migration 0017). Every query is
scoped by user: one user's queue never hands out another's words."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.models import ChatImport


@dataclass(frozen=True)
class Covered:
    """How far an earlier import read a conversation: its first `upto` messages, in pieces numbered below `next`."""

    upto: int
    next: int


@dataclass(frozen=True)
class Waiting:
    pieces: int
    conversations: int
    oldest: datetime | None  # the first message of the oldest piece waiting


async def covered(session: AsyncSession, user_id: str, sources: list[str]) -> dict[str, Covered]:
    """What earlier imports read of these conversations (one statement for a batch of them)."""
    if not sources:
        return {}
    stmt = (
        select(ChatImport.source, func.max(ChatImport.upto), func.max(ChatImport.piece))
        .where(ChatImport.user_id == user_id, ChatImport.source.in_(sources))
        .group_by(ChatImport.source)
    )
    return {source: Covered(upto, piece + 1) for source, upto, piece in (await session.execute(stmt)).all()}


async def enqueue(session: AsyncSession, row: ChatImport) -> None:
    """Queue a piece; one already queued by an import that ran at the same time is left as it is."""
    values = {c.key: getattr(row, c.key) for c in ChatImport.__table__.columns}
    await session.execute(insert(ChatImport).values(values).on_conflict_do_nothing())


async def oldest(session: AsyncSession, user_id: str) -> ChatImport | None:
    """The piece a model should read next: the oldest waiting (its first message), so that a later correction is
    read after what it corrects."""
    stmt = (
        select(ChatImport)
        .where(ChatImport.user_id == user_id, ChatImport.extracted_at.is_(None))
        .order_by(ChatImport.first_at, ChatImport.source, ChatImport.piece)
        .limit(1)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


@dataclass(frozen=True)
class Taken:
    """A piece a model's reading took: the project its session was in (None: no coding session's)."""

    project: str | None


async def extracted(session: AsyncSession, user_id: str, source: str, piece: int, now: datetime) -> Taken | None:
    """Mark a piece read by a model, dropping the words it kept for it; None when it was no longer waiting (read
    by another model meanwhile, or its source forgotten)."""
    stmt = (
        update(ChatImport)
        .where(
            ChatImport.user_id == user_id,
            ChatImport.source == source,
            ChatImport.piece == piece,
            ChatImport.extracted_at.is_(None),
        )
        .values(extracted_at=now, messages=[], provisional=[])
        .returning(ChatImport.project)
    )
    row = (await session.execute(stmt)).first()
    return Taken(row.project) if row is not None else None


async def waiting(session: AsyncSession, user_id: str) -> Waiting:
    stmt = select(func.count(), func.count(func.distinct(ChatImport.source)), func.min(ChatImport.first_at)).where(
        ChatImport.user_id == user_id, ChatImport.extracted_at.is_(None)
    )
    pieces, conversations, first = (await session.execute(stmt)).one()
    return Waiting(int(pieces), int(conversations), first)


async def users_waiting(session: AsyncSession, limit: int) -> list[str]:
    """Users with pieces waiting, those with the oldest first."""
    stmt = (
        select(ChatImport.user_id)
        .where(ChatImport.extracted_at.is_(None))
        .group_by(ChatImport.user_id)
        .order_by(func.min(ChatImport.first_at))
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


@dataclass(frozen=True)
class ImportedSource:
    """One imported conversation: its live memories, their told times, and its pieces still waiting."""

    source: str
    title: str
    memories: int
    first: datetime | None
    last: datetime | None
    waiting: int


_SOURCES = text(
    """
    WITH kept AS (
        SELECT source, count(*) AS n, min(told_at) AS first, max(told_at) AS last,
               max(metadata ->> 'conversation') AS title
        FROM memories
        WHERE user_id = :u AND valid_until IS NULL AND kind <> 'trait'
          AND split_part(source, ':', 1) = ANY(:prefixes) AND position(':' IN source) > 0
        GROUP BY source),
    queued AS (
        SELECT source, min(title) AS title, count(*) FILTER (WHERE extracted_at IS NULL) AS waiting,
               min(first_at) AS first, max(last_at) AS last
        FROM chat_imports WHERE user_id = :u GROUP BY source)
    SELECT coalesce(kept.source, queued.source) AS source, coalesce(queued.title, kept.title, '') AS title,
           coalesce(kept.n, 0) AS memories, coalesce(kept.first, queued.first) AS first,
           coalesce(kept.last, queued.last) AS last, coalesce(queued.waiting, 0) AS waiting
    FROM kept FULL JOIN queued ON queued.source = kept.source
    ORDER BY 4 DESC NULLS LAST, 1
    """
)


async def sources(session: AsyncSession, user_id: str, prefixes: list[str]) -> list[ImportedSource]:
    """Every imported conversation of the user (its memories' sources start with one of `prefixes`, or it was
    queued), newest first."""
    rows = await session.execute(_SOURCES, {"u": user_id, "prefixes": prefixes})
    return [ImportedSource(r.source, r.title, r.memories, r.first, r.last, r.waiting) for r in rows]


async def forget(session: AsyncSession, user_id: str, sources: list[str], prefix: str | None) -> int:
    """Drop these conversations (or every one whose source starts with `prefix`) from the queue and its record of
    what was read: forgotten, an export imported again comes back."""
    where = ChatImport.source.in_(sources)
    if prefix is not None:
        where = where | ChatImport.source.startswith(f"{prefix}:", autoescape=True)
    stmt = delete(ChatImport).where(ChatImport.user_id == user_id, where).returning(ChatImport.piece)
    return len((await session.execute(stmt)).all())
