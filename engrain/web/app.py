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

from engrain.web.pages import Pages

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
    screens, actions, signin, imports = pages.screens, pages.actions, pages.signin, pages.imports
    routes = [
        Route("/", pages.screen(screens.profile), methods=["GET"]),
        Route("/traits", pages.screen(screens.traits), methods=["GET"]),
        Route("/traits/{trait_id}", pages.screen(screens.trait), methods=["GET"]),
        Route("/traits/{trait_id}/review", pages.action(actions.review), methods=["POST"]),
        Route("/memories", pages.screen(screens.memories), methods=["GET"]),
        Route("/memories/{memory_id}", pages.screen(screens.memory), methods=["GET"]),
        Route("/memories/{memory_id}/edit", pages.action(actions.edit), methods=["POST"]),
        Route("/memories/{memory_id}/pin", pages.action(actions.pin), methods=["POST"]),
        Route("/memories/{memory_id}/forget", pages.screen(screens.confirm_forget), methods=["GET"]),
        Route("/memories/{memory_id}/forget", pages.action(actions.forget), methods=["POST"]),
        Route("/links", pages.action(actions.link), methods=["POST"]),
        Route("/import", pages.screen(imports.home), methods=["GET"]),
        Route("/import", pages.action(imports.upload), methods=["POST"]),
        Route("/import/start", pages.action(imports.start), methods=["POST"]),
        Route("/import/runs/{run_id}", pages.screen(imports.progress), methods=["GET"]),
        Route("/import/conversation", pages.screen(imports.conversation), methods=["GET"]),
        Route("/import/forget", pages.screen(imports.confirm_forget), methods=["GET"]),
        Route("/import/forget", pages.action(imports.forget), methods=["POST"]),
        Route("/import/{token}", pages.screen(imports.preview), methods=["GET"]),
        Route("/status", pages.screen(screens.status), methods=["GET"]),
        Route("/export", pages.screen(screens.export), methods=["GET"]),
        Route("/login", signin.login, methods=["GET"]),
        Route("/signin", signin.signin_page, methods=["GET"]),
        Route("/signin", signin.signin, methods=["POST"]),
        Route("/signout", pages.action(signin.signout), methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)])
