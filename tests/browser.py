"""A real browser for the page's tests: Debian's chromium driven by Playwright (never a downloaded browser),
and the page served in-process by uvicorn on a free loopback port."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from playwright.async_api import Browser, async_playwright

from engrain.server.state import AppState
from engrain.server.ui import local_app
from engrain.web.sessions import Sessions
from tests.http_server import free_port

# As the machine notes say: without the background-networking flags chromium keeps dialling out of a closed network.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str:
    found = os.environ.get("ENGRAIN_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise RuntimeError("the page's tests need Debian's chromium: apt-get install chromium (.ci/run does)")
    return found


@asynccontextmanager
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=chromium_path(), headless=True, args=FLAGS)
        try:
            yield b
        finally:
            await b.close()


@asynccontextmanager
async def page_server(app: AppState, sessions: Sessions) -> AsyncIterator[str]:
    """`engrain ui`'s application for `app`, served in this event loop; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(local_app(app, sessions), host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    task = asyncio.ensure_future(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def collect_dialogs(page: Any) -> list[str]:
    """Every alert/confirm a page opens (a script that ran): recorded and dismissed."""
    opened: list[str] = []

    async def on_dialog(dialog: Any) -> None:
        opened.append(dialog.message)
        await dialog.dismiss()

    page.on("dialog", on_dialog)
    return opened
