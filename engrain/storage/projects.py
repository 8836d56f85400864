"""The rows a coding session's context reads by namespace (services/sessions): which namespaces a set of memories
is in, and what was told about one project."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading.speakers import REPLY
from engrain.rules.digests import DIGEST
from engrain.storage.memories import known
from engrain.storage.models import Memory


async def namespaces_of(session: AsyncSession, user_id: str, ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
    """The namespace of each of these memories of the user's."""
    if not ids:
        return {}
    stmt = select(Memory.id, Memory.namespace).where(Memory.user_id == user_id, Memory.id.in_(ids))
    return {row_id: namespace for row_id, namespace in (await session.execute(stmt)).all()}


async def told_in(session: AsyncSession, user_id: str, namespace: str, now: datetime, limit: int) -> list[Memory]:
    """The user's own live memories of one namespace, the most important first, then the newest told."""
    stmt = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.namespace == namespace,
            Memory.kind.not_in(("trait", DIGEST, REPLY)),
            known(now),
        )
        .order_by(Memory.pinned.desc(), Memory.importance.desc(), Memory.told_at.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())
