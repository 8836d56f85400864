"""`engrain ui`: the local page (engrain/web) on 127.0.0.1, over the same home or database as the server, and
the page's services as the HTTP server mounts them at /ui.

The command prints a one-time URL that signs its user in (and opens it in a browser unless --no-browser);
the page runs the job loop like any server process, and stops on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import webbrowser
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import TextIO

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route

from engrain.server.state import AppState
from engrain.services.memories.portability import export_jsonl
from engrain.web.app import build_ui
from engrain.web.pages import Pages
from engrain.web.services import PageServices
from engrain.web.sessions import Sessions
from engrain.web.signin import TokenSignIn

BASE = "/ui"
LOCAL_HOSTS = ["127.0.0.1", "localhost"]


def page_services(app: AppState) -> PageServices:
    async def export(user: str, out: TextIO) -> int:
        return await export_jsonl(app.database, out, user=user)

    return PageServices(
        profile=app.profile,
        traits=app.traits,
        review=app.trait_review,
        recall=app.recall,
        browser=app.browser,
        memory_views=app.memory_views,
        memories=app.memories,
        links=app.links,
        status=app.status,
        export=export,
        chat_import=app.chat_import,
        imported=app.imported,
        import_runs=app.import_runs,
    )


def mounted_ui(app: AppState, sessions: Sessions, signin: TokenSignIn | None = None) -> Mount:
    """The page at /ui, for the local command and the HTTP server alike."""
    pages = Pages.build(page_services(app), sessions, base=BASE, zone=app.settings.tz, clock=app.clock, tokens=signin)
    return Mount(BASE, app=build_ui(pages))


def local_app(app: AppState, sessions: Sessions) -> Starlette:
    """The page alone, for loopback: / leads to it, and a Host other than a loopback name is refused (a page
    elsewhere that rebinds its name to 127.0.0.1 gets 400, never the user's data)."""

    async def home(_: Request) -> Response:
        return RedirectResponse(f"{BASE}/", status_code=307)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncGenerator[None, None]:
        app.acquire()
        try:
            yield
        finally:
            await app.release()

    return Starlette(
        routes=[Route("/", home, methods=["GET"]), mounted_ui(app, sessions)],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=LOCAL_HOSTS)],
        lifespan=lifespan,
    )


def serve_ui(app: AppState, user: str, port: int, open_browser: bool) -> None:
    """Serve the page on 127.0.0.1:`port` until interrupted, signed in as `user` through a one-time URL."""
    import uvicorn

    sessions = Sessions()
    url = f"http://127.0.0.1:{port}{BASE}/login?token={sessions.login_token(user)}"
    print(f"engrain ui for user {user!r}: open {url}\n(the address signs in once; Ctrl-C stops)", flush=True)
    if open_browser:
        webbrowser.open(url)
    uvicorn.run(local_app(app, sessions), host="127.0.0.1", port=port, log_level="warning", lifespan="on")
