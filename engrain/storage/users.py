"""One user's rows moved under another name: `engrain merge-users`, for the two memories older defaults made
on one machine (services/memories/local_user.py). Set-based, in the caller's transaction: a merge is whole or nothing.

Every row of the source is copied under the target with its own id (ids are unique across users), unless the
target already holds it: a live memory with the same words (the live-hash index) stays the target's one, and
what hangs off a memory that was not copied (its vector, links, evidence, history) is left behind with it. The
target keeps its own reflection watermark and settings when it has them. Then the source's rows are deleted.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, text
from sqlalchemy.ext.asyncio import AsyncConnection

from engrain.storage.models import (
    ChatImport,
    MemoryHistory,
    MemoryLink,
    MemoryVector,
    MemoryWindow,
    ReflectionCycle,
    TraitEvidence,
    UserState,
)
from engrain.storage.models import Memory as MemoryRow

# Whose memories a copied row needs under the target, beside its own key: (column, ...) naming memory ids.
_NEEDS: dict[str, tuple[str, ...]] = {
    "memory_vectors": ("id",),
    "memory_windows": ("id",),
    "memory_links": ("source_id", "target_id"),
    "trait_evidence": ("trait_id", "memory_id"),
    "memory_history": ("memory_id",),
}
# In the order rows may be copied (what a row refers to first) and deleted (the reverse).
_TABLES: tuple[Any, ...] = (
    MemoryRow,
    MemoryVector,
    MemoryWindow,
    ReflectionCycle,
    MemoryLink,
    TraitEvidence,
    MemoryHistory,
    ChatImport,
    UserState,
)


def _columns(table: Table) -> list[str]:
    return [c.name for c in table.columns if c.computed is None]


def _copy(table: Table) -> str:
    """INSERT … SELECT of the source's rows of `table` under the target, skipping what the target holds."""
    columns = _columns(table)
    chosen = [":target" if c == "user_id" else ("NULL" if c == "trait_parent_id" else f"s.{c}") for c in columns]
    # Ids are unique across users: a source memory's id under the target is that memory, copied.
    held = " ".join(
        f"AND EXISTS (SELECT 1 FROM memories t WHERE t.user_id = :target AND t.id = s.{c})"
        for c in _NEEDS.get(table.name, ())
    )
    if table.name == "trait_evidence":  # its cycle, when that cycle came along
        chosen[columns.index("cycle_id")] = (
            "(SELECT c.id FROM reflection_cycles c WHERE c.user_id = :target AND c.id = s.cycle_id)"
        )
    return (
        f"INSERT INTO {table.name} ({', '.join(columns)}) SELECT {', '.join(chosen)} FROM {table.name} s "
        f"WHERE s.user_id = :source {held} ON CONFLICT DO NOTHING"
    )


async def holds_rows(conn: AsyncConnection, user: str) -> bool:
    """Does `user` hold any memory or state at all?"""
    found = await conn.scalar(
        text(
            "SELECT EXISTS (SELECT 1 FROM memories WHERE user_id = :u) "
            "OR EXISTS (SELECT 1 FROM user_state WHERE user_id = :u)"
        ),
        {"u": user},
    )
    return bool(found)


async def merge(conn: AsyncConnection, source: str, target: str) -> dict[str, int]:
    """Move `source`'s rows under `target`; return the rows copied per table (what the target already held
    is not counted). The caller's transaction makes it whole or nothing."""
    names = {"source": source, "target": target}
    copied: dict[str, int] = {}
    for row_class in _TABLES:
        table: Table = row_class.__table__
        result = await conn.execute(text(_copy(table)), names)
        copied[table.name] = int(result.rowcount or 0)
    # Trait parents once every memory is in (a parent not copied leaves its child without one).
    await conn.execute(
        text(
            "UPDATE memories c SET trait_parent_id = s.trait_parent_id FROM memories s, memories p "
            "WHERE c.user_id = :target AND s.user_id = :source AND s.id = c.id AND s.trait_parent_id IS NOT NULL "
            "AND p.user_id = :target AND p.id = s.trait_parent_id"
        ),
        names,
    )
    await conn.execute(text("DELETE FROM host_tasks WHERE user_id = :source"), names)
    for row_class in reversed(_TABLES):
        await conn.execute(text(f"DELETE FROM {row_class.__table__.name} WHERE user_id = :source"), names)
    return copied
