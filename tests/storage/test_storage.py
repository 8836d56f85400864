"""Schema migrations (idempotent, concurrent-safe) and index use by the recall statement."""

from __future__ import annotations

import json
import logging
import uuid
from datetime import UTC, datetime
from typing import Any

import anyio
import pytest
from sqlalchemy import event, text

from engrain.reading.enrich import content_hash
from engrain.services.memories.requests import RememberRequest
from engrain.storage import db as db_module
from engrain.storage import memories as repo
from engrain.storage.db import Database, _alembic_upgrade, async_url
from engrain.storage.models import Memory
from engrain.storage.recall import RecallFilter, RecallQuery
from engrain.storage.vector_index import vector_index_name
from engrain.text.fulltext import query_form
from tests.conftest import call, connect, execute

pytestmark = pytest.mark.anyio


def head_revision() -> str:
    """The newest migration in the package (the one a fresh database must reach)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from engrain.storage.db import MIGRATIONS_DIR

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


async def test_concurrent_migrations_on_an_empty_database(fresh_database_url, settings_factory):
    settings = settings_factory(database_url=fresh_database_url)
    opened: list[Database] = []

    async def open_one() -> None:
        opened.append(await Database.open(settings))

    async with anyio.create_task_group() as tg:
        for _ in range(4):
            tg.start_soon(open_one)
    again = await Database.open(settings)  # idempotent: nothing left to do
    async with again.engine.connect() as conn:
        assert (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar() == head_revision()
        options = (await conn.execute(text("SELECT reloptions FROM pg_class WHERE relname = 'memories'"))).scalar()
        assert options == ["fillfactor=90"]
        tables = set(
            (await conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))).scalars()
        )
    assert {
        "memories",
        "memory_links",
        "trait_evidence",
        "reflection_cycles",
        "memory_history",
        "user_state",
        "job_runs",
    } <= tables
    for db in [*opened, again]:
        await db.close()


async def test_embedded_server_starts_with_engrains_tuning(settings_factory, tmp_path):
    db = await Database.open(settings_factory(database_url=None, home=tmp_path / "embedded", pg_shared_buffers="160MB"))
    try:
        async with db.engine.connect() as conn:
            assert (await conn.execute(text("SHOW shared_buffers"))).scalar() == "160MB"
            assert (await conn.execute(text("SHOW jit"))).scalar() == "off"
    finally:
        await db.close()


def test_async_url_accepts_what_users_paste():
    assert async_url("postgres://u:p@h:5432/d") == "postgresql+asyncpg://u:p@h:5432/d"
    assert async_url("postgresql://u@h/d").startswith("postgresql+asyncpg://")
    assert len(vector_index_name("openai-compatible:" + "x" * 200)) <= 63


async def test_recall_statement_can_use_hnsw_and_gin_indexes(session):
    client, app = session
    for i in range(60):
        await call(client, "remember", content=f"Index check memory number {i} about topic {i % 7}")
    await call(client, "remember", content="A rare word: xylophone")
    model = await app.embeddings.ready()
    vector = (await app.embeddings.embed(["topic 3"]))[1][0]
    # Enough rows of this user that filtering by user alone is unselective, with real statistics.
    await execute(
        app,
        "WITH added AS (INSERT INTO memories (id, user_id, kind, content, content_hash) "
        "SELECT gen_random_uuid(), :u, 'fact', 'filler memory ' || g, md5('filler' || g) "
        "FROM generate_series(1, 3000) g RETURNING user_id, id) "
        "INSERT INTO memory_vectors (user_id, id, embedder, embedding) SELECT user_id, id, :e, "
        "(SELECT array_agg(random() - 0.5)::vector FROM generate_series(1, :dim) d WHERE a.id IS NOT NULL) "
        "FROM added a",
        u=app.settings.user,
        e=model.id,
        dim=model.dim,
    )
    await execute(app, "ANALYZE memories")
    await execute(app, "ANALYZE memory_vectors")
    sql, params = RecallQuery(
        user_id=app.settings.user,
        query=query_form("xylophone"),
        vector=vector,
        embedder_id=model.id,
        dim=model.dim,
        flt=RecallFilter(),
        now=app.clock(),
        decay_seconds=86400.0,
        limit=10,
        pool=50,
    ).statement()
    assert (params["qcfg"], params["qtext"], params["qterms"]) == ("english", "xylophone", "xylophone")
    db = await app.database()

    async def plan(*disabled: str) -> str:
        async with db.sessions.begin() as s:
            for setting in disabled:
                await s.execute(text(f"SET LOCAL {setting} = off"))
            return "\n".join((await s.execute(text("EXPLAIN " + sql), params)).scalars())

    # A sequential scan may still be cheapest here; forbid plan shapes to prove the indexes match the query.
    assert f"Index Scan using {vector_index_name(model.id)}" in await plan("enable_seqscan")
    assert "Bitmap Index Scan on ix_memories_tsv" in await plan("enable_seqscan", "enable_indexscan")


def rows_read(node: dict[str, Any]) -> float:
    """The rows a plan (EXPLAIN ANALYZE, JSON) read from the user tables, and compared in joins, over all loops."""
    loops = node.get("Actual Loops", 1)
    own = node.get("Rows Removed by Join Filter", 0)
    if node.get("Relation Name") in ("memories", "memory_vectors"):
        own += node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)
    return own * loops + sum(rows_read(child) for child in node.get("Plans", []))


async def users_in_statistics(app) -> str:
    """The most common `user_id` values of memories as ANALYZE last saw them (empty before any)."""
    db = await app.database()
    async with db.engine.connect() as conn:
        found = await conn.scalar(
            text("SELECT most_common_vals::text FROM pg_stats WHERE tablename = 'memories' AND attname = 'user_id'")
        )
    return found or ""


async def test_a_user_the_statistics_do_not_list_is_read_by_key(settings_factory, fresh_database_url):
    """A user who joined after the last ANALYZE, when the statistics list every earlier user, is estimated
    at one row. The duplicate probe of a remember and the recall statement must still look each memory up
    by its key: a join planned on that estimate read every row of the user's for each of their vectors
    (storage/sqltext.memory_behind), rows read growing with the square of the user's memories."""
    async with connect(settings_factory(database_url=fresh_database_url)) as (client, app):
        db = await app.database()
        for table in ("memories", "memory_vectors"):
            await execute(app, f"ALTER TABLE {table} SET (autovacuum_enabled = off)")  # no ANALYZE mid-test
        earlier = [RememberRequest(content=f"An earlier user's note {i} about the garden") for i in range(100)]
        await app.memories.remember_many("earlier-user", earlier)
        await app.drain()
        await execute(app, "ANALYZE memories")
        await execute(app, "ANALYZE memory_vectors")
        sent: dict[str, tuple[str, Any]] = {}

        def keep(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
            if "same_text" in statement:
                sent["probe"] = (statement, parameters)
            elif "vec AS" in statement:
                sent["recall"] = (statement, parameters)

        told = 300
        items = [{"content": f"I planted tomato number {i} in the garden bed by the fence"} for i in range(told)]
        # Held as autovacuum holds a table it works on: the refresh after the import gives up at once.
        async with db.engine.begin() as holder:
            await holder.execute(text("LOCK TABLE memories, memory_vectors IN SHARE UPDATE EXCLUSIVE MODE"))
            await call(client, "remember_many", items=items)
            for engine in (db.engine, db.reader):
                event.listen(engine.sync_engine, "before_cursor_execute", keep)
            await call(client, "remember", content="I planted basil next to the tomatoes")
            await call(client, "recall", query="what did I plant in the garden")
            await app.drain()
        assert set(sent) == {"probe", "recall"}
        assert "earlier-user" in await users_in_statistics(app)
        assert app.settings.user not in await users_in_statistics(app)  # the case under test
        async with db.reader.connect() as conn:
            for name, (statement, parameters) in sent.items():
                plan = await conn.exec_driver_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + statement, parameters)
                read = rows_read(plan.scalar()[0]["Plan"])
                # In proportion to the user's memories (a few passes over them), not to their square (>45,000).
                assert read < 12 * told, (name, read)


