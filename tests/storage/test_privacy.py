"""Forgetting is deletion: after `forget` (or retention in delete mode) no copy of the words is left in
any text or jsonb column of any table, nor in an export — not in the history of creates, merges and
supersedes, and not in the memories the forgotten one had replaced."""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from engrain.services.memories.portability import export_jsonl
from tests.conftest import Clock, call, connect, scalar

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


async def places_holding(app, secret: str) -> list[str]:
    """Every table.column (text, jsonb, arrays, tsvector) whose value mentions `secret`, and the export."""
    columns = await scalar(
        app,
        """
        SELECT json_agg(json_build_array(table_name, column_name)) FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> 'alembic_version'
          AND data_type IN ('text', 'jsonb', 'json', 'ARRAY', 'tsvector', 'character varying')""",
    )
    found = []
    for table, column in columns:
        hits = await scalar(
            app, f'SELECT count(*) FROM "{table}" WHERE CAST("{column}" AS text) ILIKE :s', s=f"%{secret}%"
        )
        if hits:
            found.append(f"{table}.{column}")
    out = io.StringIO()
    await export_jsonl(app.database, out)
    if secret.lower() in out.getvalue().lower():
        found.append("export")
    return found


async def test_forget_leaves_no_copy_of_the_words(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, app):
        first = await call(client, "remember", content="My cat is called Xanthippe.")
        second = await call(client, "remember", content="My cat is called Xanthippe Junior.", supersedes=first["id"])
        merged = await call(client, "remember", content="My cat is called Xanthippe Junior, really.")
        assert merged == {**merged, "status": "merged", "id": second["id"]}
        other = await call(client, "remember", content="I feed the cat at seven")
        await call(client, "link", source_id=second["id"], target_id=other["id"])
        assert await places_holding(app, "xanthippe") != []  # the check sees the words while they are stored

        out = await call(client, "forget", memory_id=second["id"])
        assert out["deleted"] is True
        assert await places_holding(app, "xanthippe") == []
        for gone in (first["id"], second["id"]):
            actions = await scalar(
                app, "SELECT json_agg(action) FROM memory_history WHERE memory_id = :id", id=uuid.UUID(gone)
            )
            assert actions == ["forget"]  # only that a deletion happened
        assert await scalar(app, "SELECT count(*) FROM memories WHERE id = :id", id=uuid.UUID(other["id"])) == 1


async def test_retention_in_delete_mode_leaves_no_copy_either(settings_factory, fresh_database_url):
    clock = Clock(NOW)
    settings = settings_factory(database_url=fresh_database_url, forget_mode="delete")
    async with connect(settings, clock) as (client, app):
        old = await call(client, "remember", content="My locker code was Quokka-17.")
        await call(client, "remember", content="My locker code is Quokka-42.", supersedes=old["id"])
        clock.now = NOW + timedelta(days=400)  # never used since: it fades
        result = await app.scheduler.run("decay")
        assert result.stats["memories_deleted"] == 2  # the faded memory and the one it had replaced
        assert await places_holding(app, "quokka") == []
