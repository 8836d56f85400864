"""Host tasks: rows of the work handed to the calling model. Every query is scoped by user, so another
user's task id behaves exactly like an unknown one."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.models import HostTask


async def open_task(
    session: AsyncSession, user_id: str, kind: str, plan: dict[str, Any], now: datetime, expires_at: datetime
) -> uuid.UUID:
    """A new open task; the user's earlier open task is replaced (a user has at most one)."""
    await session.execute(
        update(HostTask).where(HostTask.user_id == user_id, HostTask.status == "open").values(status="replaced")
    )
    task = HostTask(
        id=uuid.uuid4(), user_id=user_id, kind=kind, status="open", plan=plan, created_at=now, expires_at=expires_at
    )
    session.add(task)
    await session.flush()
    return task.id


async def claim(session: AsyncSession, user_id: str, task_id: uuid.UUID) -> HostTask | None:
    """The user's task, locked for this transaction (a concurrent second answer waits, then sees it
    answered)."""
    stmt = select(HostTask).where(HostTask.id == task_id, HostTask.user_id == user_id).with_for_update()
    return (await session.execute(stmt)).scalar_one_or_none()


async def close(
    session: AsyncSession, task: HostTask, status: str, now: datetime, result: dict[str, Any] | None = None
) -> None:
    task.status, task.answered_at, task.result = status, now, result
    await session.flush()


async def open_count(session: AsyncSession, user_id: str, now: datetime) -> int:
    stmt = select(HostTask.id).where(HostTask.user_id == user_id, HostTask.status == "open", HostTask.expires_at > now)
    return len((await session.execute(stmt)).all())
