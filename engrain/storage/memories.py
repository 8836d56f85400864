"""Memory rows, their links and their history: every read and write is scoped by user_id.

An id that belongs to another user is indistinguishable from an unknown id, because
no query here ever selects by id alone.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, or_, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from engrain.storage.models import Memory, MemoryHistory, MemoryLink, TraitEvidence
from engrain.storage.sqltext import sql_literal, vector_literal

HIDDEN_TRAIT_STAGES = ("trend", "candidate", "dissolved")


def live(now: datetime) -> Any:
    """Rows that are still valid at `now` (not superseded, archived or expired)."""
    return or_(Memory.valid_until.is_(None), Memory.valid_until > now)


async def get(session: AsyncSession, user_id: str, memory_id: uuid.UUID) -> Memory | None:
    return (
        await session.execute(select(Memory).where(Memory.id == memory_id, Memory.user_id == user_id))
    ).scalar_one_or_none()


async def get_many(session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID]) -> list[Memory]:
    if not ids:
        return []
    rows = await session.execute(select(Memory).where(Memory.id.in_(ids), Memory.user_id == user_id))
    return list(rows.scalars())


async def find_live_duplicate(
    session: AsyncSession, user_id: str, namespace: str, kind: str, content_hash: str
) -> Memory | None:
    """The live row that the unique index would collide with."""
    stmt = select(Memory).where(
        Memory.user_id == user_id,
        Memory.namespace == namespace,
        Memory.kind == kind,
        Memory.content_hash == content_hash,
        Memory.valid_until.is_(None),
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def nearest_live(
    session: AsyncSession,
    user_id: str,
    namespace: str,
    kind: str,
    embedder_id: str,
    dim: int,
    vector: list[float],
    now: datetime,
) -> tuple[uuid.UUID, float] | None:
    """The most similar live memory of the same kind and embedder, with its cosine similarity."""
    stmt = text(
        f"""
        SELECT id, 1 - (embedding::vector({int(dim)}) <=> CAST(:v AS vector({int(dim)}))) AS sim
        FROM memories
        WHERE embedder = {sql_literal(embedder_id)} AND user_id = :user AND namespace = :ns AND kind = :kind
          AND (valid_until IS NULL OR valid_until > :now)
        ORDER BY embedding::vector({int(dim)}) <=> CAST(:v AS vector({int(dim)}))
        LIMIT 1
        """
    )
    row = (
        await session.execute(
            stmt, {"v": vector_literal(vector), "user": user_id, "ns": namespace, "kind": kind, "now": now}
        )
    ).first()
    return (row.id, float(row.sim)) if row else None


async def insert(session: AsyncSession, memory: Memory, vector: list[float] | None) -> Memory:
    memory.embedding = vector
    session.add(memory)
    await session.flush()
    return memory


async def insert_many(session: AsyncSession, memories: Sequence[Memory], now: datetime) -> None:
    """Insert rows and their 'create' history in two statements."""
    if not memories:
        return
    session.add_all(memories)
    await session.flush()
    await session.execute(pg_insert(MemoryHistory).values([
        {"memory_id": m.id, "user_id": m.user_id, "action": "create", "new_content": m.content, "at": now}
        for m in memories
    ]))


async def live_by_hashes(session: AsyncSession, user_id: str, hashes: Sequence[str]
                         ) -> dict[tuple[str, str, str], uuid.UUID]:
    """Live rows with any of these content hashes, keyed by (namespace, kind, hash)."""
    if not hashes:
        return {}
    rows = await session.execute(
        select(Memory.namespace, Memory.kind, Memory.content_hash, Memory.id).where(
            Memory.user_id == user_id, Memory.valid_until.is_(None), Memory.content_hash.in_(list(set(hashes)))
        )
    )
    return {(r.namespace, r.kind, r.content_hash): r.id for r in rows}


async def add_history(
    session: AsyncSession,
    memory_id: uuid.UUID,
    user_id: str,
    action: str,
    *,
    old: str | None = None,
    new: str | None = None,
    reason: str | None = None,
    at: datetime | None = None,
) -> None:
    values: dict[str, Any] = dict(
        memory_id=memory_id, user_id=user_id, action=action, old_content=old, new_content=new, reason=reason
    )
    if at is not None:
        values["at"] = at
    await session.execute(pg_insert(MemoryHistory).values(**values))


async def history(session: AsyncSession, user_id: str, memory_id: uuid.UUID) -> list[MemoryHistory]:
    stmt = (
        select(MemoryHistory)
        .where(MemoryHistory.memory_id == memory_id, MemoryHistory.user_id == user_id)
        .order_by(MemoryHistory.at, MemoryHistory.id)
    )
    return list((await session.execute(stmt)).scalars())


async def touch(session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID], now: datetime) -> None:
    """Count an access of each memory (recall hits, duplicate remembers) in one statement."""
    if not ids:
        return
    await session.execute(
        update(Memory)
        .where(Memory.id.in_(list(ids)), Memory.user_id == user_id)
        .values(access_count=Memory.access_count + 1, last_accessed_at=now)
    )


async def end_validity(session: AsyncSession, user_id: str, memory_id: uuid.UUID, now: datetime) -> None:
    await session.execute(
        update(Memory)
        .where(Memory.id == memory_id, Memory.user_id == user_id)
        .values(valid_until=now, updated_at=now)
    )


async def delete_memory(session: AsyncSession, user_id: str, memory_id: uuid.UUID) -> bool:
    """Delete the row; links and evidence go with it (ON DELETE CASCADE)."""
    result = await session.execute(delete(Memory).where(Memory.id == memory_id, Memory.user_id == user_id))
    return bool(result.rowcount)


async def traits_losing_last_support(
    session: AsyncSession, user_id: str, memory_id: uuid.UUID
) -> list[uuid.UUID]:
    """Active traits whose only supporting evidence is `memory_id`."""
    other_evidence = aliased(TraitEvidence)
    other = (
        select(other_evidence.trait_id)
        .where(
            other_evidence.trait_id == Memory.id,
            other_evidence.polarity == "supporting",
            other_evidence.memory_id != memory_id,
        )
        .exists()
    )
    stmt = (
        select(Memory.id)
        .join(TraitEvidence, TraitEvidence.trait_id == Memory.id)
        .where(
            Memory.user_id == user_id,
            Memory.kind == "trait",
            Memory.trait_stage != "dissolved",
            TraitEvidence.memory_id == memory_id,
            TraitEvidence.polarity == "supporting",
            ~other,
        )
    )
    return list((await session.execute(stmt)).scalars())


async def dissolve_traits(
    session: AsyncSession, user_id: str, trait_ids: Sequence[uuid.UUID], now: datetime, reason: str
) -> None:
    if not trait_ids:
        return
    await session.execute(
        update(Memory)
        .where(Memory.id.in_(list(trait_ids)), Memory.user_id == user_id)
        .values(trait_stage="dissolved", valid_until=now, updated_at=now)
    )
    for trait_id in trait_ids:
        await add_history(session, trait_id, user_id, "dissolve", reason=reason, at=now)


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


async def links_of(session: AsyncSession, user_id: str, memory_id: uuid.UUID) -> list[dict[str, Any]]:
    stmt = (
        select(MemoryLink.target_id, MemoryLink.relation, MemoryLink.created_by, MemoryLink.created_at,
               Memory.content)
        .join(Memory, Memory.id == MemoryLink.target_id)
        .where(MemoryLink.source_id == memory_id, MemoryLink.user_id == user_id)
        .order_by(MemoryLink.created_at, MemoryLink.target_id)
    )
    return [dict(r._mapping) for r in await session.execute(stmt)]


async def recent(session: AsyncSession, user_id: str, now: datetime, limit: int) -> list[Memory]:
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.kind != "trait", live(now))
        .order_by(Memory.created_at.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def pinned(session: AsyncSession, user_id: str, now: datetime) -> list[Memory]:
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.pinned.is_(True), Memory.kind != "trait", live(now))
        .order_by(Memory.importance.desc(), Memory.created_at)
    )
    return list((await session.execute(stmt)).scalars())


async def intentions(session: AsyncSession, user_id: str, now: datetime) -> list[Memory]:
    """Live prospective memories, soonest first (undated ones last)."""
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.temporality == "prospective", live(now))
        .order_by(Memory.event_time.asc().nulls_last(), Memory.created_at)
    )
    return list((await session.execute(stmt)).scalars())


async def counts(session: AsyncSession, user_id: str, now: datetime) -> dict[str, Any]:
    """Live memories by kind, live traits by stage, archived/superseded rows, and embedders in use."""
    by_kind = await session.execute(
        select(Memory.kind, func.count()).where(Memory.user_id == user_id, live(now)).group_by(Memory.kind)
    )
    inactive = await session.scalar(
        select(func.count()).where(Memory.user_id == user_id, Memory.valid_until <= now)
    )
    embedders = await session.execute(
        select(Memory.embedder, func.count())
        .where(Memory.user_id == user_id, Memory.embedder.is_not(None))
        .group_by(Memory.embedder)
    )
    stages = await session.execute(
        select(Memory.trait_stage, func.count())
        .where(Memory.user_id == user_id, Memory.kind == "trait", live(now))
        .group_by(Memory.trait_stage)
    )
    return {
        "by_kind": {k: n for k, n in by_kind.all()},
        "traits_by_stage": {k: n for k, n in stages.all()},
        "inactive": int(inactive or 0),
        "by_embedder": {e: n for e, n in embedders.all()},
    }


async def stale_embeddings(session: AsyncSession, embedder_id: str, limit: int) -> list[tuple[uuid.UUID, str]]:
    """A batch of rows (any user) whose vector was not made by `embedder_id`."""
    rows = await session.execute(
        select(Memory.id, Memory.content)
        .where(Memory.embedder.is_distinct_from(embedder_id))
        .order_by(Memory.id)
        .limit(limit)
    )
    return [(r.id, r.content) for r in rows]


async def set_embeddings(
    session: AsyncSession, embedder_id: str, ids: Sequence[uuid.UUID], vectors: Sequence[Sequence[float]]
) -> None:
    """Store many vectors in one statement."""
    await session.execute(
        text(
            "UPDATE memories m SET embedding = CAST(v.vec AS vector), embedder = :e "
            "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS text[])) AS v(id, vec) WHERE m.id = v.id"
        ),
        {"e": embedder_id, "ids": list(ids), "vecs": [vector_literal(v) for v in vectors]},
    )
