"""Links between memories: both directions of a link written at once, and a memory's links read back."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.models import Memory, MemoryLink


async def add_link_pair(
    session: AsyncSession, user_id: str, a: uuid.UUID, b: uuid.UUID, relation: str, created_by: str
) -> bool:
    """Store the link both ways; True if it did not exist yet (idempotent)."""
    rows = [
        {"source_id": a, "target_id": b, "relation": relation, "user_id": user_id, "created_by": created_by},
        {"source_id": b, "target_id": a, "relation": relation, "user_id": user_id, "created_by": created_by},
    ]
    stmt = pg_insert(MemoryLink).values(rows).on_conflict_do_nothing().returning(MemoryLink.source_id)
    return bool((await session.execute(stmt)).all())


@dataclass(frozen=True, slots=True)
class Link:
    """A link from a memory to `target_id`, with the target's text."""

    target_id: uuid.UUID
    relation: str
    created_by: str
    created_at: datetime
    content: str


async def links_of(session: AsyncSession, user_id: str, memory_id: uuid.UUID) -> list[Link]:
    stmt = (
        select(MemoryLink.target_id, MemoryLink.relation, MemoryLink.created_by, MemoryLink.created_at, Memory.content)
        .join(Memory, (Memory.user_id == MemoryLink.user_id) & (Memory.id == MemoryLink.target_id))
        .where(MemoryLink.user_id == user_id, MemoryLink.source_id == memory_id)
        .order_by(MemoryLink.created_at, MemoryLink.target_id)
    )
    return [Link(**m) for m in (await session.execute(stmt)).mappings()]
