"""Day-one memory (issue 43, items 1, 2, 4 and 6; the queue is test_import_queue.py, the page tests/web): the
chats a user already has — a ChatGPT and a Claude export, Claude Code sessions, a folder of notes
(tests/data/chats, written by hand from the formats' public shapes) — become dated memories of the user with no
model: the user's own statements, told at their message's time, from the branch they kept, without the
assistant's words, code, attachments or tool output; importing twice adds nothing. The CLI is run as a user
runs it; the rest through the service and a real MCP client."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engrain.reading import chats
from tests.conftest import DATA, Clock, connect, engrain_env

pytestmark = pytest.mark.anyio
CHATS = DATA / "chats"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
EXPORTS = ["chatgpt/conversations.json", "claude/conversations.json", "claude-code", "notes"]


async def imported(client_app, *paths: Path) -> list[dict]:
    """Import `paths` for the session's user; the live memories after, with their told times and sources."""
    _, app = client_app
    for path in paths:
        await app.chat_import.run(app.settings.user, chats.read(path), app.clock())
    db = await app.database()
    async with db.sessions() as s:
        from sqlalchemy import text

        rows = await s.execute(
            text("SELECT content, told_at, source, metadata, kind FROM memories WHERE user_id = :u ORDER BY told_at"),
            {"u": app.settings.user},
        )
        return [dict(r._mapping) for r in rows]


