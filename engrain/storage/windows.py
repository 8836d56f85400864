"""The vectors of long memories' windows (engrain/text/windows.py says why; storage/models.MemoryWindow)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.db import advisory_key
from engrain.storage.vector_index import ensure_vector_index
from engrain.text.windows import WINDOWED_CHARS

Key = tuple[str, uuid.UUID]
WRITERS_LOCK = "engrain:windows"  # the advisory lock under which writers of windows take turns (set_windows)


async def long_contents(session: AsyncSession, keys: Sequence[Key]) -> list[tuple[Key, str]]:
    """The text of each long memory of `keys` (one forgotten meanwhile, or short, is passed over)."""
    rows = await session.execute(
        text(
            "SELECT m.user_id, m.id, m.content FROM unnest(CAST(:users AS text[]), CAST(:ids AS uuid[])) AS k(u, i) "
            "JOIN memories m ON m.user_id = k.u AND m.id = k.i WHERE char_length(m.content) > :long"
        ),
        {"users": [u for u, _ in keys], "ids": [i for _, i in keys], "long": WINDOWED_CHARS},
    )
    return [((r.user_id, r.id), r.content) for r in rows]


async def unwindowed(session: AsyncSession, embedder_id: str, limit: int) -> list[tuple[Key, str]]:
    """Up to `limit` long memories (all users) with no window of `embedder_id`: stored before windows were made,
    while a pass was stopped, or by another model. One scan of the table: a server runs it once, at start."""
    rows = await session.execute(
        text(
            "SELECT m.user_id, m.id, m.content FROM memories m WHERE char_length(m.content) > :long "
            "AND NOT EXISTS (SELECT FROM memory_windows w WHERE w.user_id = m.user_id AND w.id = m.id "
            "AND w.embedder = :e) LIMIT :n"
        ),
        {"long": WINDOWED_CHARS, "e": embedder_id, "n": limit},
    )
    return [((r.user_id, r.id), r.content) for r in rows]


async def set_windows(
    session: AsyncSession,
    embedder_id: str,
    dim: int,
    keys: Sequence[Key],
    numbers: Sequence[int],
    vectors: Sequence[str],
) -> None:
    """Store windows (one row per key, window number and vector text of `dim` numbers, in one statement),
    replacing every window of those memories another model made. A memory forgotten since its text was read, or
    being forgotten, is passed over.

    Writers of windows take turns (WRITERS_LOCK, first, so that a waiting one holds nothing): the pass of new
    memories and a server's start-up pass over those with none wake together when writes pause and pick the same
    memories, each in its own order; side by side, each held window rows the other wanted ("deadlock detected").
    Then the memories are locked, all at once and without waiting (FOR KEY SHARE SKIP LOCKED), and only those
    locked get windows: one a forget is deleting is left out, where the insert would wait for the forget while
    the forget waited for a memory the insert had checked (a deadlock), or fail its foreign key once the forget
    committed. A forget that comes later waits for this transaction, which waits for nobody."""
    if not keys:
        return
    await session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": advisory_key(WRITERS_LOCK)})
    await ensure_vector_index(session, embedder_id, dim, "memory_windows")  # holding no row lock while it waits
    live = await _lock_live(session, keys)
    kept = [n for n, key in enumerate(keys) if key in live]
    if not kept:
        return
    keys, numbers, vectors = [keys[n] for n in kept], [numbers[n] for n in kept], [vectors[n] for n in kept]
    users, ids = [u for u, _ in keys], [i for _, i in keys]
    await session.execute(
        text(
            "DELETE FROM memory_windows w USING unnest(CAST(:users AS text[]), CAST(:ids AS uuid[])) AS k(u, i) "
            "WHERE w.user_id = k.u AND w.id = k.i AND w.embedder <> :e"
        ),
        {"users": users, "ids": ids, "e": embedder_id},
    )
    await session.execute(
        text(
            "INSERT INTO memory_windows (user_id, id, window_no, embedder, embedding) "
            "SELECT w.u, w.i, w.n, :e, CAST(w.vec AS vector) FROM unnest(CAST(:users AS text[]), "
            "CAST(:ids AS uuid[]), CAST(:nos AS int[]), CAST(:vecs AS text[])) AS w(u, i, n, vec) "
            "ON CONFLICT (user_id, id, window_no) DO UPDATE SET embedder = excluded.embedder, "
            "embedding = excluded.embedding"
        ),
        {"e": embedder_id, "users": users, "ids": ids, "nos": list(numbers), "vecs": list(vectors)},
    )


async def _lock_live(session: AsyncSession, keys: Sequence[Key]) -> set[Key]:
    """Those of `keys` whose memory exists and could be locked at once (FOR KEY SHARE, the lock a window's foreign
    key takes: a memory's other writes do not conflict with it, a delete does)."""
    rows = await session.execute(
        text(
            "SELECT m.user_id, m.id FROM memories m WHERE (m.user_id, m.id) IN "
            "(SELECT * FROM unnest(CAST(:users AS text[]), CAST(:ids AS uuid[]))) FOR KEY SHARE SKIP LOCKED"
        ),
        {"users": [u for u, _ in keys], "ids": [i for _, i in keys]},
    )
    return {(r.user_id, r.id) for r in rows}


async def drop(session: AsyncSession, keys: Sequence[Key]) -> None:
    """Memories' texts changed (their secrets redacted): their windows read the old texts. The next server's pass
    makes them again (`unwindowed`)."""
    await session.execute(
        text(
            "DELETE FROM memory_windows w USING unnest(CAST(:users AS text[]), CAST(:ids AS uuid[])) AS k(u, i) "
            "WHERE w.user_id = k.u AND w.id = k.i"
        ),
        {"users": [u for u, _ in keys], "ids": [i for _, i in keys]},
    )
