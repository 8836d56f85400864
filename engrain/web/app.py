"""The page as an ASGI application: its routes, its static files, and the headers that keep memory text inert.

Every response carries a Content-Security-Policy that allows scripts and styles from the page itself only
(no inline script can run, whatever a memory says), no framing, and forms posted back to the page alone.
`engrain ui` serves it alone on 127.0.0.1; the HTTP server mounts it at /ui (server/http.py).
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engrain.web.pages import Pages, action, screen

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
# Referrer-Policy same-origin, not no-referrer: with no-referrer a browser posts forms with `Origin: null`, and
# the Origin check could no longer tell this page's forms from another site's.
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Adds HEADERS to every response of the page (static files included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


def build_ui(pages: Pages) -> Starlette:
    """The page's routes over `pages`' handlers, to be mounted at `pages.base` ("/ui")."""
    routes = [
        Route("/", screen(pages, Pages.profile), methods=["GET"]),
        Route("/traits", screen(pages, Pages.traits), methods=["GET"]),
        Route("/traits/{trait_id}", screen(pages, Pages.trait), methods=["GET"]),
        Route("/traits/{trait_id}/review", action(pages, Pages.review), methods=["POST"]),
        Route("/memories", screen(pages, Pages.memories), methods=["GET"]),
        Route("/memories/{memory_id}", screen(pages, Pages.memory), methods=["GET"]),
        Route("/memories/{memory_id}/edit", action(pages, Pages.edit), methods=["POST"]),
        Route("/memories/{memory_id}/pin", action(pages, Pages.pin), methods=["POST"]),
        Route("/memories/{memory_id}/forget", screen(pages, Pages.confirm_forget), methods=["GET"]),
        Route("/memories/{memory_id}/forget", action(pages, Pages.forget), methods=["POST"]),
        Route("/links", action(pages, Pages.link), methods=["POST"]),
        Route("/status", screen(pages, Pages.status), methods=["GET"]),
        Route("/export", screen(pages, Pages.export), methods=["GET"]),
        Route("/login", pages.login, methods=["GET"]),
        Route("/signin", pages.signin_page, methods=["GET"]),
        Route("/signin", pages.signin, methods=["POST"]),
        Route("/signout", action(pages, Pages.signout), methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)])
