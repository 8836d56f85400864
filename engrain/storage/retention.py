"""Memory retention (docs/SPEC.md §8): memories nobody uses fade — archived, or deleted in delete mode.

The formula, the profiles and what may fade are rules/retention.py; this module is the set-based pass
built from them. Memories younger than the minimum age and plans still in the future are never touched.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.rules.retention import idle_exponent_sql, may_fade_sql, retention_sql
from engrain.storage.memories import FADED_AWAY, erase
from engrain.storage.sqltext import safe_exp
from engrain.storage.traits import SampleRow, run_pass, sample_sql

_IDLE_EXPONENT = idle_exponent_sql(
    ":lam", "extract(epoch FROM (CAST(:now AS timestamptz) - coalesce(m.last_accessed_at, m.created_at))) / 86400.0"
)


def _doomed_cte(user_filter: str) -> str:
    return f"""
    scored AS (
        SELECT m.id, m.user_id, m.content,
               {retention_sql(safe_exp(_IDLE_EXPONENT), "m.access_count")} AS retention
        FROM memories m
        WHERE {may_fade_sql("m")}
          AND (m.valid_until IS NULL OR m.valid_until > :now)
          AND m.created_at < :min_created
          AND NOT (m.temporality = 'prospective'
                   AND (m.event_time IS NULL OR coalesce(m.event_end, m.event_time) > :now))
          {user_filter}),
    doomed AS (SELECT * FROM scored WHERE retention < CAST(:threshold AS float8))"""


class Fading(TypedDict):
    """What a retention pass did: memories archived (or, in delete mode, erased) and traits dissolved."""

    archived: int
    deleted: int
    traits_dissolved: int
    sample: list[SampleRow]


async def fade_memories(
    session: AsyncSession,
    user_id: str | None,
    now: datetime,
    *,
    lam: float,
    threshold: float,
    min_created: datetime,
    delete: bool,
) -> Fading:
    """Archive (valid_until = now, kept for export) or delete every memory below the threshold."""
    user_filter = "AND m.user_id = :user" if user_id is not None else ""
    params: dict[str, Any] = {"now": now, "lam": lam, "threshold": threshold, "min_created": min_created}
    if user_id is not None:
        params["user"] = user_id
    if not delete:
        sql = f"""
        WITH {_doomed_cte(user_filter)},
        upd AS (
            UPDATE memories m SET valid_until = :now, updated_at = :now FROM doomed d
            WHERE m.user_id = d.user_id AND m.id = d.id
            RETURNING m.id, m.user_id, m.content, d.retention),
        hist AS (
            INSERT INTO memory_history (memory_id, user_id, action, reason, at)
            SELECT id, user_id, 'archive',
                   format('retention %s below %s', round(retention::numeric, 4), CAST(:threshold AS float8)), :now
            FROM upd RETURNING 1)
        SELECT (SELECT count(*) FROM upd) AS archived, {sample_sql("upd")}
        """
        row = await run_pass(session, sql, params)
        return Fading(archived=int(row["archived"]), deleted=0, traits_dissolved=0, sample=row["sample"])
    # Delete mode: exactly `forget`, for every faded memory at once.
    erased = await erase(
        session,
        f"WITH {_doomed_cte(user_filter)} SELECT user_id, id FROM doomed",
        params,
        now,
        FADED_AWAY,
        digests=False,  # a digest keeps what faded (rules/digests.py)
    )
    return Fading(
        archived=0,
        deleted=erased["deleted"],
        traits_dissolved=len(erased["traits_dissolved"]),
        sample=erased["sample"],
    )
