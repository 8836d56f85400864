"""The Import screen (issue 43, item 5) in a real browser, Debian's chromium driven by Playwright: each kind of
export chosen as a user chooses it (a ChatGPT conversations.json, a Claude .zip, Claude Code sessions, several
notes), the dry run that stores nothing, the import confirmed and watched to its end, the imported history by
export with what waits for a model, one conversation's memories, and forgetting a conversation and a whole
export — each checked in the database. A corrupt file is refused naming the file and the entry."""

from __future__ import annotations

import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engrain.web.sessions import Sessions
from tests.browser import browser, collect_dialogs, page_server
from tests.conftest import DATA, Clock, connect, scalar

pytestmark = pytest.mark.anyio
CHATS = DATA / "chats"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


async def memories_of(app, source_like: str) -> int:
    sql = "SELECT count(*) FROM memories WHERE user_id = :u AND valid_until IS NULL AND source LIKE :s"
    return await scalar(app, sql, u=app.settings.user, s=source_like)


async def test_each_export_through_the_import_screen_then_forget_a_conversation_and_an_export(
    settings_factory, tmp_path: Path
):
    claude_zip = tmp_path / "claude-export.zip"
    with zipfile.ZipFile(claude_zip, "w") as z:
        z.write(CHATS / "claude" / "conversations.json", "conversations.json")
    uploads: list[tuple[list[Path], str, str]] = [  # files, a line of the dry run's examples, the export's name
        ([CHATS / "chatgpt" / "conversations.json"], "I live in Munich with my two cats", "ChatGPT"),
        ([claude_zip], "I'm allergic to shellfish", "Claude"),
        (sorted((CHATS / "claude-code").rglob("*.jsonl")), "I prefer pytest over unittest", "Claude Code"),
        (sorted((CHATS / "notes").iterdir()), "We went hiking in the Dolomites", "Notes"),
    ]
    async with connect(settings_factory(), Clock(NOW)) as (_, app):
        sessions = Sessions()
        async with page_server(app, sessions) as base, browser() as b:
            page = await b.new_page()
            dialogs = await collect_dialogs(page)
            await page.goto(f"{base}/ui/login?token={sessions.login_token(app.settings.user)}")
            for files, example, label in uploads:
                before = await memories_of(app, "%")
                await page.get_by_role("link", name="Import", exact=True).click()
                await page.locator("#file").set_input_files([str(f) for f in files])
                await page.get_by_role("button", name="See what would be kept").click()
                assert "would be kept" in await page.locator("#dry-run").inner_text()
                assert example in await page.locator("#examples").inner_text()
                assert await memories_of(app, "%") == before  # the dry run stores nothing
                await page.get_by_role("button", name=re.compile(r"^Import \d+ conversation")).click()
                await page.locator("#summary").wait_for(timeout=60_000)  # the page reloads itself until done
                assert "memor" in await page.locator("#summary").inner_text()
                assert await memories_of(app, "%") > before, label
                await page.get_by_role("link", name="See what came in").click()
                await page.wait_for_url(f"{base}/ui/import")
                await page.locator(".import-group h3").first.wait_for()
                shown = await page.locator(".import-group h3").all_inner_texts()
                assert any(h.startswith(f"{label}:") for h in shown), shown

            groups = await page.locator(".import-group h3").all_inner_texts()
            assert [g.split(":")[0] for g in groups] == ["ChatGPT", "Claude", "Claude Code", "Notes"]
            assert "waiting for a model" in groups[0]  # queued for a model to read properly
            assert "Waiting for a model to read them properly" in await page.locator("#import-queue").inner_text()

            # One conversation: its memories with their told days, then forgotten.
            await page.get_by_role("link", name="Marathon training").click()
            listed = await page.locator("#conversation-memories").inner_text()
            assert "said May 8, 2023 I live in Munich with my two cats" in listed  # its told day (ui.js words it)
            await page.get_by_role("link", name="Forget this conversation…").click()
            await page.get_by_role("button", name="Forget for good").click()
            assert "Forgotten for good" in await page.locator(".notice").inner_text()
            assert await memories_of(app, "chatgpt:c1-marathon") == 0
            assert await memories_of(app, "chatgpt:c2-%") > 0
            left = "SELECT count(*) FROM chat_imports WHERE user_id = :u AND source = 'chatgpt:c1-marathon'"
            assert await scalar(app, left, u=app.settings.user) == 0

            # A whole export.
            await page.get_by_role("link", name="Forget everything imported from Claude Code…").click()
            await page.wait_for_url(f"{base}/ui/import/forget?format=claude-code")
            confirm = await page.locator("main").inner_text()
            assert "Forget everything imported from Claude Code?" in confirm and "1 conversation" in confirm
            await page.get_by_role("button", name="Forget for good").click()
            await page.wait_for_url(f"{base}/ui/import?done=import_forgotten")
            assert await memories_of(app, "claude-code:%") == 0 and await memories_of(app, "claude:%") > 0
            groups = await page.locator(".import-group h3").all_inner_texts()
            assert [g.split(":")[0] for g in groups] == ["ChatGPT", "Claude", "Notes"]

            # A corrupt export is refused, naming the file and the entry; nothing is stored.
            broken = tmp_path / "conversations.json"
            broken.write_text('[{"mapping": {}}, {"title": "no mapping"}]', encoding="utf-8")
            before = await memories_of(app, "%")
            await page.get_by_role("link", name="Import", exact=True).click()
            await page.locator("#file").set_input_files(str(broken))
            await page.get_by_role("button", name="See what would be kept").click()
            error = await page.locator(".error").inner_text()
            assert "conversations.json conversation 1: mapping: Field required" in error, error
            assert await memories_of(app, "%") == before
            assert dialogs == []
