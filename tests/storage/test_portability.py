"""export → import into an empty database → export is byte-identical; importing twice changes nothing;
the CLI commands read and write the same files."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from engrain.server.state import AppState
from engrain.services.memories.portability import export_jsonl, import_jsonl
from tests.conftest import Clock, call, connect, engrain_env, scalar
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio


async def build_history(settings) -> str:
    """A memory with every kind of row: archived and superseded memories, links, a trait with evidence
    from a reflection cycle, history of a forget."""
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {
                    "content": "Goes running early in the morning",
                    "confidence": 0.45,
                    "context": "personal",
                    "evidence_ids": [alias(p, "ran 5k"), alias(p, "6am run")],
                }
            ]
        )
    )
    async with connect(settings, Clock(), llm) as (client, _):
        ran = await call(client, "remember", content="I ran 5k before work today", tags=["sport", "morning"])
        await call(client, "remember", content="Did my usual 6am run by the river — naïve joy 🏃", importance=8)
        old = await call(client, "remember", content="I live in Berlin", event_time="2026-01-05")
        # Periods at their precision travel too (issue 41): a month, a weekend from the words.
        await call(client, "remember", content="We toured Portugal", event_time="2025-09")
        await call(client, "remember", content="Last weekend we went camping", said_at="2026-03-02")
        new = await call(client, "remember", content="I live in Lisbon now", supersedes=old["id"])
        await call(client, "link", source_id=new["id"], target_id=ran["id"], relation="context")
        gone = await call(client, "remember", content="A note I will forget")
        await call(client, "forget", memory_id=gone["id"], reason="outdated")
        assert (await call(client, "reflect"))["traits_created"] == 1
    return settings.user


async def export_text(app: AppState, user: str) -> str:
    out = io.StringIO()
    await export_jsonl(app.database, out, user=user)
    return out.getvalue()


async def test_round_trip_is_byte_identical_and_import_is_idempotent(settings_factory, fresh_database_url):
    source = settings_factory()
    user = await build_history(source)
    app = AppState(source)
    app.start(scheduler_loop=False)
    first = await export_text(app, user)
    await app.close()
    kinds = [json.loads(line)["type"] for line in first.splitlines()]
    assert kinds[0] == "header" and {"user_state", "memory", "reflection_cycle", "link", "evidence", "history"} <= set(
        kinds
    )
    memories = [json.loads(line) for line in first.splitlines() if '"type":"memory"' in line]
    assert any(m["valid_until"] for m in memories) and any(m["kind"] == "trait" for m in memories)
    assert all(m["embedding"] and m["embedder"] for m in memories)

    target = AppState(settings_factory(database_url=fresh_database_url, user=user))
    target.start(scheduler_loop=False)
    try:
        stats = await import_jsonl(target.database, first.splitlines(keepends=True))
        assert stats["memory"]["added"] == len(memories) and stats["history"]["added"] == kinds.count("history")
        second = await export_text(target, user)
        assert second == first  # byte-identical
        again = await import_jsonl(target.database, first.splitlines(keepends=True))
        assert all(v["added"] == 0 for v in again.values())
        assert await export_text(target, user) == first
        count = await scalar(target, "SELECT count(*) FROM memories WHERE user_id = :u", u=user)
        assert count == len(memories)
    finally:
        await target.close()
    # The imported memory works: recall finds it by vector and text.
    async with connect(settings_factory(database_url=fresh_database_url, user=user)) as (client, _):
        found = await call(client, "recall", query="where do I live")
        assert found["results"][0]["content"] == "I live in Lisbon now"
        traits = await call(client, "get_user_traits", min_stage="candidate", include_evidence=True)
        assert len(traits["traits"]) == 1 and len(traits["traits"][0]["supporting_ids"]) == 2


async def test_import_rejects_what_is_not_an_export(settings_factory):
    app = AppState(settings_factory())
    app.start(scheduler_loop=False)
    try:
        from engrain.errors import InvalidInput

        with pytest.raises(InvalidInput, match="line 1"):
            await import_jsonl(app.database, ['{"type": "memory"}\n'])
        with pytest.raises(InvalidInput, match="line 2: not JSON"):
            await import_jsonl(app.database, ['{"type":"header","format":"engrain-export","version":1}\n', "{oops\n"])
    finally:
        await app.close()


async def test_cli_export_and_import(settings_factory, fresh_database_url, tmp_path):
    source = settings_factory()
    user = await build_history(source)
    env = engrain_env(tmp_path)

    def engrain(db: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "engrain", *args],
            env=env | {"ENGRAIN_DATABASE_URL": db},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            input=stdin,
        )

    exported = engrain(source.database_url, "export", "--user", user)
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert exported.stderr.strip() == "" or "exported" not in exported.stderr  # no progress bar off a terminal
    path = tmp_path / "me.jsonl"
    path.write_text(exported.stdout)
    imported = engrain(fresh_database_url, "import", str(path))
    assert imported.returncode == 0, imported.stderr[-2000:]
    assert json.loads(imported.stdout)["memory"]["added"] == exported.stdout.count('"type":"memory"')
    assert engrain(fresh_database_url, "export", "--user", user).stdout == exported.stdout
    bad = engrain(fresh_database_url, "import", "-", stdin="not json\n")
    assert bad.returncode == 1 and "line 1" in bad.stderr


def test_progress_bar_only_on_a_terminal(settings_factory, tmp_path):
    """stderr on a pseudo-terminal gets the progress bar; stdout (the file) stays pure JSON lines."""
    import pty

    import anyio

    source = settings_factory()
    user = anyio.run(build_history, source)
    env = engrain_env(tmp_path, ENGRAIN_DATABASE_URL=source.database_url)
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "engrain", "export", "--user", user],
            env=env,
            stdout=subprocess.PIPE,
            stderr=slave,
            text=True,
            timeout=120,
            check=False,
        )
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    assert done.returncode == 0
    assert all(json.loads(line) for line in done.stdout.splitlines())
    text = shown.decode(errors="replace")
    assert "export" in text and "rows" in text and "exported" in text
