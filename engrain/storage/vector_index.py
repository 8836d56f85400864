"""Each embedder's HNSW indexes, created by the first write that stores that embedder's vectors.

Vectors live in `memory_vectors` (storage/models.py says why) and a long memory's windows' in `memory_windows`
(VECTOR_TABLES), untyped (`vector`), so that any embedder and dimension fits the same column; each embedder gets
a partial expression index on each table cast to its dimension, which the recall statement uses by filtering on
`embedder` and casting the same way.

The index is created inside the writer's own transaction, never on another connection: a
`CREATE INDEX` elsewhere would wait for this transaction's row locks while this transaction waited
for it. Creators take turns (an advisory lock, so a waiting one holds no table lock), and each tries
under a short lock timeout in a savepoint: when two first writers still wait on each other, one
gives up, its write goes on without the index, and a later write creates it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Literal

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from engrain.storage.db import advisory_key
from engrain.storage.sqltext import sql_literal

log = logging.getLogger(__name__)

LOCK_TIMEOUT = "2s"  # how long a first writer waits for other writers before leaving the index to a later write
VectorTable = Literal["memory_vectors", "memory_windows"]
# Indexes known to exist, by database URL, table and embedder: after the first write, no catalog look-up.
_known: set[tuple[str, str, str]] = set()


def vector_index_name(embedder_id: str, table: VectorTable = "memory_vectors") -> str:
    """A stable, valid (≤ 63 chars) index name for one embedder's HNSW index on `table`."""
    slug = re.sub(r"[^a-z0-9]+", "_", embedder_id.lower()).strip("_")[:30]
    digest = hashlib.sha1(embedder_id.encode()).hexdigest()[:8]
    return f"ix_{table}_hnsw_{slug}_{digest}"


def vector_index_ddl(embedder_id: str, dim: int, table: VectorTable = "memory_vectors") -> str:
    """The statement creating `embedder_id`'s HNSW index on `table` (also run by migration 0013 for stored
    vectors)."""
    return (
        f"CREATE INDEX IF NOT EXISTS {vector_index_name(embedder_id, table)} ON {table} USING hnsw "
        f"((embedding::vector({int(dim)})) vector_cosine_ops) WITH (m = 16, ef_construction = 32) "
        f"WHERE embedder = {sql_literal(embedder_id)}"
    )


async def _database_of(conn: AsyncSession | AsyncConnection) -> str:
    connection = await conn.connection() if isinstance(conn, AsyncSession) else conn
    return connection.engine.url.render_as_string(hide_password=True)


async def ensure_vector_index(
    conn: AsyncSession | AsyncConnection, embedder_id: str, dim: int, table: VectorTable = "memory_vectors"
) -> None:
    """Make sure `embedder_id`'s vectors in `table` have their HNSW index, inside the caller's transaction."""
    key = (await _database_of(conn), table, embedder_id)
    if key in _known:
        return
    name = vector_index_name(embedder_id, table)
    if await conn.scalar(text("SELECT to_regclass(:n) IS NOT NULL"), {"n": name}):
        _known.add(key)
        return
    previous = await conn.scalar(text("SELECT current_setting('lock_timeout')"))
    try:
        async with conn.begin_nested():
            await conn.execute(text("SELECT set_config('lock_timeout', :t, true)"), {"t": LOCK_TIMEOUT})
            # One creator at a time, and a waiting one holds no table lock: `CREATE INDEX` takes a SHARE
            # lock that writers queue behind, so two creators at once would block each other's inserts.
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": advisory_key(f"engrain:index:{name}")})
            if not await conn.scalar(text("SELECT to_regclass(:n) IS NOT NULL"), {"n": name}):  # else made meanwhile
                await conn.execute(text(vector_index_ddl(embedder_id, dim, table)))
    except DBAPIError as exc:  # a lock timeout, a deadlock or a name taken by another first writer
        log.info("the vector index for %s is left to a later write: %s", embedder_id, str(exc.orig).splitlines()[0])
        return
    # Known only once committed: the next write finds it in the catalog (a rolled-back write takes it along).
    await conn.execute(text("SELECT set_config('lock_timeout', :t, true)"), {"t": previous})
