"""The queue of imported conversations a model has yet to read (`chat_imports`, migration 0017). Every query is
scoped by user: one user's queue never hands out another's words."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
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


async def extracted(session: AsyncSession, user_id: str, source: str, piece: int, now: datetime) -> bool:
    """Mark a piece read by a model, dropping the words it kept for it; False when it was no longer waiting (read
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
        .returning(ChatImport.piece)
    )
    return (await session.execute(stmt)).first() is not None


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


async def forget_sources(session: AsyncSession, user_id: str, sources: list[str]) -> list[uuid.UUID]:
    """Drop these conversations from the queue (their memories are being forgotten); the provisional statements
    of the pieces still waiting, which the caller erases with the rest of the source."""
    stmt = (
        delete(ChatImport)
        .where(ChatImport.user_id == user_id, ChatImport.source.in_(sources))
        .returning(ChatImport.provisional)
    )
    return [i for (ids,) in (await session.execute(stmt)).all() for i in ids]
