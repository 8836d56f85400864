"""Ready to be distributed by user (docs/scaling.md): every user table carries `user_id`, every primary,
unique and foreign key includes it, and every statement a user's requests send names it, which is what
a database sharded by `user_id` (Citus) needs to route each one to that user's shard."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import event, text

from tests.conftest import Clock, call, connect
from tests.scripted import ScriptedLLM, alias, answer
from tests.services.traits.test_trait_lifecycle import T0

pytestmark = pytest.mark.anyio

USER_TABLES = {
    "memories",
    "memory_vectors",
    "memory_windows",
    "memory_links",
    "trait_evidence",
    "reflection_cycles",
    "memory_history",
    "host_tasks",
    "user_state",
    "chat_imports",
}
# Tables that are not a user's data, and stay on the coordinator of a distributed database.
DEPLOYMENT_TABLES = {
    "alembic_version": "the schema's version",
    "job_runs": "the scheduler's bookkeeping; a run may cover every user",
}


async def catalog(app, sql: str, **params: Any) -> list[Any]:
    db = await app.database()
    async with db.sessions() as s:
        return list((await s.execute(text(sql), params)).all())


async def test_every_user_table_is_keyed_by_user(session):
    _, app = session
    tables = {r.tablename for r in await catalog(app, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert tables == USER_TABLES | set(DEPLOYMENT_TABLES)  # a new table must choose
    for table in sorted(USER_TABLES):
        column = await catalog(
            app,
            "SELECT is_nullable FROM information_schema.columns WHERE table_name = :t AND column_name = 'user_id'",
            t=table,
        )
        assert column == [("NO",)], table
    keys = await catalog(
        app,
        """
        SELECT c.relname AS tab, i.relname AS idx, x.indisprimary AS pk,
               'user_id' = ANY(ARRAY(SELECT a.attname FROM pg_attribute a
                                     WHERE a.attrelid = c.oid AND a.attnum = ANY(x.indkey))) AS has_user
        FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND (x.indisprimary OR x.indisunique) AND c.relname = ANY(:tables)
        """,
        tables=sorted(USER_TABLES),
    )
    assert {r.tab for r in keys if r.pk} == USER_TABLES
    assert [r.idx for r in keys if not r.has_user] == []
    foreign = await catalog(
        app,
        """
        SELECT con.conname,
               'user_id' = ANY(ARRAY(SELECT a.attname FROM pg_attribute a
                                     WHERE a.attrelid = con.conrelid AND a.attnum = ANY(con.conkey))) AS here,
               'user_id' = ANY(ARRAY(SELECT a.attname FROM pg_attribute a
                                     WHERE a.attrelid = con.confrelid AND a.attnum = ANY(con.confkey))) AS there
        FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace
        WHERE con.contype = 'f' AND n.nspname = 'public'
        """,
    )
    assert len(foreign) == 8
    assert [r.conname for r in foreign if not (r.here and r.there)] == []


TABLE = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+(\w+)", re.IGNORECASE)
# Reads over every user on purpose (docs/scaling.md), told apart by what they compute.
ALL_USERS = {
    "the language mix that picks the embedding model for everyone": "THEN 1.0 ELSE 0.0 END), 0.0) AS share",
}


async def test_every_statement_of_a_users_requests_names_the_user(settings_factory):
    """A user's whole journey through the tools and resources, with a scripted model: each statement
    that reads or writes a user table filters by (or writes) `user_id`."""
    clock = Clock(T0)
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {
                    "content": "Walks when possible",
                    "confidence": 0.5,
                    "context": "personal",
                    "evidence_ids": [alias(p, "stairs"), alias(p, "Walked")],
                }
            ],
            links=[{"source_id": alias(p, "stairs"), "target_id": alias(p, "Walked"), "relation": "same habit"}],
        ),
        lambda p: answer(
            reinforcements=[
                {"trait_id": alias(p, "Walks"), "new_evidence_ids": [alias(p, "Biked")], "quality_grade": "A"}
            ],
            contradictions=[
                {
                    "trait_id": alias(p, "Walks"),
                    "description": "took a taxi",
                    "contradicting_evidence_ids": [alias(p, "taxi")],
                }
            ],
        ),
        {
            "memories": [
                {"content": "Moved to Lisbon in February 2026", "kind": "episodic", "importance": 8},
                {"content": "Sister Ana lives in Lisbon", "kind": "fact", "importance": 6},
            ],
            "summary": "Moved to Lisbon, where the sister lives.",
        },
    )
    seen: list[str] = []
    async with connect(settings_factory(), clock, llm) as (client, app):
        db = await app.database()

        def record(conn, cursor, statement, parameters, context, executemany) -> None:
            seen.append(statement)

        engines = (db.engine.sync_engine, db.reader.sync_engine)  # recall has connections of its own
        for engine in engines:
            event.listen(engine, "before_cursor_execute", record)
        try:
            a = await call(client, "remember", content="Takes the stairs instead of the elevator at the office")
            b = await call(client, "remember", content="Walked to work instead of taking the bus")
            await call(client, "remember", content="Dentist appointment next Tuesday", kind="episodic")
            await call(client, "reflect")
            clock.now = T0.replace(day=3)
            await call(client, "remember", content="Biked to the market on Saturday")
            await call(client, "remember", content="Took a taxi home from the station")
            await call(client, "reflect", force=True)
            await call(client, "recall", query="How do I get to work?", limit=20)
            await call(client, "recall", query="When is the dentist?", kinds=["episodic"], since="2026-01-01")
            await call(client, "link", source_id=a["id"], target_id=b["id"], relation="related")
            traits = await call(client, "get_user_traits", min_stage="trend", include_evidence=True)
            trait_id = traits["traits"][0]["id"]
            await call(client, "get_user_traits", as_of="2026-03-02")
            await call(client, "review_trait", trait_id=trait_id, action="endorse")
            await call(client, "review_trait", trait_id=trait_id, action="edit", content="Walks or bikes")
            newer = await call(client, "remember", content="Walks to work every day now", supersedes=b["id"])
            for uri in (
                "engrain://profile",
                "engrain://traits",
                f"engrain://traits/{trait_id}",
                "engrain://memories/recent",
                f"engrain://memories/{newer['id']}",
                "engrain://intentions",
                "engrain://status",
            ):
                assert (await client.read_resource(uri)).contents[0].text
            await call(
                client,
                "ingest_conversation",
                messages=[{"role": "user", "content": "I moved to Lisbon last month. My sister Ana lives there."}],
            )
            await call(client, "forget", memory_id=a["id"])
        finally:
            for engine in engines:
                event.remove(engine, "before_cursor_execute", record)

    touching = [s for s in seen if {t.lower() for t in TABLE.findall(s)} & USER_TABLES]
    assert len(touching) > 50
    assert sum("WITH q AS" in s for s in touching) >= 2  # the recalls' statements were seen
    assert [s for s in touching if "user_id" not in s and not any(m in s for m in ALL_USERS.values())] == []
