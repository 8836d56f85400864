"""Secrets and look-alikes through every write path (issue 50): the corpus of bench/make_secret_corpus.py sent
through `remember`, `remember_many`, `ingest_conversation` (the rules' statements and the task a model reads),
the calling model's answer to that task quoting each sentence back, `engrain import`, the chat importer of
`engrain import-chats`, and the page's Import screen — each path as its own user, through a real MCP client
(and the page's HTTP routes). What each path stored or showed of each sentence (memories, their metadata and
history, the queued chat pieces, the task's text) is then read back from the database.

Per path: recall (secret sentences whose secret nothing stored holds), precision (look-alike sentences whose
stored form has no placeholder), how many sentences the path stored at all, and — what must be empty — the
sentences a path leaked or damaged that the redaction rules alone do not (one redaction for every path).

    python bench/redaction_paths.py [--split dev|test|all]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import platform
import re
import sys
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.redaction import read_corpus
from engrain.reading.enrich import content_hash
from engrain.reading.redaction import redact

PATHS = ("remember", "remember_many", "ingest_conversation", "task_answer", "import", "import_chats", "page_import")
NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
Row = dict[str, str]
Texts = dict[int, list[str]]  # a corpus row's index → what a path stored or showed of it


def leaks(secret: str, texts: list[str]) -> bool:
    """Whether any text holds the secret, or a long line of it (a private key's body)."""
    pieces = [secret] + [line for line in secret.split("\n") if len(line) >= 12 and "-----" not in line]
    return any(piece in text for text in texts for piece in pieces)


def needle(row: Row) -> str:
    """What to look for in text a path may have kept anywhere (an export, a page): the secret, and for a short one
    (a PIN) the words before it too, so that the same four digits in a port number or a vector are no finding."""
    secret = row["secret"]
    if len(secret) >= 8:
        return secret
    return row["sentence"].split(secret)[0][-8:] + secret


def judge(rows: list[Row], stored: Texts) -> dict[str, Any]:
    """One path's figures, and the rows it got wrong that the rules alone get right."""
    secrets = [i for i, r in enumerate(rows) if r["secret"]]
    alikes = [i for i, r in enumerate(rows) if not r["secret"]]
    leaked = [i for i in secrets if leaks(rows[i]["secret"], stored.get(i, []))]
    damaged = [i for i in alikes if any("[secret:" in t for t in stored.get(i, []))]
    rules_miss = {i for i in secrets if leaks(rows[i]["secret"], [redact(rows[i]["sentence"]).text])}
    rules_damage = {i for i in alikes if redact(rows[i]["sentence"]).kinds}
    return {
        "recall": round(1 - len(leaked) / max(len(secrets), 1), 4),
        "precision": round(1 - len(damaged) / max(len([i for i in alikes if stored.get(i)]), 1), 4),
        "secrets": len(secrets),
        "secrets_stored": sum(1 for i in secrets if stored.get(i)),
        "look_alikes": len(alikes),
        "look_alikes_stored": sum(1 for i in alikes if stored.get(i)),
        "not_stored": [rows[i]["sentence"][:80] for i in range(len(rows)) if not stored.get(i)],
        "leaked_beyond_rules": [rows[i]["sentence"][:80] for i in leaked if i not in rules_miss],
        "damaged_beyond_rules": [rows[i]["sentence"][:80] for i in damaged if i not in rules_damage],
    }


async def call(client: Any, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.is_error:
        raise RuntimeError(f"{tool}: {result.content[0].text}")
    return result.structured_content


async def texts_of(app: Any, user: str, ids: dict[int, list[str]]) -> Texts:
    """What the database holds of each row's memories: content, metadata, tags and history."""
    from sqlalchemy import text

    sql = text(
        "SELECT m.id::text AS id, m.content || ' ' || m.metadata::text || ' ' || array_to_string(m.tags, ' ')"
        " || ' ' || coalesce(string_agg(coalesce(h.old_content, '') || ' ' || coalesce(h.new_content, ''), ' '), '')"
        " AS all_text FROM memories m LEFT JOIN memory_history h ON h.user_id = m.user_id AND h.memory_id = m.id"
        " WHERE m.user_id = :u GROUP BY m.id, m.content, m.metadata, m.tags"
    )
    async with (await app.database()).sessions() as s:
        found = {row.id: row.all_text for row in (await s.execute(sql, {"u": user})).all()}
    return {i: [found[m] for m in memory_ids if m in found] for i, memory_ids in ids.items()}


async def through_remember(client: Any, app: Any, user: str, rows: list[Row]) -> Texts:
    ids = {i: [(await call(client, "remember", content=r["sentence"]))["id"]] for i, r in enumerate(rows)}
    return await texts_of(app, user, ids)


async def through_remember_many(client: Any, app: Any, user: str, rows: list[Row]) -> Texts:
    ids: dict[int, list[str]] = {}
    for start in range(0, len(rows), 100):
        batch = await call(
            client, "remember_many", items=[{"content": r["sentence"]} for r in rows[start : start + 100]]
        )
        ids |= {start + n: [result["id"]] for n, result in enumerate(batch["results"])}
    return await texts_of(app, user, ids)


async def _ingest(client: Any, row: Row) -> dict[str, Any]:
    said = {"role": "user", "content": row["sentence"]}
    return await call(client, "ingest_conversation", messages=[said, {"role": "assistant", "content": "Noted."}])


async def through_ingest(client: Any, app: Any, user: str, rows: list[Row]) -> Texts:
    """The rules' statements, and the task text the calling model is handed."""
    ids, tasks = {}, {}
    for i, row in enumerate(rows):
        out = await _ingest(client, row)
        ids[i], tasks[i] = out["created"], out.get("task") or ""
    stored = await texts_of(app, user, ids)
    return {i: [*stored.get(i, []), tasks[i]] for i in range(len(rows))}


async def through_task_answer(client: Any, app: Any, user: str, rows: list[Row]) -> Texts:
    """The calling model answers each extraction task by quoting the user's sentence back whole."""
    ids = {}
    for i, row in enumerate(rows):
        task = await _ingest(client, row)
        answer = {"memories": [{"content": row["sentence"], "kind": "fact"}]}
        done = await call(client, "ingest_conversation", task_id=task["task_id"], answer=answer)
        # A sentence whose redacted text another one already stored ("Meine Steuernummer ist [secret: tax number].",
        # said of two numbers) is stored as that memory: a duplicate, as `remember` answers with its id.
        ids[i] = done["created"] + done["duplicates"]
    return await texts_of(app, user, ids)


async def through_import(client: Any, app: Any, user: str, rows: list[Row]) -> Texts:
    """An export file holding the sentences (as memories, their metadata and history), through import."""
    from engrain.services.memories.portability import import_jsonl

    lines = [{"type": "header", "format": "engrain-export", "version": 1, "vectors": False}]
    ids: dict[int, list[str]] = {}
    for i, row in enumerate(rows):
        mid = str(uuid.uuid4())
        ids[i] = [mid]
        times = {k: "2025-01-01T00:00:00+00:00" for k in ("created_at", "told_at", "updated_at")}
        memory = {"type": "memory", "id": mid, "user_id": user, "namespace": "default", "kind": "fact"}
        memory |= {"content": row["sentence"], "content_hash": content_hash(row["sentence"]), "importance": 5}
        memory |= {"tags": [], "temporality": "current", "pinned": False, "access_count": 0, **times}
        memory |= {"metadata": {"note": row["sentence"]}}
        history = {"type": "history", "memory_id": mid, "user_id": user, "action": "create"}
        lines += [memory, history | {"new_content": row["sentence"], "at": times["created_at"]}]
    await import_jsonl(app.database, [json.dumps(line).encode() for line in lines], mode=app.settings.redact)
    # A row whose redacted text an earlier row's memory already holds ("Meine Steuernummer ist [secret: tax
    # number].", said of two numbers) is that memory: the import adds nothing that is there, as it should.
    from sqlalchemy import text

    async with (await app.database()).sessions() as s:
        held = await s.execute(text("SELECT id::text, content FROM memories WHERE user_id = :u"), {"u": user})
        by_content = {content: mid for mid, content in held.all()}
    for i, row in enumerate(rows):
        same = by_content.get(redact(row["sentence"]).text)
        if ids[i][0] not in by_content.values() and same is not None:
            ids[i] = [same]
    return await texts_of(app, user, ids)


def chatgpt_export(rows: list[Row]) -> list[dict[str, Any]]:
    """A ChatGPT export: one conversation a row, the sentence its user's message."""
    conversations = []
    for i, row in enumerate(rows):
        node = {"author": {"role": "user"}, "create_time": 1.7e9 + i, "content": {"content_type": "text"}}
        node["content"]["parts"] = [row["sentence"]]
        mapping = {"u": {"message": node, "parent": None, "children": []}}
        conversations.append({"id": f"row-{i}", "title": f"Row {i}", "mapping": mapping, "current_node": "u"})
    return conversations


async def _imported(app: Any, user: str, count: int) -> Texts:
    """What an import stored of each row's conversation: its memories and its queued piece."""
    from sqlalchemy import text

    async with (await app.database()).sessions() as s:
        memories = (
            await s.execute(text("SELECT id::text AS id, source FROM memories WHERE user_id = :u"), {"u": user})
        ).all()
        pieces = (
            await s.execute(
                text("SELECT source, coalesce(messages::text, '') AS messages FROM chat_imports WHERE user_id = :u"),
                {"u": user},
            )
        ).all()
    ids: dict[int, list[str]] = {}
    for m in memories:
        if m.source and (found := re.fullmatch(r"chatgpt:row-(\d+)", m.source)):
            ids.setdefault(int(found.group(1)), []).append(m.id)
    stored = await texts_of(app, user, ids)
    for p in pieces:
        if found := re.fullmatch(r"chatgpt:row-(\d+)", p.source):
            stored.setdefault(int(found.group(1)), []).append(p.messages)
    return {i: stored.get(i, []) for i in range(count)}


async def through_import_chats(client: Any, app: Any, user: str, rows: list[Row]) -> Texts:
    """What `engrain import-chats` runs once it has read the export."""
    from engrain.reading import chats

    folder = Path(scratch_home("engrain-redaction-export-"))
    (folder / "conversations.json").write_text(json.dumps(chatgpt_export(rows)))
    await app.chat_import.run(user, list(chats.read(folder / "conversations.json")), NOW)
    return await _imported(app, user, len(rows))


async def through_page_import(client: Any, app: Any, user: str, rows: list[Row]) -> Texts:
    """The page's Import screen over its HTTP routes: upload, confirm, wait for the run to end."""
    import httpx
    from starlette.applications import Starlette

    from engrain.server.ui import mounted_ui
    from engrain.web.sessions import Sessions

    sessions = Sessions()
    page = Starlette(routes=[mounted_ui(app, sessions)])
    transport = httpx.ASGITransport(app=page)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        await http.get(f"/ui/login?token={sessions.login_token(user)}")
        home = await http.get("/ui/import")
        csrf = re.search(r'name="csrf" value="([^"]+)"', home.text).group(1)
        files = {"file": ("conversations.json", io.BytesIO(json.dumps(chatgpt_export(rows)).encode()))}
        headers = {"Origin": "http://127.0.0.1"}
        preview = await http.post(
            "/ui/import", data={"csrf": csrf}, files=files, headers=headers, follow_redirects=True
        )
        token = re.search(r'name="token" value="([^"]+)"', preview.text).group(1)
        started = await http.post("/ui/import/start", data={"csrf": csrf, "token": token}, headers=headers)
        run = started.headers["location"]
        while "Importing" in (await http.get(run)).text:
            await asyncio.sleep(0.2)
    return await _imported(app, user, len(rows))


THROUGH: dict[str, Callable[[Any, Any, str, list[Row]], Awaitable[Texts]]] = {
    "remember": through_remember,
    "remember_many": through_remember_many,
    "ingest_conversation": through_ingest,
    "task_answer": through_task_answer,
    "import": through_import,
    "import_chats": through_import_chats,
    "page_import": through_page_import,
}


Look = Callable[[Any, Any, str], Awaitable[None]]  # (client, app, user): what a test reads back afterwards


async def measure_paths(
    settings_for: Callable[[str], Any], rows: list[Row], clock: Callable[[], datetime], look: Look | None = None
) -> dict[str, dict[str, Any]]:
    """Each path as its own user (a path must not find another's redacted copy as a duplicate); `look` is
    called after each path, its session still open."""
    from mcp import Client

    from engrain.server.app import create_server
    from engrain.server.state import AppState

    figures: dict[str, dict[str, Any]] = {}
    for path in PATHS:
        settings = settings_for(f"redaction-{path}")
        async with AsyncExitStack() as stack:
            app = AppState(settings, clock)
            client = await stack.enter_async_context(Client(create_server(app)))
            figures[path] = judge(rows, await THROUGH[path](client, app, settings.user, rows))
            if look is not None:
                await look(client, app, settings.user)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="all")
    args = parser.parse_args()
    rows = [r for r in read_corpus() if args.split == "all" or r["split"] == args.split]
    home = scratch_home("engrain-redaction-paths-")
    figures = asyncio.run(measure_paths(lambda user: bench_settings(home, llm="host", user=user), rows, lambda: NOW))
    out = {
        "paths": figures,
        "corpus": {"rows": len(rows), "split": args.split},
        "machine": f"{platform.machine()}, {platform.python_version()}",
    }
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
