"""SQL of export and import: every row of a user's memory, in a fixed order, and back.

Export reads each table in a deterministic order (no surrogate ids: history rows are identified by
their content), streaming in chunks. Import is idempotent: memories, cycles and user state are
keyed by their ids, links and evidence by their natural keys, history rows by all their fields;
what already exists is left as it is, and a link or evidence whose memory is missing is skipped.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from engrain.storage.vector_index import ensure_vector_index

MEMORY_COLUMNS = (
    "id",
    "user_id",
    "namespace",
    "kind",
    "content",
    "content_hash",
    "importance",
    "category",
    "tags",
    "temporality",
    "event_time",
    "event_end",
    "event_grain",
    "created_at",
    "told_at",
    "updated_at",
    "valid_until",
    "pinned",
    "access_count",
    "last_accessed_at",
    "source",
    "metadata",
    "trait_subtype",
    "trait_stage",
    "trait_confidence",
    "trait_context",
    "trait_window_end",
    "trait_reinforcement_count",
    "trait_contradiction_count",
    "trait_first_observed",
    "trait_last_reinforced",
    "trait_parent_id",
)
TIMES = {  # the time columns of every exported row
    "event_time",
    "event_end",
    "created_at",
    "told_at",
    "updated_at",
    "valid_until",
    "last_accessed_at",
    "trait_window_end",
    "trait_first_observed",
    "trait_last_reinforced",
    "started_at",
    "finished_at",
    "at",
    "user_at",
    "last_reflected_at",
}

# type → (query over the selected users, in export order)
EXPORTS: dict[str, str] = {
    "user_state": "SELECT user_id, last_reflected_at, last_reflected_id, timezone, settings, updated_at "
    "FROM user_state WHERE user_id = ANY(:users) ORDER BY user_id",
    "memory": f"SELECT {', '.join('m.' + c for c in MEMORY_COLUMNS)}, v.embedder, v.embedding::text AS embedding "
    "FROM memories m LEFT JOIN memory_vectors v ON v.user_id = m.user_id AND v.id = m.id "
    "WHERE m.user_id = ANY(:users) ORDER BY m.user_id, m.created_at, m.id",
    "reflection_cycle": "SELECT id, user_id, trigger_type, trigger_value, status, stats, error, started_at, "
    "finished_at FROM reflection_cycles WHERE user_id = ANY(:users) "
    "ORDER BY user_id, started_at, id",
    "link": "SELECT source_id, target_id, user_id, relation, created_by, created_at FROM memory_links "
    "WHERE user_id = ANY(:users) ORDER BY user_id, source_id, target_id, relation",
    "evidence": "SELECT trait_id, memory_id, user_id, polarity, quality, cycle_id, created_at "
    "FROM trait_evidence WHERE user_id = ANY(:users) ORDER BY user_id, trait_id, memory_id, polarity",
    "history": "SELECT memory_id, user_id, action, old_content, new_content, reason, at, stage, confidence, user_at "
    "FROM memory_history "
    "WHERE user_id = ANY(:users) ORDER BY user_id, at, memory_id, action, old_content NULLS FIRST, "
    "new_content NULLS FIRST, reason NULLS FIRST",
}


def _plain(name: str, value: Any) -> Any:
    """JSON-ready: ids as strings, times as UTC ISO strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    if value is not None and (name == "id" or name.endswith("_id")) and name != "user_id":
        return str(value)
    return value


async def users(conn: AsyncConnection, only: str | None) -> list[str]:
    if only is not None:
        return [only]
    rows = await conn.execute(
        text("SELECT DISTINCT user_id FROM memories UNION SELECT user_id FROM user_state ORDER BY 1")
    )
    return list(rows.scalars())


async def count_rows(conn: AsyncConnection, user_ids: list[str]) -> int:
    total = 0
    for sql in EXPORTS.values():
        total += int(await conn.scalar(text(f"SELECT count(*) FROM ({sql}) s"), {"users": user_ids}) or 0)
    return total


async def export_rows(conn: AsyncConnection, user_ids: list[str], vectors: bool) -> AsyncIterator[dict[str, Any]]:
    """Every row of these users as {"type": …, fields…}, streamed in the export order."""
    await conn.execute(text("SET LOCAL TIME ZONE 'UTC'"))
    for kind, sql in EXPORTS.items():
        result = await conn.stream(text(sql), {"users": user_ids})
        async for row in result.mappings():
            item = {"type": kind} | {k: _plain(k, v) for k, v in row.items()}
            if kind == "memory" and not vectors:
                item["embedding"], item["embedder"] = None, None
            yield item


_JSONB = {"metadata", "settings", "stats"}


def _bind(name: str, value: Any) -> Any:
    """A file value as a statement parameter: ISO strings back to times, jsonb fields as JSON text."""
    if name in TIMES and isinstance(value, str):
        return datetime.fromisoformat(value)
    if name in _JSONB:
        return json.dumps(value if value is not None else {})
    return value


