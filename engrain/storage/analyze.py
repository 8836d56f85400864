"""The planner's statistics of the tables a user's statements are planned on, refreshed after writes
(storage/db.Database.refresh_statistics) instead of waiting for autovacuum."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

# The tables whose statistics plan a user's statements: the user's share of their rows decides between a
# key look-up and an index scan (storage/sqltext.memory_behind says what a stale estimate costs).
PLANNED_TABLES = ("memories", "memory_vectors")
# PostgreSQL's autovacuum defaults: a table is analyzed once 50 rows plus a tenth of it changed since the
# last ANALYZE. The same rule, applied right after writes instead of at autovacuum's next round (up to a
# minute later, by which time an import's first questions have been asked).
ANALYZE_BASE_ROWS = 50
ANALYZE_SHARE = 0.1
# After a refresh that analyzed, none for this many times as long as it took: refreshes take at most about a
# twentieth of one core. Without it a large batched import spent a tenth of its time in ANALYZE (docs/performance.md).
REFRESH_QUIET_FACTOR = 20


async def analyze_if_changed(conn: AsyncConnection) -> list[str]:
    """ANALYZE the planned tables that changed by more than autovacuum's threshold since their last ANALYZE,
    and return their names. Gives up at once (lock_timeout) when autovacuum holds the table: waiting would
    cancel its work there, and its ANALYZE is on the way anyway."""
    rows = await conn.execute(
        text(
            "SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid "
            "WHERE s.relname = ANY(:tables) AND s.n_mod_since_analyze > :base + :share * greatest(c.reltuples, 0) "
            "ORDER BY s.relname"
        ),
        {"tables": list(PLANNED_TABLES), "base": ANALYZE_BASE_ROWS, "share": ANALYZE_SHARE},
    )
    changed = [r.relname for r in rows]  # names of PLANNED_TABLES only (the query asks for no other)
    if changed:
        await conn.execute(text("SET LOCAL lock_timeout = '100ms'"))
        await conn.execute(text(f"ANALYZE {', '.join(changed)}"))
    return changed


async def count_changes_at_commit(session: AsyncSession) -> None:
    """Have this transaction's row counts reach the statistics views when it commits (they otherwise follow
    up to seconds later), so that the check right after a large batch sees the batch."""
    await session.execute(text("SELECT pg_stat_force_next_flush()"))
