"""Memory rows, their links and their history: every read and write is scoped by user_id.

An id that belongs to another user is indistinguishable from an unknown id, because
no query here ever selects by id alone.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, NamedTuple, TypedDict, cast

import anyio
from sqlalchemy import Column, Table, and_, exists, literal, or_, select, text, update
from sqlalchemy import cast as sql_cast
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.dialects.postgresql import Insert
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from engrain.reading.metadata import Key
from engrain.reading.speakers import REPLY
from engrain.rules import plans as plans_rules
from engrain.rules.digests import DIGEST, SUMMARIZES
from engrain.rules.traits import Stage
from engrain.storage.models import Memory, MemoryHistory, MemoryVector
from engrain.storage.sqltext import memory_behind, memory_passes, sql_literal, vector_literal
from engrain.storage.timeline import user_now_sql
from engrain.storage.traits import SampleRow, sample_sql
from engrain.storage.vector_index import ensure_vector_index
from engrain.text import fulltext

# The reasons the server itself writes on a forget row (never a user's words): a memory erased with the
# one forgotten, one that faded away (retention's delete mode), a provisional statement an extraction
# replaced.
REPLACED_BY_FORGOTTEN = "replaced by a forgotten memory"
FADED_AWAY = "retention: faded below the threshold"
REPLACED_BY_EXTRACTION = "replaced by the calling model's extraction"
# A topic digest holds the words of every memory it summarizes (rules/digests.py): it goes with any of them.
SUMMARIZED_A_FORGOTTEN = "a digest of a forgotten memory"
SERVER_FORGET_REASONS = (REPLACED_BY_FORGOTTEN, FADED_AWAY, REPLACED_BY_EXTRACTION, SUMMARIZED_A_FORGOTTEN)


def live(now: datetime) -> Any:
    """Rows that are still valid at `now` (not superseded, archived or expired)."""
    return or_(Memory.valid_until.is_(None), Memory.valid_until > now)


def stale_vector(embedder_id: str) -> Any:
    """Rows with no vector of `embedder_id` (none at all, or another model's): what a re-embedding redoes."""
    return ~exists().where(
        MemoryVector.user_id == Memory.user_id, MemoryVector.id == Memory.id, MemoryVector.embedder == embedder_id
    )


def missing_vector() -> Any:
    """Rows with no vector at all: stored while no model served (services/memories/writing.py)."""
    return ~exists().where(MemoryVector.user_id == Memory.user_id, MemoryVector.id == Memory.id)


def known(now: datetime) -> Any:
    """Rows told by `now` and still valid then, on the user's timeline: what the user had said by a moment (the
    profile as of a past date, in an imported history too: its rows were all stored on the day of the import).
    A row a correction replaced was valid until the correction was told; one archived, until it was archived.
    At the present moment the same rows as `live`."""
    replacement = aliased(Memory)
    replaced_at = (
        select(replacement.told_at)
        .where(replacement.user_id == Memory.user_id, replacement.id == Memory.superseded_by)
        .scalar_subquery()
    )
    valid = or_(
        Memory.valid_until.is_(None),
        and_(Memory.superseded_by.is_(None), Memory.valid_until > now),
        and_(Memory.superseded_by.is_not(None), replaced_at > now),
    )
    return and_(Memory.told_at <= now, valid)


async def get(session: AsyncSession, user_id: str, memory_id: uuid.UUID, *, for_update: bool = False) -> Memory | None:
    stmt = select(Memory).where(Memory.id == memory_id, Memory.user_id == user_id)
    return (await session.execute(stmt.with_for_update() if for_update else stmt)).scalar_one_or_none()


async def ids_with_prefix(session: AsyncSession, user_id: str, prefix: str, limit: int = 2) -> list[uuid.UUID]:
    """Up to `limit` of the user's memory ids (any kind, live or not) that start with the hex `prefix`:
    a range of the primary key, (user_id, id)."""
    low, high = uuid.UUID(prefix.ljust(32, "0")), uuid.UUID(prefix.ljust(32, "f"))
    stmt = (
        select(Memory.id)
        .where(Memory.user_id == user_id, Memory.id >= low, Memory.id <= high)
        .order_by(Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def get_many(session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID]) -> list[Memory]:
    if not ids:
        return []
    rows = await session.execute(select(Memory).where(Memory.id.in_(ids), Memory.user_id == user_id))
    return list(rows.scalars())


async def hold(session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
    """Which of these memories exist, each held (FOR KEY SHARE) until the transaction ends: a forget of one of
    them waits for it, so a row that refers to them (a link) never points at a memory deleted meanwhile."""
    if not ids:
        return set()
    rows = await session.execute(
        text("SELECT id FROM memories WHERE user_id = :u AND id = ANY(CAST(:ids AS uuid[])) FOR KEY SHARE"),
        {"u": user_id, "ids": list(ids)},
    )
    return set(rows.scalars())


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


class Neighbour(NamedTuple):
    """The live memory closest to a new text."""

    id: uuid.UUID
    similarity: float
    content: str
    content_hash: str
    event_time: datetime | None


async def nearest_live(
    session: AsyncSession,
    user_id: str,
    namespace: str,
    kind: str,
    embedder_id: str,
    dim: int,
    vector: list[float],
    now: datetime,
) -> Neighbour | None:
    """The most similar live memory of the same kind and embedder, with its cosine similarity."""
    return (await probe(session, user_id, namespace, kind, None, embedder_id, dim, vector, now))[1]


# A live memory of the probe's namespace and kind (the look-up behind each of the user's vectors).
_SAME_KIND_LIVE = "m.namespace = :ns AND m.kind = :kind AND (m.valid_until IS NULL OR m.valid_until > :now)"


async def probe(
    session: AsyncSession,
    user_id: str,
    namespace: str,
    kind: str,
    content_hash: str | None,
    embedder_id: str,
    dim: int,
    vector: list[float],
    now: datetime,
) -> tuple[uuid.UUID | None, Neighbour | None]:
    """What a new text would meet, in one statement: the live row with the same text (the one the
    unique index would collide with), and the most similar live memory of the same kind and embedder.

    The HNSW scan is iterative (storage/db.WRITE_CONNECTION_SETTINGS): without it, the index hands back its ef_search
    nearest rows of every user and kind, and when none of them passes the filters the look-up finds nothing."""
    cast_vector = f"CAST(:v AS vector({int(dim)}))"
    stmt = text(
        f"""
        SELECT (SELECT id FROM memories WHERE user_id = :user AND namespace = :ns AND kind = :kind
                AND content_hash = :h AND valid_until IS NULL) AS same_text,
               n.id, n.sim, n.content, n.content_hash, n.event_time
        FROM (SELECT 1) AS one LEFT JOIN LATERAL (
            SELECT v.id, 1 - (v.embedding::vector({int(dim)}) <=> {cast_vector}) AS sim, m.content, m.content_hash,
                   m.event_time
            FROM memory_vectors v{memory_behind("v", "m.content, m.content_hash, m.event_time", _SAME_KIND_LIVE)}
            WHERE v.embedder = {sql_literal(embedder_id)} AND v.user_id = :user
            ORDER BY v.embedding::vector({int(dim)}) <=> {cast_vector}
            LIMIT 1
        ) AS n ON true
        """
    )
    params: dict[str, Any] = {"v": vector_literal(vector), "user": user_id, "ns": namespace, "kind": kind, "now": now}
    params["h"] = content_hash
    row = (await session.execute(stmt, params)).one()
    near = Neighbour(row.id, float(row.sim), row.content, row.content_hash, row.event_time) if row.id else None
    return row.same_text, near


def _with_text_form(memory: Memory) -> Memory:
    """Give a new row its language's full-text form (a language already set, e.g. detected for
    enrichment, is kept)."""
    f = fulltext.form(memory.content, memory.lang)
    memory.lang, memory.ts_config, memory.search_text = f.lang, f.ts_config, f.search_text
    return memory


class Vector(NamedTuple):
    """A memory's vector and the id of the model that made it (stored in `memory_vectors`)."""

    embedder: str
    values: Sequence[float]


async def insert(session: AsyncSession, memory: Memory, vector: Vector | None) -> Memory:
    """One new row (the ORM's way: callers go on changing it in the same transaction) and its vector."""
    _with_text_form(memory)
    session.add(memory)
    await session.flush()
    await _insert_vectors(session, [(memory.user_id, memory.id, vector)])
    return memory


# The tables behind the models, for Core executemany (several times faster than flushing ORM objects).
_MEMORIES = cast(Table, Memory.__table__)
_VECTORS = cast(Table, MemoryVector.__table__)
_HISTORY = cast(Table, MemoryHistory.__table__)
_COLUMNS = [
    (attr.key, column.name)
    for attr in sa_inspect(Memory).column_attrs
    if isinstance(column := attr.columns[0], Column) and column.table is _MEMORIES and attr.key != "tsv"
]


def _column_values(memory: Memory) -> dict[str, Any]:
    """Column name → value of a new (unflushed) row; `tsv` is generated by the database."""
    return {column: getattr(memory, key) for key, column in _COLUMNS}


# Up to this many rows or vectors are put in their statement's form on the event loop; a larger batch in a
# worker thread: 2,000 rows' full-text forms (jieba for Chinese) and vector texts held the loop, and every other
# user's call, for a long time (docs/performance.md).
INLINE_ROWS = 128
# Rows per INSERT of a batch: SQLAlchemy builds each statement's parameters on the event loop (1,000 rows at once
# held it too long); chunks of this many let other users' calls run in between, at a few round trips more.
INSERT_CHUNK = 100


async def _formed(items: Sequence[Any], form: Callable[[Any], Any]) -> list[Any]:
    if len(items) <= INLINE_ROWS:
        return [form(item) for item in items]
    return await anyio.to_thread.run_sync(lambda: [form(item) for item in items])


async def _insert_vectors(session: AsyncSession, rows: Sequence[tuple[str, uuid.UUID, Vector | None]]) -> None:
    """Store the vectors of new rows, one statement per embedder (set_embeddings)."""
    by_embedder: dict[str, list[tuple[tuple[str, uuid.UUID], Sequence[float]]]] = {}
    for user_id, memory_id, v in rows:
        if v is not None:
            by_embedder.setdefault(v.embedder, []).append(((user_id, memory_id), v.values))
    for embedder_id, stored in by_embedder.items():
        await set_embeddings(session, embedder_id, [key for key, _ in stored], [values for _, values in stored])


def _insert_rows() -> Insert:
    """INSERT of new rows that skips one a concurrent writer already stored as live (same text, kind, namespace)."""
    return pg_insert(_MEMORIES).on_conflict_do_nothing(
        index_elements=["user_id", "namespace", "kind", "content_hash"], index_where=text("valid_until IS NULL")
    )


async def insert_many(
    session: AsyncSession, memories: Sequence[Memory], vectors: Sequence[Vector | None], now: datetime
) -> set[uuid.UUID]:
    """Insert rows (skipping any a concurrent writer already stored as live), the vectors of those
    inserted (`vectors[i]` is `memories[i]`'s) and their 'create' history; returns their ids. A Core
    executemany: several times faster than flushing ORM objects; one memory is one statement."""
    if not memories:
        return set()
    if len(memories) == 1:
        return await _insert_one(session, memories[0], vectors[0], now)
    stmt = _insert_rows().returning(_MEMORIES.c.id)
    values = await _formed(memories, lambda m: _column_values(_with_text_form(m)))
    inserted: set[uuid.UUID] = set()
    for start in range(0, len(values), INSERT_CHUNK):  # the event loop serves others between chunks
        result = await session.execute(stmt, values[start : start + INSERT_CHUNK])
        inserted.update(result.scalars().all())
    await _insert_vectors(
        session, [(m.user_id, m.id, v) for m, v in zip(memories, vectors, strict=True) if m.id in inserted]
    )
    history = [
        {
            "memory_id": m.id,
            "user_id": m.user_id,
            "action": "create",
            "new_content": m.content,
            "at": now,
            "old_content": None,
            "reason": None,
        }
        for m in memories
        if m.id in inserted
    ]
    for start in range(0, len(history), INSERT_CHUNK):
        await session.execute(pg_insert(_HISTORY), history[start : start + INSERT_CHUNK])
    return inserted


async def _insert_one(session: AsyncSession, memory: Memory, vector: Vector | None, now: datetime) -> set[uuid.UUID]:
    """The row, its vector and its 'create' history in one statement (data-modifying CTEs): a
    one-at-a-time `remember` pays one round trip and one plan where three statements paid three."""
    if vector is not None:
        await ensure_vector_index(session, vector.embedder, len(vector.values))
    row = (
        _insert_rows()
        .values(_column_values(_with_text_form(memory)))
        .returning(_MEMORIES.c.id, _MEMORIES.c.user_id)
        .cte("new_row")
    )
    history = pg_insert(_HISTORY).from_select(
        ["memory_id", "user_id", "action", "new_content", "at"],
        select(row.c.id, row.c.user_id, literal("create"), literal(memory.content), literal(now, _HISTORY.c.at.type)),
    )
    stmt = select(row.c.id).add_cte(history.cte("new_history"))
    if vector is not None:
        embedding = sql_cast(literal(vector_literal(vector.values)), _VECTORS.c.embedding.type)
        vector_row = select(row.c.user_id, row.c.id, literal(vector.embedder), embedding)
        stmt = stmt.add_cte(
            pg_insert(_VECTORS).from_select(["user_id", "id", "embedder", "embedding"], vector_row).cte("new_vector")
        )
    return set((await session.execute(stmt)).scalars().all())


async def live_by_hashes(
    session: AsyncSession, user_id: str, hashes: Sequence[str]
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


async def told_between(
    session: AsyncSession, user_id: str, start: datetime, end: datetime
) -> list[tuple[str, datetime]]:
    """The words and told times of the live memories (not traits nor digests) told in [start, end): what an
    import's near-duplicates are checked against (one index range on (user_id, told_at))."""
    rows = await session.execute(
        select(Memory.content, Memory.told_at).where(
            Memory.user_id == user_id,
            Memory.valid_until.is_(None),
            Memory.kind.not_in(("trait", DIGEST)),
            Memory.told_at >= start,
            Memory.told_at < end,
        )
    )
    return [(r.content, r.told_at) for r in rows]


async def of_source(session: AsyncSession, user_id: str, source: str, limit: int) -> list[Memory]:
    """The live memories (not traits) that came from one source, in the order they were told."""
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.source == source, Memory.valid_until.is_(None), Memory.kind != "trait")
        .order_by(Memory.told_at, Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def erase_sources(
    session: AsyncSession, user_id: str, sources: list[str], prefix: str | None, now: datetime, reason: str
) -> Erasure:
    """`erase` for every memory of these sources, or of every source that starts with `prefix` and a colon."""
    return await erase(
        session,
        "SELECT user_id, id FROM memories WHERE user_id = :u AND (source = ANY(:sources) OR "
        "(CAST(:prefix AS text) IS NOT NULL AND split_part(source, ':', 1) = :prefix AND position(':' IN source) > 0))",
        {"u": user_id, "sources": sources, "prefix": prefix},
        now,
        reason,
    )


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
    stage: str | None = None,
    confidence: float | None = None,
    user_at: datetime | None = None,
) -> None:
    values: dict[str, Any] = dict(
        user_at=user_at,
        memory_id=memory_id,
        user_id=user_id,
        action=action,
        old_content=old,
        new_content=new,
        reason=reason,
        stage=stage,
        confidence=confidence,
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
    """Count one access of each memory (duplicate remembers)."""
    await touch_counts(session, [(user_id, memory_id, 1, now) for memory_id in ids])


async def lock_user_writes(session: AsyncSession, user_id: str) -> None:
    """Serialise this transaction's writes with other writers of the same user until it ends, so that
    a count taken now still holds at commit (the memory quota)."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtextextended('engrain.quota:' || :u, 0))"), {"u": user_id}
    )


async def touch_counts(session: AsyncSession, accesses: Sequence[tuple[str, uuid.UUID, int, datetime]]) -> None:
    """Apply many (user, memory, times accessed, last access) in one statement."""
    if not accesses:
        return
    users, ids, counts, ats = (list(col) for col in zip(*accesses, strict=True))
    await session.execute(
        text(
            "UPDATE memories m SET access_count = m.access_count + v.n, "
            "last_accessed_at = greatest(coalesce(m.last_accessed_at, v.at), v.at) "
            "FROM unnest(CAST(:users AS text[]), CAST(:ids AS uuid[]), CAST(:ns AS int[]), "
            "CAST(:ats AS timestamptz[])) AS v(user_id, id, n, at) "
            "WHERE m.id = v.id AND m.user_id = v.user_id"
        ),
        {"users": users, "ids": ids, "ns": counts, "ats": ats},
    )


async def end_validity(
    session: AsyncSession, user_id: str, memory_id: uuid.UUID, now: datetime, superseded_by: uuid.UUID | None = None
) -> None:
    await session.execute(
        update(Memory)
        .where(Memory.id == memory_id, Memory.user_id == user_id)
        .values(valid_until=now, updated_at=now, superseded_by=superseded_by)
    )


async def set_pinned(session: AsyncSession, user_id: str, memory_id: uuid.UUID, pinned: bool, now: datetime) -> bool:
    """Pin or unpin a live memory; False when it already was (nothing written)."""
    result = await session.execute(
        update(Memory)
        .where(Memory.user_id == user_id, Memory.id == memory_id, Memory.pinned.is_not(pinned), live(now))
        .values(pinned=pinned, updated_at=now)
    )
    return bool(getattr(result, "rowcount", 0))


async def slot_holders(
    session: AsyncSession, user_id: str, slot: str, now: datetime
) -> list[tuple[uuid.UUID, str, datetime]]:
    """The user's live memories that fill `slot` (reading/slots.py): (id, value, told_at), by the slot index."""
    rows = await session.execute(
        text(
            f"SELECT id, metadata ->> '{Key.SLOT_VALUE}' AS value, told_at FROM memories "
            f"WHERE user_id = :u AND metadata ? '{Key.SLOT}' AND metadata ->> '{Key.SLOT}' = :slot "
            "AND (valid_until IS NULL OR valid_until > :now)"
        ),
        {"u": user_id, "slot": slot, "now": now},
    )
    return [(r.id, r.value, r.told_at) for r in rows]


async def facts_naming(
    session: AsyncSession, user_id: str, values: list[tuple[str, str]], told_by: datetime, now: datetime, limit: int
) -> list[list[Memory]]:
    """For each query (`(config, words)`: a value, or a domain's words joined by "or", as that text-search
    configuration reads them), the user's `limit` newest told live current facts that match it, told by `told_by`:
    what a statement that the user left that value, or changed a value of that domain, may end (reading/leaving.py
    and reading/changes.py decide among them). One statement for all of a batch's queries, each served by the GIN
    index."""
    if not values:
        return []
    rows = (
        await session.execute(
            text(
                "SELECT v.i, f.id FROM unnest(CAST(:configs AS text[]), CAST(:words AS text[])) WITH ORDINALITY"
                " AS v(config, words, i) CROSS JOIN LATERAL (SELECT m.id FROM memories m WHERE m.user_id = :u"
                " AND m.tsv @@ websearch_to_tsquery(CAST(v.config AS regconfig), v.words) AND m.kind = 'fact'"
                " AND m.temporality = 'current' AND (m.valid_until IS NULL OR m.valid_until > :now)"
                " AND m.told_at <= :told ORDER BY m.told_at DESC, m.id LIMIT :limit) f"
            ),
            {
                "u": user_id,
                "configs": [c for c, _ in values],
                "words": [w for _, w in values],
                "now": now,
                "told": told_by,
                "limit": limit,
            },
        )
    ).all()
    found = {m.id: m for m in await get_many(session, user_id, [memory_id for _, memory_id in rows])} if rows else {}
    out: list[list[Memory]] = [[] for _ in values]
    for position, memory_id in rows:
        if memory_id in found:
            out[int(position) - 1].append(found[memory_id])
    return out


async def replace_value(
    session: AsyncSession, user_id: str, old_id: uuid.UUID, new_id: uuid.UUID, key: str, now: datetime
) -> None:
    """`new_id` holds the value of `key` that `old_id` held; the old memory stays live for the rest of what it
    says, no longer holds the key (its value is kept: erasing `new_id` gives the key back, see `erase`), and
    says what holds it now. One statement, with its history row."""
    await session.execute(
        text(f"""
        WITH upd AS (
            UPDATE memories SET updated_at = :now, metadata = (coalesce(metadata, '{{}}'::jsonb)
                - '{Key.SLOT}' - '{Key.MAY_REPLACE}')
                || jsonb_build_object('{Key.REPLACED_KEY}', CAST(:k AS text), '{Key.REPLACED_BY}', CAST(:new AS text))
            WHERE user_id = :u AND id = :old RETURNING id)
        INSERT INTO memory_history (memory_id, user_id, action, reason, at)
        SELECT id, :u, 'replace_value', 'its ' || CAST(:k AS text) || ' replaced by ' || CAST(:new AS text), :now
        FROM upd"""),
        {"k": key, "new": str(new_id), "u": user_id, "old": old_id, "now": now},
    )


async def set_slot(session: AsyncSession, user_id: str, memory_id: uuid.UUID, key: str, value: str) -> None:
    """A stored memory holds `key` with `value` (reading/slots.py): a later value of it replaces the memory."""
    await session.execute(
        text(
            f"UPDATE memories SET metadata = coalesce(metadata, '{{}}'::jsonb) || jsonb_build_object("
            f"'{Key.SLOT}', CAST(:k AS text), '{Key.SLOT_VALUE}', CAST(:v AS text)) WHERE user_id = :u AND id = :i"
        ),
        {"k": key, "v": value, "u": user_id, "i": memory_id},
    )


async def mark_may_replace(session: AsyncSession, user_id: str, memory_id: uuid.UUID, holder: uuid.UUID) -> None:
    """Note on a stored memory which live memory it may replace (`metadata.may_replace`, read by reflection)."""
    await session.execute(
        text(
            "UPDATE memories SET metadata = coalesce(metadata, '{}'::jsonb) "
            f"|| jsonb_build_object('{Key.MAY_REPLACE}', CAST(:h AS text)) WHERE user_id = :u AND id = :i"
        ),
        {"h": str(holder), "u": user_id, "i": memory_id},
    )


# A live memory of the replaced one's kind, other than it and its replacement, behind a vector row `v`.
_LIVE_PARAPHRASE = memory_passes(
    "v", "m.kind = o.kind AND m.id NOT IN (o.id, :new) AND (m.valid_until IS NULL OR m.valid_until > :now)"
)


async def supersede(
    session: AsyncSession, user_id: str, old_id: uuid.UUID, new_id: uuid.UUID, now: datetime, paraphrase: float
) -> list[uuid.UUID]:
    """`new_id` replaces `old_id`: the old memory ends (it leaves recall) and says by what, and so do its
    live near-paraphrases (same kind and embedder, cosine ≥ `paraphrase`): once "I live in Berlin" is
    replaced, "I live in Berlin, Germany" must not outrank the new fact. One statement; returns the ids
    retired."""
    rows = await session.execute(
        text(f"""
        WITH old AS (SELECT m.id, m.kind, v.embedder, v.embedding FROM memories m
                     LEFT JOIN memory_vectors v ON v.user_id = m.user_id AND v.id = m.id
                     WHERE m.id = :old AND m.user_id = :u),
        retired AS (
            SELECT o.id FROM old o
            UNION
            SELECT v.id FROM old o JOIN memory_vectors v ON v.user_id = :u AND v.embedder = o.embedder
            WHERE 1 - (v.embedding <=> o.embedding) >= :paraphrase AND {_LIVE_PARAPHRASE}),
        upd AS (UPDATE memories m SET valid_until = :now, updated_at = :now, superseded_by = :new
                FROM retired r WHERE m.id = r.id AND m.user_id = :u RETURNING m.id),
        hist AS (INSERT INTO memory_history (memory_id, user_id, action, reason, at)
                 SELECT id, :u, 'supersede', 'superseded by ' || CAST(:new AS text), :now FROM upd RETURNING 1)
        SELECT id FROM upd ORDER BY id"""),
        {"old": old_id, "new": new_id, "u": user_id, "now": now, "paraphrase": paraphrase},
    )
    return [r.id for r in rows]


async def retire_uncited(
    session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID], now: datetime, reason: str
) -> list[uuid.UUID]:
    """Of these memories, end the ones a trait cites as evidence (they leave recall; the trait keeps what it
    rests on, with a history row saying why) and return the others, for the caller to erase. One statement."""
    rows = await session.execute(
        text("""
        WITH cited AS (SELECT DISTINCT memory_id AS id FROM trait_evidence
                       WHERE user_id = :u AND memory_id = ANY(:ids)),
        upd AS (UPDATE memories m SET valid_until = :now, updated_at = :now
                FROM cited c WHERE m.user_id = :u AND m.id = c.id AND m.valid_until IS NULL RETURNING m.id),
        hist AS (INSERT INTO memory_history (memory_id, user_id, action, reason, at)
                 SELECT id, :u, 'supersede', :reason, :now FROM upd RETURNING 1)
        SELECT id FROM unnest(CAST(:ids AS uuid[])) AS t(id) WHERE id NOT IN (SELECT id FROM cited)"""),
        {"u": user_id, "ids": list(ids), "now": now, "reason": reason},
    )
    return [r.id for r in rows]


async def reinstate_superseded(session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID], now: datetime) -> int:
    """The memories these ones replaced hold again (valid_until and superseded_by cleared, a history row each):
    for replacements withdrawn before they are erased — a provisional statement the model's extraction
    replaces. Erasing it would otherwise take the user's older words with it, as `forget` takes every earlier
    version of what it forgets. One statement; returns how many came back."""
    rows = await session.execute(
        text("""
        WITH upd AS (UPDATE memories m SET valid_until = NULL, superseded_by = NULL, updated_at = :now
                     WHERE m.user_id = :u AND m.superseded_by = ANY(CAST(:ids AS uuid[]))
                       AND m.id <> ALL(CAST(:ids AS uuid[])) RETURNING m.id),
        hist AS (INSERT INTO memory_history (memory_id, user_id, action, reason, at)
                 SELECT id, :u, 'reinstate', 'what replaced it was withdrawn', :now FROM upd RETURNING 1)
        SELECT count(*) FROM upd"""),
        {"u": user_id, "ids": list(ids), "now": now},
    )
    return int(rows.scalar() or 0)


def _erase_sql(doomed_sql: str, digests: bool) -> str:
    summaries = (
        "SELECT l.user_id, l.source_id AS id FROM memory_links l JOIN doomed d ON d.user_id = l.user_id"
        f" WHERE l.target_id = d.id AND l.relation = '{SUMMARIZES}'"
        if digests
        else "SELECT NULL::text AS user_id, NULL::uuid AS id WHERE false"
    )
    return f"""
    WITH RECURSIVE doomed AS ({doomed_sql}),
    digests AS ({summaries}),
    chain AS (
        SELECT m.id, m.user_id FROM memories m WHERE (m.user_id, m.id) IN (SELECT user_id, id FROM doomed)
        UNION
        SELECT m.id, m.user_id FROM memories m
        WHERE (m.user_id, m.id) IN (SELECT user_id, id FROM digests) AND m.kind = '{DIGEST}'
        UNION
        SELECT m.id, m.user_id FROM memories m JOIN chain c ON m.superseded_by = c.id AND m.user_id = c.user_id),
    rows AS (SELECT m.id, m.user_id, m.content FROM memories m JOIN chain c ON c.id = m.id),
    touched AS (
        SELECT DISTINCT e.user_id, e.trait_id FROM trait_evidence e
        JOIN chain c ON c.user_id = e.user_id AND c.id = e.memory_id
        WHERE e.polarity = 'supporting'),
    scrubbed AS (DELETE FROM memory_history h USING chain c WHERE h.memory_id = c.id AND h.user_id = c.user_id
                 RETURNING 1),
    gone AS (DELETE FROM memories m USING chain c WHERE m.id = c.id AND m.user_id = c.user_id
             RETURNING m.id, m.user_id),
    -- A memory whose key an erased one had replaced holds it again (a provisional statement an extraction
    -- replaces, a correction the user forgets): its value was kept for this. (A data-modifying CTE runs
    -- whether or not the query reads it.)
    restored AS (
        UPDATE memories m SET metadata = (m.metadata - '{Key.REPLACED_KEY}' - '{Key.REPLACED_BY}')
            || jsonb_build_object('{Key.SLOT}', m.metadata ->> '{Key.REPLACED_KEY}')
        FROM gone g
        WHERE m.user_id = g.user_id AND m.metadata ->> '{Key.REPLACED_BY}' = CAST(g.id AS text)
          AND (m.user_id, m.id) NOT IN (SELECT user_id, id FROM chain)
        RETURNING 1),
    hist AS (
        INSERT INTO memory_history (memory_id, user_id, action, reason, at)
        SELECT g.id, g.user_id, 'forget',
               CASE WHEN (g.user_id, g.id) IN (SELECT user_id, id FROM doomed) THEN CAST(:reason AS text)
                    WHEN (g.user_id, g.id) IN (SELECT user_id, id FROM digests) THEN '{SUMMARIZED_A_FORGOTTEN}'
                    ELSE '{REPLACED_BY_FORGOTTEN}' END, :now
        FROM gone g RETURNING 1)
    SELECT (SELECT count(*) FROM gone) AS deleted, (SELECT count(*) FROM scrubbed) AS history_erased,
           (SELECT coalesce(array_agg(user_id), '{{}}') FROM touched) AS touched_users,
           (SELECT coalesce(array_agg(trait_id), '{{}}') FROM touched) AS touched,
           (SELECT coalesce(array_agg(id ORDER BY id), '{{}}') FROM gone) AS ids, {sample_sql("rows")}
    """


class Erasure(TypedDict):
    """What an erasure removed: memories and history rows, and the traits it left without support."""

    deleted: int
    history_erased: int
    ids: list[uuid.UUID]
    traits_dissolved: list[uuid.UUID]
    sample: list[SampleRow]


async def erase(
    session: AsyncSession,
    doomed_sql: str,
    params: dict[str, Any],
    now: datetime,
    reason: str | None,
    *,
    digests: bool = True,
) -> Erasure:
    """Forget, for good, the memories `doomed_sql` selects (a query returning `user_id, id`), and everything that
    holds their words: their history (creates, merges, edits), the topic digests that summarize them, and the
    memories they replaced (followed through `superseded_by`: a digest's older versions too) with theirs. Links
    and trait evidence go by ON DELETE CASCADE; each erased memory keeps one history row saying only that it
    was forgotten. Traits left without supporting evidence dissolve. One statement for the erasure, one for the
    dissolution. `digests` False (retention's fading): the digests stay — a summary is how a faded memory is still
    known; only a forget must take its words from them."""
    sql = _erase_sql(doomed_sql, digests)
    row = (await session.execute(text(sql), {**params, "now": now, "reason": reason})).one()
    dissolved = await dissolve_unsupported(
        session,
        list(zip(row.touched_users, row.touched, strict=True)),
        now,
        "lost its last supporting evidence (a memory was forgotten)",
    )
    return Erasure(
        deleted=int(row.deleted),
        history_erased=int(row.history_erased),
        ids=list(row.ids),
        traits_dissolved=dissolved,
        sample=row.sample,
    )


async def erase_ids(
    session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID], now: datetime, reason: str | None
) -> Erasure:
    """`erase` for these memories of one user."""
    return await erase(
        session,
        "SELECT CAST(:u AS text) AS user_id, unnest(CAST(:ids AS uuid[])) AS id",
        {"u": user_id, "ids": list(ids)},
        now,
        reason,
    )


async def dissolve_unsupported(
    session: AsyncSession, traits: Sequence[tuple[str, uuid.UUID]], now: datetime, reason: str
) -> list[uuid.UUID]:
    """Dissolve those of `traits` (user, id) that no supporting evidence is left for; return their ids."""
    if not traits:
        return []
    rows = await session.execute(
        text(f"""
        WITH upd AS (
            UPDATE memories m SET trait_stage = '{Stage.DISSOLVED}', valid_until = :now, updated_at = :now
            WHERE (m.user_id, m.id) IN (SELECT * FROM unnest(CAST(:users AS text[]), CAST(:ids AS uuid[])))
              AND m.kind = 'trait' AND m.trait_stage <> '{Stage.DISSOLVED}'
              AND NOT EXISTS (SELECT 1 FROM trait_evidence e
                              WHERE e.user_id = m.user_id AND e.trait_id = m.id AND e.polarity = 'supporting')
            RETURNING m.id, m.user_id),
        hist AS (
            INSERT INTO memory_history (memory_id, user_id, action, reason, at, stage, user_at)
            SELECT id, user_id, 'dissolve', :reason, :now, '{Stage.DISSOLVED}', {user_now_sql("upd.user_id")}
            FROM upd RETURNING 1)
        SELECT id FROM upd ORDER BY id"""),
        {"users": [u for u, _ in traits], "ids": [t for _, t in traits], "now": now, "reason": reason},
    )
    return [r.id for r in rows]


async def recent(
    session: AsyncSession, user_id: str, now: datetime, limit: int, *, users_own: bool = False
) -> list[Memory]:
    """The newest told memories (`users_own`: not what an assistant said); never a trait or a digest, which a
    reflection wrote."""
    left_out = ("trait", DIGEST, REPLY) if users_own else ("trait", DIGEST)
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.kind.not_in(left_out), known(now))
        .order_by(Memory.created_at.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def pinned(session: AsyncSession, user_id: str, now: datetime) -> list[Memory]:
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.pinned.is_(True), Memory.kind != "trait", known(now))
        .order_by(Memory.importance.desc(), Memory.created_at)
    )
    return list((await session.execute(stmt)).scalars())