async def test_an_import_brings_the_statistics_up_to_date(settings_factory, fresh_database_url):
    """Right after a large batch, the tables are analyzed if autovacuum would analyze them (storage/analyze.py),
    instead of at its next round up to a minute later: the new user's statements are planned on their size."""
    async with connect(settings_factory(database_url=fresh_database_url)) as (client, app):
        for table in ("memories", "memory_vectors"):
            await execute(app, f"ALTER TABLE {table} SET (autovacuum_enabled = off)")  # only engrain analyzes
        assert app.settings.user not in await users_in_statistics(app)
        items = [{"content": f"I planted tomato number {i} in the garden bed by the fence"} for i in range(150)]
        await call(client, "remember_many", items=items)
        await app.drain()
        assert app.settings.user in await users_in_statistics(app)
        db = await app.database()
        async with db.engine.connect() as conn:
            analyzed = await conn.execute(
                text("SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL ORDER BY relname")
            )
            assert {"memories", "memory_vectors"} <= set(analyzed.scalars())


async def test_after_a_refresh_the_statistics_rest_for_a_multiple_of_its_time(
    settings_factory, fresh_database_url, monkeypatch
):
    """Each batch that changes the tables enough is followed by an ANALYZE, but not within
    REFRESH_QUIET_FACTOR times the last one's duration: a long import into a large database would otherwise
    spend a core on ANALYZE (34-36 of them in a 100,000-memory import). The factor is set to 0 (no rest),
    then to a million (a rest longer than the test)."""

    async def analyze_count(app: Any) -> int:
        db = await app.database()
        async with db.engine.connect() as conn:
            count = "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'memories'"
            return int((await conn.execute(text(count))).scalar_one())

    async with connect(settings_factory(database_url=fresh_database_url)) as (client, app):
        for table in ("memories", "memory_vectors"):
            await execute(app, f"ALTER TABLE {table} SET (autovacuum_enabled = off)")  # only engrain analyzes
        counts: list[int] = []
        for batch, factor in enumerate((0, 0, 10**6, 10**6)):
            monkeypatch.setattr(db_module, "REFRESH_QUIET_FACTOR", factor)
            items = [{"content": f"Batch {batch}: I planted tomato number {i} by the fence"} for i in range(150)]
            await call(client, "remember_many", items=items)
            await app.drain()
            counts.append(await analyze_count(app))
        assert counts == [1, 2, 3, 3]