async def test_each_export_gives_the_users_own_statements_at_their_messages_time(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as session:
        rows = await imported(session, *(CHATS / p for p in EXPORTS))
        said = {r["content"]: r for r in rows if r["kind"] != "reply"}
        # The assistant's messages are kept as its replies (issue 51), without their code, never as the user's.
        replies = {r["content"]: r for r in rows if r["kind"] == "reply"}
        assert replies and not any("range(42)" in text for text in replies), sorted(replies)
        assert set(said) == {
            "We went hiking in the Dolomites last weekend.",
            "I love sleeping in mountain huts.",
            "I'm training for the Berlin marathon in September, it's my first one.",
            "I live in Munich with my two cats, so I run along the Isar.",  # the branch the user kept
            "I keep it on my balcony.",
            "我在学日语，准备明年去东京。",
            "I work as a nurse at St Mary's hospital.",
            "My daughter Mia starts school next week and I'm nervous.",
            "I'm allergic to shellfish, so please remember that for recipes.",
            "I prefer pytest over unittest, and I always use fixtures for the database.",
            "We deploy the shop on Fridays, never on Mondays.",
        }, sorted(said)
        # Not kept as the user's: an abandoned branch, the assistant, code, an attachment, tool output, commands.
        assert not any(w in " ".join(said) for w in ("Hamburg", "Isar paths", "range(42)", "Globex", "listing"))
        munich = said["I live in Munich with my two cats, so I run along the Isar."]
        assert munich["told_at"] == datetime(2023, 5, 8, 12, 2, tzinfo=UTC)
        assert munich["source"] == "chatgpt:c1-marathon" and munich["metadata"]["conversation"] == "Marathon training"
        mia = said["My daughter Mia starts school next week and I'm nervous."]
        assert mia["told_at"] == datetime(2024, 3, 1, 8, 0, tzinfo=UTC)  # 10:00 at +02:00
        assert said["We went hiking in the Dolomites last weekend."]["told_at"] == datetime(2022, 11, 3, tzinfo=UTC)


async def test_planted_facts_are_recalled_with_their_dates_and_a_second_import_adds_nothing(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as session:
        client, app = session
        first = await imported(session, *(CHATS / p for p in EXPORTS))
        again = [await app.chat_import.run(app.settings.user, chats.read(CHATS / p), app.clock()) for p in EXPORTS]
        assert sum(r.kept for r in again) == 0 and sum(r.queued for r in again) == 0
        # Each conversation was read whole before (the empty one, with nothing to read, has no record).
        assert sum(r.unchanged for r in again) == sum(r.conversations for r in again) - 1
        assert len(await imported(session)) == len(first)
        found = await client.call_tool("recall", {"query": "where do I live"})
        assert found.content[0].text.splitlines()[1].startswith("- [said 2023-05-08] «I live in Munich")
        school = await client.call_tool("recall", {"query": "when does Mia start school"})
        line = next(line for line in school.content[0].text.splitlines()[1:] if "Mia" in line)
        # Read then, and a plan whose week has passed by the user's clock (issue 61: past plans are marked past).
        assert line.startswith("- [said 2024-03-01 · happened week of 2024-03-04, past plan] «My daughter")
        marathon = await client.call_tool("recall", {"query": "marathon"})
        assert "happened 2023-09, past plan] «I'm training" in marathon.content[0].text  # the history's plan is done
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert "shellfish" in profile and "Munich" in profile


def test_a_zip_export_reads_as_its_conversations_json(tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(CHATS / "chatgpt" / "conversations.json", "conversations.json")
        z.writestr("chat.html", "<html></html>")
    assert chats.detect(archive) == "chatgpt"
    assert [c.source for c in chats.read(archive)] == ["chatgpt:c1-marathon", "chatgpt:c2-japanese"]


def test_a_wrong_or_corrupt_file_is_named_with_what_was_expected(tmp_path):
    broken = tmp_path / "conversations.json"
    broken.write_text('[{"mapping": {}}, {"title": "no mapping"}]', encoding="utf-8")
    with pytest.raises(chats.ExportError, match=r"conversation 1: mapping: Field required"):
        list(chats.read(broken, "chatgpt"))
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(chats.ExportError, match=r"conversations.json: not valid JSON"):
        chats.detect(broken)
    session = tmp_path / "s.jsonl"
    session.write_text('{"type": "user", "message": {"content": "ok fine then"}}\nnot json\n', encoding="utf-8")
    with pytest.raises(chats.ExportError, match=r"s.jsonl line 2: not a session entry"):
        list(chats.read(session))
    (tmp_path / "bad.zip").write_bytes(b"PK not a zip")
    with pytest.raises(chats.ExportError, match=r"bad.zip: not a readable .zip"):
        chats.detect(tmp_path / "bad.zip")


def test_the_command_imports_dry_runs_and_refuses_what_it_cannot_read(tmp_path):
    env = engrain_env(tmp_path / "home")
    engrain = [sys.executable, "-m", "engrain", "import-chats"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*engrain, *args], env=env, capture_output=True, text=True, timeout=300)

    dry = run(str(CHATS / "claude" / "conversations.json"), "--user", "ana", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would keep 2 memories and 1 of the assistant's replies (user 'ana')" in dry.stdout
    assert "- I'm allergic to shellfish" in dry.stdout
    own_only = run(str(CHATS / "claude" / "conversations.json"), "--user", "ana", "--dry-run", "--no-replies")
    assert "would keep 2 memories (user 'ana')" in own_only.stdout, own_only.stdout + own_only.stderr
    shutil.copytree(CHATS / "notes", tmp_path / "notes")
    done = run(str(tmp_path / "notes"), "--user", "ana", "--from", "markdown")
    assert done.returncode == 0 and "kept 2 memories" in done.stdout, done.stderr
    twice = run(str(tmp_path / "notes"), "--user", "ana")
    assert "2 conversations (2 imported before, unchanged), 0 messages of the user read; kept 0" in twice.stdout
    for export, kept in (("chatgpt/conversations.json", 5), ("claude/conversations.json", 2), ("claude-code", 2)):
        out = run(str(CHATS / export), "--user", "ana")
        assert out.returncode == 0 and f"kept {kept} memories" in out.stdout, out.stdout + out.stderr
        assert "pieces queued for a model to read and improve" in out.stdout
    missing = run(str(tmp_path / "nowhere.json"))
    assert missing.returncode == 2 and "nowhere.json: no such file or folder" in missing.stderr
    (tmp_path / "odd.json").write_text(json.dumps([{"hello": 1}]), encoding="utf-8")
    odd = run(str(tmp_path / "odd.json"))
    assert odd.returncode == 2 and "not a ChatGPT or Claude export" in odd.stderr


def test_an_import_killed_midway_then_run_again_ends_as_one_clean_run(tmp_path):
    """kill -9 at some point of an import (before, during or after: each conversation is one transaction),
    then the same command again: the memories are those of one uninterrupted import."""
    from bench.make_chat_export import build

    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(build(150, 10, 5)[0]), encoding="utf-8")
    command = [sys.executable, "-m", "engrain", "import-chats", str(export), "--user", "ana"]

    def rows(home: Path) -> list[tuple[str, str, str]]:
        out = subprocess.run(
            [sys.executable, "-m", "engrain", "export", "--user", "ana", "--no-vectors"],
            env=engrain_env(home),
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        memories = [json.loads(line) for line in out.stdout.splitlines()]
        return sorted((m["content"], m["told_at"], m["source"]) for m in memories if m.get("type") == "memory")

    def queue(home: Path) -> dict[str, object]:
        out = subprocess.run(
            [sys.executable, "-m", "engrain", "status", "--json", "--user", "ana"],
            env=engrain_env(home),
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return json.loads(out.stdout)["imports"]

    killed = tmp_path / "killed"
    process = subprocess.Popen(command, env=engrain_env(killed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        process.wait(timeout=8)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=60)
    again = subprocess.run(command, env=engrain_env(killed), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    clean = tmp_path / "clean"
    once = subprocess.run(command, env=engrain_env(clean), capture_output=True, text=True, timeout=300)
    assert once.returncode == 0, once.stderr
    assert rows(killed) == rows(clean) and len(rows(clean)) > 50
    assert queue(killed) == queue(clean) and queue(clean)["conversations_waiting"] == 150  # each queued once


async def test_the_same_fact_in_other_words_across_conversations_is_kept_once(settings_factory):
    said = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
    first = chats.Chat("chatgpt:a", "A", said, [chats.ChatMessage("user", "I live in Munich with my two cats.", said)])
    second = chats.Chat("claude:b", "B", said, [chats.ChatMessage("user", "i live in munich with my 2 cats!", said)])
    other = chats.Chat("claude:c", "C", said, [chats.ChatMessage("user", "I live in Munich with my three cats.", said)])
    async with connect(settings_factory(), Clock(NOW)) as (_, app):
        report = await app.chat_import.run(app.settings.user, [first, second, other], app.clock())
        assert (report.kept, report.duplicates) == (2, 1)  # a different number is a different fact


def settings_folder(root: Path) -> Path:
    """A folder like /etc (the issue: `engrain import-chats /etc` kept pieces of it for a model to read): a
    colour table, pip's constraints, an INI file, and one README of prose."""
    root.mkdir()
    rows = [f"{n % 256:3d} {n * 7 % 256:3d} {n * 13 % 256:3d}\t\tcolour{n}" for n in range(200)]
    (root / "rgb.txt").write_text("! $Xorg: rgb.txt,v 1.3 $\n" + "\n".join(rows) + "\n")
    (root / "constraints.txt").write_text("# pinned on this machine\ntorch<=2.14.1\ntorchvision<=0.29.1\n")
    (root / "settings.ini").write_text("[server]\nport = 8080\nhost = example.org\n")
    (root / "README.md").write_text("Import and export control rules on cryptographic software vary by country.\n")
    return root


def test_a_folder_of_no_export_and_no_notes_is_refused_and_nothing_is_stored(tmp_path):
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "engrain", "import-chats", str(settings_folder(tmp_path / "etc")), "--user", "ana"],
        env=engrain_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stderr
    assert (
        "etc: holds no export and no notes: looked for a ChatGPT or Claude export (.zip or conversations.json)" in said
    )
    assert "Claude Code sessions (.jsonl) or a folder of Markdown/text notes" in said
    assert "found 4 files: 3 Markdown/text files, 1 note among them (not notes: constraints.txt: 2 of 3 lines" in said
    assert "rgb.txt: 200 of 201 lines are settings or tables" in said and "Traceback" not in said, said
    assert not done.stdout
    status = subprocess.run(
        [sys.executable, "-m", "engrain", "status", "--json", "--user", "ana"],
        env=engrain_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(status.stdout)
    assert report["counts"]["by_kind"] == {} and report["imports"]["pieces_waiting"] == 0


def test_a_notes_folder_says_how_many_notes_it_reads_before_reading_them(tmp_path):
    """A vault: notes, the app's hidden settings, a picture, a text of settings beside them; the notes are read."""
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.json").write_text('{"theme": "dark"}')
    (vault / "Daily").mkdir()
    (vault / "Daily" / "2024-05-01.md").write_text("---\ndate: 2024-05-01\n---\nI started learning the cello today.\n")
    (vault / "Daily" / "2024-05-02.md").write_text("My teacher Anna says I should practise every morning.\n")
    (vault / "Books.md").write_text("# Books to read\n\n- Piranesi\n- Middlemarch\n")
    (vault / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (vault / "plugins.txt").write_text("sync=on\ntheme=dark\n")
    done = subprocess.run(
        [sys.executable, "-m", "engrain", "import-chats", str(vault), "--user", "ana"],
        env=engrain_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"3 notes found in {vault} (2 other files left alone); reading them…", lines
    assert lines[1].startswith("3 conversations, 3 messages of the user read; kept ")
    assert "plugins.txt (2 of 2 lines are settings or tables)" in done.stderr  # the log names what it left