async def import_batch(conn: AsyncConnection, kind: str, rows: Sequence[dict[str, Any]]) -> int:
    """Insert what is not there yet; return how many rows were added."""
    if not rows:
        return 0
    params = [{k: _bind(k, v) for k, v in r.items() if k != "type"} for r in rows]
    if kind == "memory":
        cols = [c for c in MEMORY_COLUMNS if c != "trait_parent_id"]  # see link_parents
        for p in params:  # a column the file lacks is empty (NOT NULL ones are then refused by the database)
            p.setdefault("told_at", p.get("created_at"))  # files written before told times: told when stored
            for c in (*cols, "embedder", "embedding"):
                p.setdefault(c, None)
        values = ", ".join(f"CAST(:{c} AS jsonb)" if c in _JSONB else f":{c}" for c in cols)
        # The vector goes with the row it belongs to (none when the row was there already).
        sql = (
            f"WITH added AS (INSERT INTO memories ({', '.join(cols)}) VALUES ({values}) "
            "ON CONFLICT DO NOTHING RETURNING user_id, id), "
            "vector AS (INSERT INTO memory_vectors (user_id, id, embedder, embedding) "
            "SELECT user_id, id, CAST(:embedder AS text), CAST(:embedding AS vector) FROM added "
            "WHERE CAST(:embedder AS text) IS NOT NULL AND CAST(:embedding AS vector) IS NOT NULL) "
            "SELECT 1 FROM added"
        )
    elif kind == "user_state":
        for p in params:  # files written before the watermark carried an id
            p.setdefault("last_reflected_id", None)
        sql = (
            "INSERT INTO user_state (user_id, last_reflected_at, last_reflected_id, timezone, settings, updated_at) "
            "VALUES (:user_id, :last_reflected_at, CAST(:last_reflected_id AS uuid), :timezone, "
            "CAST(:settings AS jsonb), :updated_at) "
            "ON CONFLICT DO NOTHING RETURNING 1"
        )
    elif kind == "reflection_cycle":
        sql = (
            "INSERT INTO reflection_cycles (id, user_id, trigger_type, trigger_value, status, stats, error, "
            "started_at, finished_at) VALUES (:id, :user_id, :trigger_type, :trigger_value, :status, "
            "CAST(:stats AS jsonb), :error, :started_at, :finished_at) ON CONFLICT DO NOTHING RETURNING 1"
        )
    elif kind == "link":
        sql = (
            "INSERT INTO memory_links (source_id, target_id, user_id, relation, created_by, created_at) "
            "SELECT CAST(:source_id AS uuid), CAST(:target_id AS uuid), :user_id, :relation, :created_by, "
            ":created_at WHERE EXISTS (SELECT 1 FROM memories WHERE id = CAST(:source_id AS uuid) "
            "AND user_id = :user_id) AND EXISTS (SELECT 1 FROM memories WHERE id = CAST(:target_id AS uuid) "
            "AND user_id = :user_id) ON CONFLICT DO NOTHING RETURNING 1"
        )
    elif kind == "evidence":
        for p in params:  # files written before evidence carried its user: the trait's
            p.setdefault("user_id", None)
        sql = (
            "INSERT INTO trait_evidence (user_id, trait_id, memory_id, polarity, quality, cycle_id, created_at) "
            "SELECT t.user_id, t.id, m.id, :polarity, :quality, (SELECT c.id FROM reflection_cycles c "
            "WHERE c.user_id = t.user_id AND c.id = CAST(:cycle_id AS uuid)), :created_at "
            "FROM memories t JOIN memories m ON m.user_id = t.user_id AND m.id = CAST(:memory_id AS uuid) "
            "WHERE t.user_id = coalesce(CAST(:user_id AS text), t.user_id) AND t.id = CAST(:trait_id AS uuid) "
            "ON CONFLICT DO NOTHING RETURNING 1"
        )
    elif kind == "history":
        for p in params:  # files written before history carried trait stages; texts a row does not keep
            for optional in ("stage", "confidence", "old_content", "new_content", "reason", "user_at"):
                p.setdefault(optional, None)
        sql = (
            "INSERT INTO memory_history (memory_id, user_id, action, old_content, new_content, reason, at, "
            "stage, confidence, user_at) SELECT CAST(:memory_id AS uuid), :user_id, :action, :old_content, "
            ":new_content, :reason, :at, :stage, :confidence, :user_at "
            "WHERE NOT EXISTS (SELECT 1 FROM memory_history h WHERE h.memory_id = CAST(:memory_id AS uuid) "
            "AND h.user_id = :user_id AND h.action = :action AND h.at = :at "
            "AND h.old_content IS NOT DISTINCT FROM :old_content AND h.new_content IS NOT DISTINCT FROM "
            ":new_content AND h.reason IS NOT DISTINCT FROM :reason) RETURNING 1"
        )
    else:
        raise ValueError(f"unknown row type {kind!r}")
    added = 0
    for p in params:  # one statement per row keeps RETURNING honest; callers batch rows in a transaction
        added += len((await conn.execute(text(sql), p)).all())
    return added


async def index_vectors(conn: AsyncConnection) -> None:
    """Give every embedder among the stored vectors its HNSW index, as a write would."""
    rows = await conn.execute(text("SELECT DISTINCT embedder, vector_dims(embedding) FROM memory_vectors ORDER BY 1"))
    for embedder_id, dim in rows.all():
        await ensure_vector_index(conn, embedder_id, int(dim))


async def link_parents(conn: AsyncConnection, pairs: Sequence[tuple[str, str]]) -> None:
    """Trait parents once every memory is in (a parent may come later in the file than its child)."""
    for child, parent in pairs:
        await conn.execute(
            text(
                "UPDATE memories c SET trait_parent_id = p.id FROM memories p "
                "WHERE c.id = CAST(:child AS uuid) AND c.trait_parent_id IS NULL "
                "AND p.user_id = c.user_id AND p.id = CAST(:parent AS uuid)"
            ),
            {"child": child, "parent": parent},
        )
