"""One redaction for every write path (issue 50, item 3): the whole secret corpus (secrets of every kind in five
languages, and look-alikes: order, flight, tracking and room numbers, versions, commit hashes, code) through
remember, remember_many, ingest_conversation, the calling model's answer quoting a secret back, engrain import,
the chat importer and the page's Import screen — each path storing exactly what the rules alone keep (none leaks
a secret or damages a look-alike the rules get right) — then read back through recall, the profile, an export,
the page and the log; and through the real `engrain import-chats` command."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from datetime import UTC, datetime

import httpx
import pytest
from starlette.applications import Starlette

from bench.redaction import read_corpus
from bench.redaction_paths import PATHS, chatgpt_export, leaks, measure_paths, needle
from engrain.reading.redaction import redact
from engrain.server.ui import mounted_ui
from engrain.services.memories.portability import export_jsonl
from engrain.web.sessions import Sessions
from tests.conftest import engrain_env
from tests.server.test_lifecycle import no_postmaster

pytestmark = pytest.mark.anyio
CORPUS = read_corpus()
NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
# The secrets the rules find (the corpus's figures measure the few they miss): no path may let one through.
FOUND = [needle(r) for r in CORPUS if r["secret"] and not leaks(r["secret"], [redact(r["sentence"]).text])]
# Numbers users need, from the look-alikes: each must come back as written.
KEPT = ["UA 1523", "room 4417", "9400 1000 0000 0000 0000 00", "2.14.3", "3e4f9a1", "#1002-4417-889", "94110"]


async def test_every_path_stores_what_the_rules_keep_and_nothing_comes_back(settings_factory, caplog):
    caplog.set_level(logging.DEBUG)
    shown: list[str] = []

    async def look(client, app, user: str) -> None:
        for query in ("password code key token", "door gate lock", "social security number", "flight room order"):
            hit = await client.call_tool("recall", {"query": query, "limit": 100})
            shown.extend([hit.content[0].text, json.dumps(hit.structured_content, ensure_ascii=False)])
        shown.append((await client.read_resource("engrain://profile")).contents[0].text)
        out = io.StringIO()
        await export_jsonl(app.database, out, user=user)
        shown.append(out.getvalue())
        sessions = Sessions()
        page = Starlette(routes=[mounted_ui(app, sessions)])
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=page), base_url="http://127.0.0.1") as http:
            await http.get(f"/ui/login?token={sessions.login_token(user)}")
            for screen in ("/ui/memories?limit=500", "/ui/import"):
                shown.append((await http.get(screen)).text)

    figures = await measure_paths(lambda user: settings_factory(llm="host", user=user), CORPUS, lambda: NOW, look)
    assert set(figures) == set(PATHS)
    for path, f in figures.items():
        assert f["leaked_beyond_rules"] == [] and f["damaged_beyond_rules"] == [], (path, f)
        assert f["not_stored"] == [], (path, f["not_stored"])
        assert f["secrets_stored"] == f["secrets"] and f["look_alikes_stored"] == f["look_alikes"], (path, f)
        assert f["recall"] >= 0.98 and f["precision"] >= 0.98, (path, f)
    everything = "\n".join(shown)
    assert [s[:30] for s in FOUND if leaks(s, [everything])] == []
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert [s[:30] for s in FOUND if leaks(s, [logged])] == []
    exported = "\n".join(text for text in shown if text.startswith('{"format"') or '"type":"memory"' in text)
    assert all(number in exported for number in KEPT), [n for n in KEPT if n not in exported]


def test_the_import_chats_command_keeps_no_secret(tmp_path, monkeypatch):
    """The real command on a ChatGPT export of the corpus: its export and its log hold no secret the rules
    find, and every look-alike number comes back."""
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(chatgpt_export(CORPUS)))
    home = tmp_path / "home"
    env = engrain_env(home, ENGRAIN_LOG_LEVEL="DEBUG")
    engrain = [sys.executable, "-m", "engrain"]
    done = subprocess.run(
        [*engrain, "import-chats", str(export), "--user", "ana"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    out = subprocess.run([*engrain, "export", "--user", "ana"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert [s[:30] for s in FOUND if leaks(s, [out.stdout, done.stdout, done.stderr, out.stderr])] == []
    memories = [json.loads(line) for line in out.stdout.splitlines() if '"type":"memory"' in line]
    placeholders = [m["content"] for m in memories if "[secret:" in m["content"]]
    redacted = [done.text.lower() for r in CORPUS if (done := redact(r["sentence"])).kinds]
    # Each placeholder stands where the rules put one (the importer keeps a sentence, maybe capitalised or without
    # its last stop): the command damages no look-alike the rules keep.
    stray = [c for c in placeholders if not any(c.lower().rstrip(".!?。") in text for text in redacted)]
    assert placeholders and stray == []
    assert any("[secret: national ID number]" in c for c in placeholders)
    import anyio

    anyio.run(no_postmaster, home)