async def intentions(session: AsyncSession, user_id: str, now: datetime) -> list[Memory]:
    """Live prospective memories, soonest first (undated ones last)."""
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.temporality == "prospective", known(now))
        .order_by(Memory.event_time.asc().nulls_last(), Memory.created_at)
    )
    return list((await session.execute(stmt)).scalars())


async def plans_around(
    session: AsyncSession, user_id: str, now: datetime, at: datetime, limit: int
) -> tuple[list[Memory], list[Memory]]:
    """The first `limit` plans known at `now` on each side of the user's moment `at`: (upcoming, soonest
    first and undated last; overdue, oldest first) — what a profile shows, read through the plans' index
    however many plans there are, where `intentions` reads them all."""
    plans = select(Memory).where(Memory.user_id == user_id, Memory.temporality == "prospective", known(now))
    # A plan is overdue once its whole period is over ("next month" is not overdue on its 2nd); an undated one
    # told long before `at` lapsed and is neither (rules/plans.py).
    over = plans_rules.over_sql("CAST(:at AS timestamptz)", "memories")
    lapsed = plans_rules.lapsed_sql("CAST(:at AS timestamptz)", "memories")
    upcoming = plans.where(text(f"NOT coalesce({over}, false) AND NOT {lapsed}").bindparams(at=at))
    upcoming = upcoming.order_by(Memory.event_time.asc().nulls_last(), Memory.created_at)
    overdue = plans.where(text(over).bindparams(at=at)).order_by(Memory.event_time, Memory.created_at)
    return (
        list((await session.execute(upcoming.limit(limit))).scalars()),
        list((await session.execute(overdue.limit(limit))).scalars()),
    )


