"""Hostile exports through the page's Import screen (issue 50, item 4), in a real browser: each is refused with
a clear error naming the file and the entry, nothing is stored, and the page keeps serving; conversation titles
that hold HTML are shown as text, in the dry run and in the imported history, and run nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from engrain.web.sessions import Sessions
from tests.browser import browser, collect_dialogs, page_server
from tests.conftest import Clock, connect, scalar
from tests.services.memories.test_hostile_imports import nested_brackets, not_utf8, zip_bomb

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
TITLES = ['<img src=x onerror="alert(1)">Trip', "<script>alert(2)</script>Plans"]


def titled_export(path, titles: list[str]):
    conversations = []
    for n, title in enumerate(titles):
        text = f"I moved to Lisbon in March and I work as a nurse there, note {n}."
        node = {"message": {"author": {"role": "user"}, "create_time": 1.7e9, "content": {"content_type": "text"}}}
        node["message"]["content"]["parts"] = [text]
        conversations.append({"id": f"c{n}", "title": title, "mapping": {"a": node}, "current_node": "a"})
    path.write_text(json.dumps(conversations))
    return path


async def test_hostile_exports_are_refused_by_name_and_titles_stay_text(settings_factory, tmp_path):
    for folder in ("deep", "latin1", "titled"):
        (tmp_path / folder).mkdir()
    hostile = [
        (nested_brackets(tmp_path / "deep" / "conversations.json"), "conversation 0: nested more than 64 deep"),
        (zip_bomb(tmp_path / "export.zip"), "export.zip entry conversations.json: inflates to"),
        (not_utf8(tmp_path / "latin1" / "conversations.json"), "conversations.json: not UTF-8 text"),
    ]
    async with connect(settings_factory(), Clock(NOW)) as (_, app):
        sessions = Sessions()
        count = "SELECT count(*) FROM memories WHERE user_id = :u"
        async with page_server(app, sessions) as base, browser() as b:
            page = await b.new_page()
            dialogs = await collect_dialogs(page)
            await page.goto(f"{base}/ui/login?token={sessions.login_token(app.settings.user)}")
            for path, said in hostile:
                await page.get_by_role("link", name="Import", exact=True).click()
                await page.locator("#file").set_input_files(str(path))
                await page.get_by_role("button", name="See what would be kept").click()
                error = await page.locator(".error").inner_text()
                assert said in error and str(tmp_path) not in error, error
                assert await scalar(app, count, u=app.settings.user) == 0
                await page.get_by_role("link", name="Memories", exact=True).click()  # the page keeps serving
                await page.wait_for_url(f"{base}/ui/memories")

            await page.get_by_role("link", name="Import", exact=True).click()
            titled = titled_export(tmp_path / "titled" / "conversations.json", TITLES)
            await page.locator("#file").set_input_files(str(titled))
            await page.get_by_role("button", name="See what would be kept").click()
            listed = await page.locator("main").inner_text()
            assert all(title in listed for title in TITLES), listed  # the titles as written, as text
            await page.get_by_role("button", name="Import 2 conversations").click()
            await page.locator("#summary").wait_for(timeout=60_000)
            await page.get_by_role("link", name="See what came in").click()
            history = await page.locator("main").inner_text()
            assert all(title in history for title in TITLES), history
            assert await page.locator("main img, main script").count() == 0
            assert dialogs == []