async def test_the_language_migration_gives_existing_rows_their_language(fresh_database_url):
    """Rows written before 0006 get their language and index form; Chinese becomes findable by word."""
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(async_url(fresh_database_url))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: _alembic_upgrade(c, "0005"))
            for content in ("我上周三去了北京出差", "Nächsten Monat ziehe ich nach Hamburg.", "I love sushi"):
                await conn.execute(
                    text(
                        "INSERT INTO memories (id, user_id, namespace, kind, content, content_hash, importance, tags,"
                        " temporality, pinned, access_count, metadata) VALUES (gen_random_uuid(), 'u', 'default',"
                        " 'fact', :c, md5(:c), 5, '{}', 'current', false, 0, '{}')"
                    ),
                    {"c": content},
                )
            before = (
                await conn.execute(text("SELECT count(*) FROM memories WHERE tsv @@ to_tsquery('english', '北京')"))
            ).scalar()
            await conn.run_sync(_alembic_upgrade)
            rows = dict((await conn.execute(text("SELECT lang, ts_config::text FROM memories"))).all())
            found = (
                (
                    await conn.execute(
                        text("SELECT content FROM memories WHERE tsv @@ websearch_to_tsquery('english', '北京')")
                    )
                )
                .scalars()
                .all()
            )
    finally:
        await engine.dispose()
    assert before == 0
    assert rows == {"zh": "english", "de": "german", "en": "english"}
    assert found == ["我上周三去了北京出差"]


