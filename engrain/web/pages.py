"""The page (engrain ui, /ui over HTTP), by role: `rendering` answers, `signin` knows who is looking and checks
every form, `screens` show (GET) and `actions` change (POST). Each screen and action calls the same service a
tool or resource calls; `screen` and `action` wrap them with the session and the form checks, and show a
service's error as a page."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from engrain.errors import EngrainError
from engrain.web.actions import Actions
from engrain.web.import_screens import ImportScreens
from engrain.web.rendering import Renderer
from engrain.web.screens import Screens
from engrain.web.services import PageServices
from engrain.web.sessions import Session, Sessions
from engrain.web.signin import Forbidden, SignIn, TokenSignIn
from engrain.web.uploads import Uploads

Screen = Callable[[Request, Session], Awaitable[Response]]
Action = Callable[[Request, Session, FormData], Awaitable[Response]]


@dataclass(frozen=True)
class Pages:
    renderer: Renderer
    signin: SignIn
    screens: Screens
    actions: Actions
    imports: ImportScreens

    @classmethod
    def build(
        cls,
        services: PageServices,
        sessions: Sessions,
        *,
        base: str,
        zone: tzinfo | None,
        clock: Callable[[], datetime],
        tokens: TokenSignIn | None = None,
    ) -> Pages:
        """`base`: the path the page is mounted at ("/ui"); `tokens`: a bearer token → its user, for the HTTP
        server (None: `engrain ui`, where only its one-time URL signs in)."""
        renderer = Renderer(base=base, zone=zone, clock=clock)
        signin = SignIn(renderer, sessions, tokens)
        imports = ImportScreens(renderer, services, Uploads(clock))
        return cls(renderer, signin, Screens(renderer, services), Actions(renderer, services), imports)

    def screen(self, handler: Screen) -> Callable[[Request], Awaitable[Response]]:
        """A GET handler that needs a session (else the sign-in page) and shows a service's error as a page."""

        async def endpoint(request: Request) -> Response:
            session = self.signin.session(request)
            if session is None:
                return self.renderer.redirect("/signin")
            try:
                return await handler(request, session)
            except EngrainError as exc:
                return self.renderer.failure(request, session, exc)

        return endpoint

    def action(self, handler: Action) -> Callable[[Request], Awaitable[Response]]:
        """A POST handler: the form must carry the session's CSRF token from this page's origin (else 403)."""

        async def endpoint(request: Request) -> Response:
            try:
                session, form = await self.signin.form(request)
            except Forbidden as exc:
                return HTMLResponse(f"Forbidden: {exc}.", status_code=403)
            try:
                return await handler(request, session, form)
            except EngrainError as exc:
                return self.renderer.failure(request, session, exc)

        return endpoint
