"""The rows of the memory browser (engrain ui): one user's live memories by filter, newest told first, and how
many were told each week. Both read through the indexes that lead with the user."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.memories import live
from engrain.storage.models import Memory


@dataclass(frozen=True)
class BrowseFilter:
    """What the browser narrows to; None is no filter. `since`/`until` bound the told time."""

    kinds: tuple[str, ...] | None = None
    temporality: str | None = None
    namespace: str | None = None
    since: datetime | None = None
    until: datetime | None = None


def _conditions(user_id: str, now: datetime, f: BrowseFilter) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = [Memory.user_id == user_id, live(now)]
    where.append(Memory.kind.in_(f.kinds) if f.kinds else Memory.kind != "trait")
    if f.temporality is not None:
        where.append(Memory.temporality == f.temporality)
    if f.namespace is not None:
        where.append(Memory.namespace == f.namespace)
    if f.since is not None:
        where.append(Memory.told_at >= f.since)
    if f.until is not None:
        where.append(Memory.told_at < f.until)
    return where


async def memories(
    session: AsyncSession, user_id: str, now: datetime, f: BrowseFilter, limit: int, offset: int
) -> tuple[list[Memory], int]:
    """A page of the live memories `f` selects, newest told first, and how many there are in all."""
    where = _conditions(user_id, now, f)
    rows = await session.execute(
        select(Memory).where(*where).order_by(Memory.told_at.desc(), Memory.id).limit(limit).offset(offset)
    )
    total = await session.scalar(select(func.count()).select_from(Memory).where(*where))
    return list(rows.scalars()), int(total or 0)


async def weekly(session: AsyncSession, user_id: str, now: datetime, f: BrowseFilter) -> list[tuple[datetime, int]]:
    """(Monday of the week, memories told that week) for the memories `f` selects, oldest week first."""
    week = func.date_trunc("week", Memory.told_at).label("week")
    rows = await session.execute(
        select(week, func.count()).where(*_conditions(user_id, now, f)).group_by(week).order_by(week)
    )
    return [(r[0], int(r[1])) for r in rows]


async def namespaces(session: AsyncSession, user_id: str, now: datetime) -> list[str]:
    rows = await session.execute(
        select(Memory.namespace).where(Memory.user_id == user_id, live(now)).distinct().order_by(Memory.namespace)
    )
    return list(rows.scalars())


async def replaced_by(session: AsyncSession, user_id: str, memory_id: uuid.UUID) -> list[Memory]:
    """The earlier memories that `memory_id` superseded (their `superseded_by` names it), newest first."""
    rows = await session.execute(
        select(Memory)
        .where(Memory.user_id == user_id, Memory.superseded_by == memory_id)
        .order_by(Memory.told_at.desc(), Memory.id)
    )
    return list(rows.scalars())
