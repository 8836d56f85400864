"""Memory retention (docs/SPEC.md §8): memories nobody uses fade — archived, or deleted in delete mode.

retention = min(1, exp(-λ · days_since_last_access) · (1 + ln(1 + access_count)) / 5)

Only episodic and fact memories can fade. Never touched: traits, procedures, pinned memories,
importance ≥ 8, memories younger than the minimum age, and intentions still in the future.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.memories import FADED_AWAY, erase
from engrain.storage.sqltext import safe_exp
from engrain.storage.traits import run_pass, sample_sql

PROTECTED_IMPORTANCE = 8


_IDLE_EXPONENT = """-CAST(:lam AS float8) * greatest(0.0, extract(epoch FROM
                     (CAST(:now AS timestamptz) - coalesce(m.last_accessed_at, m.created_at))) / 86400.0)"""


def _doomed_cte(user_filter: str) -> str:
    return f"""
    scored AS (
        SELECT m.id, m.user_id, m.content,
               least(1.0, {safe_exp(_IDLE_EXPONENT)} * (1 + ln(1 + m.access_count)) / 5) AS retention
        FROM memories m
        WHERE m.kind IN ('episodic', 'fact') AND NOT m.pinned AND m.importance < {PROTECTED_IMPORTANCE}
          AND (m.valid_until IS NULL OR m.valid_until > :now)
          AND m.created_at < :min_created
          AND NOT (m.temporality = 'prospective' AND (m.event_time IS NULL OR m.event_time >= :now))
          {user_filter}),
    doomed AS (SELECT * FROM scored WHERE retention < CAST(:threshold AS float8))"""


async def fade_memories(
    session: AsyncSession,
    user_id: str | None,
    now: datetime,
    *,
    lam: float,
    threshold: float,
    min_created: datetime,
    delete: bool,
) -> dict[str, Any]:
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
        SELECT (SELECT count(*) FROM upd) AS archived, 0 AS deleted, 0 AS traits_dissolved, {sample_sql("upd")}
        """
        return await run_pass(session, sql, params)
    # Delete mode: exactly `forget`, for every faded memory at once.
    erased = await erase(
        session,
        f"WITH {_doomed_cte(user_filter)} SELECT user_id, id FROM doomed",
        params,
        now,
        FADED_AWAY,
    )
    return {
        "archived": 0,
        "deleted": erased["deleted"],
        "traits_dissolved": len(erased["traits_dissolved"]),
        "sample": erased["sample"],
    }