async def test_the_pairs_migration_reindexes_old_chinese_rows(fresh_database_url):
    """A Chinese row indexed before 0012 by jieba's words alone (二丫 cut wrongly) gains the character pairs
    a new row has, so the name matches in an old memory too; other rows are left as they are."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from engrain.text.fulltext import form

    content = "二丫说她下个月去杭州"
    words_only = "二丫 说 下个月 杭州"  # the form an older engrain wrote: no pairs
    engine = create_async_engine(async_url(fresh_database_url))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: _alembic_upgrade(c, "0011"))
            for text_, lang, search in ((content, "zh", words_only), ("I love sushi", "en", None)):
                await conn.execute(
                    text(
                        "INSERT INTO memories (id, user_id, namespace, kind, content, content_hash, importance, tags,"
                        " temporality, pinned, access_count, metadata, lang, search_text) VALUES (gen_random_uuid(),"
                        " 'u', 'default', 'fact', :c, md5(:c), 5, '{}', 'current', false, 0, '{}', :l, :s)"
                    ),
                    {"c": text_, "l": lang, "s": search},
                )
            await conn.run_sync(_alembic_upgrade)
            rows = dict((await conn.execute(text("SELECT content, search_text FROM memories"))).all())
    finally:
        await engine.dispose()
    assert rows == {content: form(content, "zh").search_text, "I love sushi": None}
    assert rows[content] != words_only


async def test_the_vectors_migration_moves_stored_vectors_and_their_index(fresh_database_url):
    """Vectors stored inline before 0013 move to memory_vectors with their embedder, the old per-embedder
    index on memories goes and the new one is built; a row without a vector gets none."""
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(async_url(fresh_database_url))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: _alembic_upgrade(c, "0012"))
            for content, embedder, vector in (("I love sushi", "test:a", "[1,0,0]"), ("no vector yet", None, None)):
                await conn.execute(
                    text(
                        "INSERT INTO memories (id, user_id, namespace, kind, content, content_hash, importance, tags,"
                        " temporality, pinned, access_count, metadata, embedder, embedding) VALUES"
                        " (gen_random_uuid(), 'u', 'default', 'fact', :c, md5(:c), 5, '{}', 'current', false, 0,"
                        " '{}', :e, CAST(:v AS vector))"
                    ),
                    {"c": content, "e": embedder, "v": vector},
                )
            await conn.execute(
                text(
                    "CREATE INDEX ix_memories_hnsw_test_a_0 ON memories USING hnsw ((embedding::vector(3))"
                    " vector_cosine_ops) WHERE embedder = 'test:a'"
                )
            )
            await conn.run_sync(_alembic_upgrade)
            moved = (
                await conn.execute(
                    text(
                        "SELECT m.content, v.embedder, v.embedding::text FROM memory_vectors v"
                        " JOIN memories m ON m.user_id = v.user_id AND m.id = v.id"
                    )
                )
            ).all()
            indexes = set(
                (await conn.execute(text("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%hnsw%'"))).scalars()
            )
            columns = set(
                (
                    await conn.execute(
                        text("SELECT column_name FROM information_schema.columns WHERE table_name = 'memories'")
                    )
                ).scalars()
            )
    finally:
        await engine.dispose()
    assert [tuple(r) for r in moved] == [("I love sushi", "test:a", "[1,0,0]")]
    assert indexes == {vector_index_name("test:a")}
    assert not {"embedding", "embedder"} & columns


def _row(user: str, content: str) -> Memory:
    now = datetime.now(UTC)
    return Memory(
        id=uuid.uuid4(),
        user_id=user,
        namespace="default",
        kind="fact",
        content=content,
        content_hash=content_hash(content),
        importance=5,
        category="general",
        tags=[],
        temporality="current",
        created_at=now,
        updated_at=now,
        pinned=False,
        metadata_={},
        access_count=0,
    )


async def test_the_first_write_of_an_embedder_creates_its_vector_index(fresh_database_url, settings_factory, caplog):
    """Inside the writer's transaction: a rolled-back write takes the index along and the next write
    makes it; two first writers that already hold row locks do not wait on each other forever, and
    both writes land."""
    caplog.set_level(logging.INFO, "engrain.storage.vector_index")
    db = await Database.open(settings_factory(database_url=fresh_database_url))

    async def exists(embedder: str) -> bool:
        async with db.sessions() as s:
            return bool(await s.scalar(text("SELECT to_regclass(:n) IS NOT NULL"), {"n": vector_index_name(embedder)}))

    try:
        with pytest.raises(RuntimeError):
            async with db.sessions.begin() as s:
                await repo.insert(s, _row("u1", "rolled back"), repo.Vector("test:a", [0.1] * 8))
                raise RuntimeError("the write fails after its insert")
        assert not await exists("test:a")
        async with db.sessions.begin() as s:
            await repo.insert(s, _row("u1", "kept"), repo.Vector("test:a", [0.1] * 8))
        assert await exists("test:a")

        both = anyio.Event()
        arrived = 0

        async def first_writer(user: str) -> None:
            nonlocal arrived
            async with db.sessions.begin() as s:
                await repo.insert(s, _row(user, "a row lock first"), repo.Vector("test:a", [0.1] * 8))
                arrived += 1
                if arrived == 2:
                    both.set()
                await both.wait()
                await repo.insert(s, _row(user, "then a vector of a new embedder"), repo.Vector("test:b", [0.2] * 8))

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(first_writer, "u2")
                tg.start_soon(first_writer, "u3")
        async with db.sessions.begin() as s:
            stored = await s.scalar(text("SELECT count(*) FROM memory_vectors WHERE embedder = 'test:b'"))
            await repo.insert(s, _row("u4", "a later write"), repo.Vector("test:b", [0.3] * 8))
        assert stored == 2
        assert await exists("test:b")
        assert "the vector index for test:b is left to a later write" in caplog.text  # they did contend
    finally:
        await db.close()


async def test_recall_connections_plan_each_recall_for_its_user(session):
    """A generic plan (a prepared statement's, after five runs) is made for the average user; recall's
    connections plan every statement for its own user, with HNSW scans that fill the pool."""
    _, app = session
    db = await app.database()
    async with db.reader.connect() as conn:
        mode = await conn.scalar(text("SELECT current_setting('plan_cache_mode')"))
        scan = await conn.scalar(text("SELECT current_setting('hnsw.iterative_scan')"))
    assert (mode, scan) == ("force_custom_plan", "relaxed_order")


async def test_the_periods_migration_grains_stored_dates_by_their_words(fresh_database_url):
    """Rows dated before 0016 get a grain from the words that gave their date ("last month" a month, "in 2019" a
    year, "last summer" a season, "last weekend" a span, "two weeks ago" a week, "yesterday" a day); a date a
    client gave with no words is a day; an undated row has none. Their period is then read in the user's zone."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from engrain.reading.periods import Period

    words = {
        "last month": "month",
        "in 2019": "year",
        "last summer": "season",
        "Letztes Wochenende": "span",
        "two weeks ago": "week",
        "yesterday": "day",
        "上个月": "month",
        "去年": "year",
        "": "day",
    }
    engine = create_async_engine(async_url(fresh_database_url))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(lambda c: _alembic_upgrade(c, "0015"))
            for n, phrase in enumerate([*words, None]):
                meta = json.dumps({"date_text": phrase} if phrase else {})
                await conn.execute(
                    text(
                        "INSERT INTO memories (id, user_id, namespace, kind, content, content_hash, importance, tags,"
                        " temporality, pinned, access_count, metadata, lang, event_time) VALUES (gen_random_uuid(),"
                        " 'u', 'default', 'fact', :c, md5(:c), 5, '{}', 'current', false, 0, CAST(:m AS jsonb), 'en',"
                        " CASE WHEN :dated THEN timestamptz '2022-12-01 12:00+00' END)"
                    ),
                    {"c": f"memory {n} {phrase}", "m": meta, "dated": phrase is not None},
                )
            await conn.run_sync(_alembic_upgrade)
            rows = (await conn.execute(text("SELECT metadata, event_time, event_end, event_grain FROM memories"))).all()
    finally:
        await engine.dispose()
    grains = {(m or {}).get("date_text", ""): g for m, t, _, g in rows if t is not None}
    assert grains == words
    assert [g for _, t, _, g in rows if t is None] == [None]
    month = next(r for r in rows if (r[0] or {}).get("date_text") == "last month")
    assert month[2] is None and Period.stored(month[1], None, month[3], UTC).label(UTC) == "2022-12"
