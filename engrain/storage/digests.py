"""SQL for topic digests (rules/digests.py): the user's live digests a reflection shows, a digest's links to the
memories it draws on, and the old digest a rewrite replaces."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.rules.digests import DIGEST, SUMMARIZED_BY, SUMMARIZES
from engrain.storage.memories import add_history, live
from engrain.storage.models import Memory, MemoryLink


async def live_digests(session: AsyncSession, user_id: str, now: datetime, limit: int) -> list[Memory]:
    """The user's live digests, newest first (the ones a reflection shows and may rewrite)."""
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.kind == DIGEST, live(now))
        .order_by(Memory.created_at.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def link_evidence(
    session: AsyncSession, user_id: str, digest_id: uuid.UUID, evidence: Sequence[uuid.UUID], created_by: str
) -> None:
    """`summarizes` from the digest to each memory it draws on, `summarized_by` back: a recall hit's links list a
    digest's evidence, and a memory's links name the digest that holds it. One statement."""
    rows = [
        row
        for memory_id in evidence
        for row in (
            {"source_id": digest_id, "target_id": memory_id, "relation": SUMMARIZES},
            {"source_id": memory_id, "target_id": digest_id, "relation": SUMMARIZED_BY},
        )
    ]
    if rows:
        values = [{**row, "user_id": user_id, "created_by": created_by} for row in rows]
        await session.execute(pg_insert(MemoryLink).values(values).on_conflict_do_nothing())


async def supersede_digest(
    session: AsyncSession, user_id: str, old_id: uuid.UUID, new_id: uuid.UUID, now: datetime
) -> bool:
    """The rewritten digest `new_id` replaces `old_id` (it leaves recall and says by what), as an update retires a
    fact — without the paraphrase sweep of a fact's replacement: another topic's digest is no paraphrase of it.
    False when the old one was no live digest of the user."""
    ended = await session.execute(
        update(Memory)
        .where(Memory.user_id == user_id, Memory.id == old_id, Memory.kind == DIGEST, live(now))
        .values(valid_until=now, updated_at=now, superseded_by=new_id)
        .returning(Memory.id)
    )
    if ended.first() is None:
        return False
    await add_history(session, old_id, user_id, "supersede", reason=f"superseded by {new_id}", at=now)
    return True