async def plans_between(
    session: AsyncSession, user_id: str, start: datetime, end: datetime, now: datetime
) -> list[Memory]:
    """Live prospective memories dated in [start, end), soonest first (the (user_id, event_time) index)."""
    stmt = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.temporality == "prospective",
            Memory.event_time >= start,
            Memory.event_time < end,
            live(now),
        )
        .order_by(Memory.event_time, Memory.created_at)
    )
    return list((await session.execute(stmt)).scalars())


async def stale_embeddings(
    session: AsyncSession, embedder_id: str, limit: int, *, missing_only: bool = False
) -> list[tuple[tuple[str, uuid.UUID], str]]:
    """A batch of rows (any user) whose vector was not made by `embedder_id` (or that have none; with
    `missing_only`, only those that have none): ((user, id), content)."""
    rows = await session.execute(
        select(Memory.user_id, Memory.id, Memory.content)
        .where(missing_vector() if missing_only else stale_vector(embedder_id))
        .order_by(Memory.user_id, Memory.id)
        .limit(limit)
    )
    return [((r.user_id, r.id), r.content) for r in rows]


async def set_embeddings(
    session: AsyncSession,
    embedder_id: str,
    keys: Sequence[tuple[str, uuid.UUID]],
    vectors: Sequence[Sequence[float]],
) -> None:
    """Store many vectors, each for its (user, id), in one statement (replacing another model's). A memory
    forgotten since its text was read for a re-embedding is passed over."""
    if not keys:
        return
    await ensure_vector_index(session, embedder_id, len(vectors[0]))
    await session.execute(
        text(
            "INSERT INTO memory_vectors (user_id, id, embedder, embedding) "
            "SELECT v.user_id, v.id, :e, CAST(v.vec AS vector) "
            "FROM unnest(CAST(:users AS text[]), CAST(:ids AS uuid[]), CAST(:vecs AS text[])) AS v(user_id, id, vec) "
            "WHERE EXISTS (SELECT 1 FROM memories m WHERE m.user_id = v.user_id AND m.id = v.id) "
            "ON CONFLICT (user_id, id) DO UPDATE SET embedder = excluded.embedder, embedding = excluded.embedding"
        ),
        {
            "e": embedder_id,
            "users": [u for u, _ in keys],
            "ids": [i for _, i in keys],
            "vecs": await _formed(vectors, vector_literal),
        },
    )
