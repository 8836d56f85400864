"""Counts and statistics: the quota's live count, the status report's counts and database size, rows
awaiting a re-embedding, and the language mix of a sample of memories."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.memories import live, stale_vector
from engrain.storage.models import Memory, MemoryVector


async def count_live(session: AsyncSession, user_id: str, now: datetime, *, cap: int) -> int:
    """Live memories of a user (traits aside), counting no further than `cap`."""
    return int(
        await session.scalar(
            text(
                "SELECT count(*) FROM (SELECT 1 FROM memories WHERE user_id = :u AND kind <> 'trait' "
                "AND (valid_until IS NULL OR valid_until > :now) LIMIT :cap) s"
            ),
            {"u": user_id, "now": now, "cap": cap},
        )
        or 0
    )


class Counts(TypedDict):
    """A user's rows: live memories by kind, live traits by stage, archived or superseded ones, and the
    embedders their vectors come from."""

    by_kind: dict[str, int]
    traits_by_stage: dict[str, int]
    inactive: int
    by_embedder: dict[str, int]


class DatabaseSize(TypedDict):
    size_bytes: int
    size: str  # as pg_size_pretty writes it


async def counts(session: AsyncSession, user_id: str, now: datetime) -> Counts:
    """Live memories by kind, live traits by stage, archived/superseded rows, and embedders in use."""
    by_kind = await session.execute(
        select(Memory.kind, func.count()).where(Memory.user_id == user_id, live(now)).group_by(Memory.kind)
    )
    inactive = await session.scalar(select(func.count()).where(Memory.user_id == user_id, Memory.valid_until <= now))
    embedders = await session.execute(
        select(MemoryVector.embedder, func.count())
        .where(MemoryVector.user_id == user_id)
        .group_by(MemoryVector.embedder)
    )
    stages = await session.execute(
        select(Memory.trait_stage, func.count())
        .where(Memory.user_id == user_id, Memory.kind == "trait", live(now))
        .group_by(Memory.trait_stage)
    )
    return Counts(
        by_kind={k: n for k, n in by_kind.all()},
        traits_by_stage={k: n for k, n in stages.all() if k is not None},
        inactive=int(inactive or 0),
        by_embedder={e: n for e, n in embedders.all()},
    )


async def database_size(session: AsyncSession) -> DatabaseSize:
    row = (
        await session.execute(
            text(
                "SELECT pg_database_size(current_database()) AS b, "
                "pg_size_pretty(pg_database_size(current_database())) AS p"
            )
        )
    ).one()
    return DatabaseSize(size_bytes=int(row.b), size=str(row.p))


async def count_stale(session: AsyncSession, embedder_id: str) -> int:
    return int(await session.scalar(select(func.count()).select_from(Memory).where(stale_vector(embedder_id))) or 0)


async def language_mix(session: AsyncSession, now: datetime, sample: int) -> tuple[int, float]:
    """(memories sampled, share of them not in English) among the newest `sample` live memories of
    every user: the embedding model serves them all."""
    row = (
        await session.execute(
            text(
                "SELECT count(*) AS n, coalesce(avg(CASE WHEN s.lang <> 'en' THEN 1.0 ELSE 0.0 END), 0.0) AS share"
                " FROM (SELECT m.lang FROM memories m WHERE m.valid_until IS NULL OR m.valid_until > :now"
                " ORDER BY m.created_at DESC LIMIT :sample) s"
            ),
            {"now": now, "sample": sample},
        )
    ).one()
    return int(row.n), float(row.share)


async def users_holding(session: AsyncSession, now: datetime, *, most: int = 5) -> dict[str, int]:
    """The users with the most live memories (traits aside) and how many each holds, at most `most` of them:
    what a local home holds, for telling a local session whose name holds nothing where its memories are.
    Never asked over HTTP, where one token's user must not learn of another."""
    rows = await session.execute(
        select(Memory.user_id, func.count())
        .where(live(now), Memory.kind != "trait")
        .group_by(Memory.user_id)
        .order_by(func.count().desc(), Memory.user_id)
        .limit(most)
    )
    return {user: int(n) for user, n in rows.all()}
