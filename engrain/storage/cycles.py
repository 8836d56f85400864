"""Reflection cycles and the watermark: which memories a user's next cycle reads, where the last one
stopped (a `Mark`), and the cycle rows the status report shows."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, TypedDict

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading.inputs import WRITABLE_KINDS
from engrain.reading.speakers import REPLY
from engrain.rules.digests import DIGEST
from engrain.storage.models import Memory, ReflectionCycle, UserState


@dataclass(frozen=True)
class Mark:
    """The reflection watermark: memories stored after (at, id) are new. `id` None: everything stored up
    to `at` was looked at. With an id, the memories of the same instant that sort after it are still new
    (a reflection that could show only part of a batch stops inside it)."""

    at: datetime
    id: uuid.UUID | None = None

    def after(self) -> ColumnElement[bool]:
        """The condition "stored after this mark" on `memories`."""
        if self.id is None:
            return Memory.created_at > self.at
        return (Memory.created_at > self.at) | ((Memory.created_at == self.at) & (Memory.id > self.id))


async def new_memories(
    session: AsyncSession, user_id: str, since: Mark | None, now: datetime, limit: int
) -> list[Memory]:
    """The first `limit` live memories learned after the watermark, oldest first, so that a watermark moved past
    the last of them passes over none. The user's own only: no trait and no digest (a reflection made them), and
    no reply — what an assistant said is not learned about the user (issue 61: a friend in the assistant's part
    told of their own hobbies, home and cat, and reflection read them as the user's). Replies never wait either:
    `importance_since` does not count them, and a watermark moved past these memories passes the replies stored
    among them."""
    stmt = select(Memory).where(
        Memory.user_id == user_id,
        Memory.kind.not_in(("trait", DIGEST, REPLY)),
        (Memory.valid_until.is_(None)) | (Memory.valid_until > now),
    )
    if since is not None:
        stmt = stmt.where(since.after())
    stmt = stmt.order_by(Memory.created_at, Memory.id).limit(limit)
    return list((await session.execute(stmt)).scalars())


def _learned_since(user_id: str, since: Mark | None) -> list[ColumnElement[bool]]:
    """The memories a reflection waits on: the user's fact, episodic and procedural memories learned after the
    watermark (what `importance_since` and `told_days_since` both count)."""
    where = [Memory.user_id == user_id, Memory.kind.in_(WRITABLE_KINDS)]
    return [*where, since.after()] if since is not None else where


async def importance_since(session: AsyncSession, user_id: str, since: Mark | None) -> tuple[int, int]:
    """(count, sum of importance) of the memories learned after the watermark (`_learned_since`)."""
    stmt = select(func.count(), func.coalesce(func.sum(Memory.importance), 0)).where(*_learned_since(user_id, since))
    count, total = (await session.execute(stmt)).one()
    return int(count), int(total)


async def told_days_since(session: AsyncSession, user_id: str, since: Mark | None, most: int) -> frozenset[date]:
    """The days (UTC) of the user's told time the memories `importance_since` counts were told on, at most `most` of
    them (the triggers need to know no more)."""
    day = func.date_trunc("day", func.timezone("UTC", Memory.told_at))
    stmt = select(day).where(*_learned_since(user_id, since)).distinct().limit(most)
    return frozenset(d.date() for d in await session.scalars(stmt))


async def watermark(session: AsyncSession, user_id: str) -> Mark | None:
    row = (
        await session.execute(
            select(UserState.last_reflected_at, UserState.last_reflected_id).where(UserState.user_id == user_id)
        )
    ).one_or_none()
    return Mark(row.last_reflected_at, row.last_reflected_id) if row and row.last_reflected_at else None


async def set_watermark(session: AsyncSession, user_id: str, mark: Mark, now: datetime) -> None:
    values = {"last_reflected_at": mark.at, "last_reflected_id": mark.id, "updated_at": now}
    stmt = pg_insert(UserState).values(user_id=user_id, **values)
    stmt = stmt.on_conflict_do_update(index_elements=[UserState.user_id], set_=values)
    await session.execute(stmt)


async def record_cycle(
    session: AsyncSession,
    cycle_id: uuid.UUID,
    user_id: str,
    trigger: str,
    value: float | None,
    status: str,
    stats: dict[str, Any],
    error: str | None,
    now: datetime,
) -> None:
    """A cycle, written once at its end in its own transaction (its evidence rows may point at it before)."""
    cycle = ReflectionCycle(
        id=cycle_id,
        user_id=user_id,
        trigger_type=trigger,
        trigger_value=value,
        status=status,
        stats=stats,
        error=error,
        started_at=now,
        finished_at=now,
    )
    session.add(cycle)
    await session.flush()


class CycleRow(TypedDict):
    """A reflection cycle as the status report shows it (`stats` as the cycle stored them)."""

    id: str
    trigger: str | None
    status: str
    started_at: str
    stats: dict[str, Any] | None
    error: str | None


class ReflectionState(TypedDict):
    """The user's newest cycle, the watermark (ISO 8601), and how many memories wait past it."""

    last_cycle: CycleRow | None
    watermark: str | None
    memories_pending: int


async def reflection_state(session: AsyncSession, user_id: str) -> ReflectionState:
    """The user's newest reflection cycle, the watermark and the memories past it, for the status report."""
    cycle = (
        await session.execute(
            select(ReflectionCycle)
            .where(ReflectionCycle.user_id == user_id)
            .order_by(ReflectionCycle.started_at.desc(), ReflectionCycle.id)
            .limit(1)
        )
    ).scalar_one_or_none()
    mark = await watermark(session, user_id)
    pending = (await importance_since(session, user_id, mark))[0]
    row = (
        CycleRow(
            id=str(cycle.id),
            trigger=cycle.trigger_type,
            status=cycle.status,
            started_at=cycle.started_at.isoformat(),
            stats=cycle.stats,
            error=cycle.error,
        )
        if cycle is not None
        else None
    )
    return ReflectionState(last_cycle=row, watermark=mark.at.isoformat() if mark else None, memories_pending=pending)
