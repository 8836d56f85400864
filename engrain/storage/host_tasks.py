"""Host tasks: rows of the work handed to the calling model. Every query is scoped by user, so another
user's task id behaves exactly like an unknown one."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, text, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.models import HostTask

_OPEN = text(
    """
    WITH replaced AS (
        UPDATE host_tasks SET status = 'replaced' WHERE user_id = :user_id AND status = 'open'
    )
    INSERT INTO host_tasks (user_id, id, kind, status, plan, created_at, expires_at)
    VALUES (:user_id, :id, :kind, 'open', :plan, :now, :expires_at)
    """
).bindparams(bindparam("plan", type_=JSONB))


async def open_task(
    session: AsyncSession, user_id: str, kind: str, plan: dict[str, Any], now: datetime, expires_at: datetime
) -> uuid.UUID:
    """A new open task, in one statement with the user's earlier open task replaced (a user has at most one)."""
    task_id = uuid.uuid4()
    values = {"user_id": user_id, "id": task_id, "kind": kind, "plan": plan, "now": now, "expires_at": expires_at}
    await session.execute(_OPEN, values)
    return task_id


async def find(session: AsyncSession, user_id: str, task_id: uuid.UUID) -> HostTask | None:
    stmt = select(HostTask).where(HostTask.id == task_id, HostTask.user_id == user_id)
    return (await session.execute(stmt)).scalar_one_or_none()


async def close(session: AsyncSession, user_id: str, task_id: uuid.UUID, now: datetime, result: dict[str, Any]) -> bool:
    """Answered, if it was still open: False when another answer closed it first. Two answers to one task
    meet at this row: the second waits for the first's transaction and then finds the task no longer open."""
    stmt = (
        update(HostTask)
        .where(HostTask.user_id == user_id, HostTask.id == task_id, HostTask.status == "open")
        .values(status="answered", answered_at=now, result=result)
        .returning(HostTask.id)
    )
    return (await session.execute(stmt)).first() is not None


async def open_count(session: AsyncSession, user_id: str, now: datetime) -> int:
    stmt = select(HostTask.id).where(HostTask.user_id == user_id, HostTask.status == "open", HostTask.expires_at > now)
    return len((await session.execute(stmt)).all())


async def latest(session: AsyncSession, user_id: str) -> HostTask | None:
    """The task handed out to this user last, whatever became of it."""
    stmt = select(HostTask).where(HostTask.user_id == user_id).order_by(HostTask.created_at.desc()).limit(1)
    return (await session.execute(stmt)).scalar_one_or_none()
