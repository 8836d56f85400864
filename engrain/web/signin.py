"""Who is looking at the page: sign-in (the one-time URL of `engrain ui`, a bearer token over HTTP), the
session of a request, sign-out, and the checks every form must pass (the session's CSRF token, the page's own
origin)."""

from __future__ import annotations

from typing import Protocol

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from engrain.web.rendering import Renderer
from engrain.web.sessions import COOKIE, Session, Sessions, same_token


class TokenSignIn(Protocol):
    """The HTTP server's bearer tokens as the page's sign-in uses them (server/tokens.StaticTokenVerifier)."""

    def sign_in(self, token: str) -> tuple[str, bytes] | None:
        """The token's user and the digest the session keeps, or None for a token not known."""
        ...

    def user_of_digest(self, digest: bytes) -> str | None:
        """Whom the token of this digest stands for now (None once it is removed)."""
        ...


class Forbidden(Exception):
    """A form without the session's CSRF token, or from another origin."""


class SignIn:
    """`tokens`: a bearer token → its user, for the HTTP server (None: `engrain ui`, where only its one-time URL
    signs in)."""

    def __init__(self, renderer: Renderer, sessions: Sessions, tokens: TokenSignIn | None = None) -> None:
        self.page = renderer
        self.sessions = sessions
        self.tokens = tokens

    def session(self, request: Request) -> Session | None:
        """The request's live session. One opened with a bearer token lives only as long as that token stands
        for its user: once the token is removed from ENGRAIN_TOKENS, or given to someone else, the session is
        closed at its next request, as MCP refuses the token (the tokens file is read again within seconds)."""
        sid = request.cookies.get(COOKIE)
        session = self.sessions.get(sid)
        if session is not None and session.credential is not None:
            holder = self.tokens.user_of_digest(session.credential) if self.tokens else None
            if holder != session.user:
                self.sessions.close(sid)
                return None
        return session

    def _signed_in(self, sid: str) -> RedirectResponse:
        response = self.page.redirect("/")
        # HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), scoped to the page's path.
        response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path=self.page.base or "/")
        return response

    async def login(self, request: Request) -> Response:
        """GET /login?token=…: the one-time URL of `engrain ui`. The token is used up and never stays in the URL."""
        sid = self.sessions.redeem(request.query_params.get("token", ""))
        if sid is None:
            return self._form(request, "That sign-in address was used already or has expired.")
        return self._signed_in(sid)

    def _form(self, request: Request, error: str | None = None) -> HTMLResponse:
        """The sign-in page: a token field over HTTP, the way to a new one-time URL for `engrain ui`; with
        `error`, a 401 that says why the last attempt failed."""
        status = 200 if error is None else 401
        token_signin = self.tokens is not None
        return self.page.render(
            request, "signin.html", None, status, title="Sign in", token_signin=token_signin, error=error
        )

    async def signin_page(self, request: Request) -> Response:
        return self._form(request)

    async def signin(self, request: Request) -> Response:
        """POST /signin (HTTP server): a user's bearer token opens a session for that user, and only that user.
        A form posted from another origin is refused: another site must not sign the browser in as someone else
        (login CSRF)."""
        if not same_origin(request):
            return HTMLResponse("Forbidden: cross-origin sign-in.", status_code=403)
        token = (await request.form()).get("token")
        held = self.tokens.sign_in(token) if self.tokens and isinstance(token, str) and token else None
        if held is None:
            return self._form(request, "That token is not known to this server.")
        user, credential = held
        return self._signed_in(self.sessions.open(user, credential))

    async def signout(self, request: Request, session: Session, form: FormData) -> Response:
        self.sessions.close(request.cookies.get(COOKIE))
        response = self.page.redirect("/signin")
        response.delete_cookie(COOKIE, path=self.page.base or "/")
        return response

    async def form(self, request: Request) -> tuple[Session, FormData]:
        """The session and form of a POST, or Forbidden: the CSRF token must be the session's, and a browser's
        Origin, when it sends one, this page's own."""
        session = self.session(request)
        if not same_origin(request):
            raise Forbidden("cross-origin form")
        form = await request.form()
        csrf = form.get("csrf")
        if session is None or not same_token(csrf if isinstance(csrf, str) else None, session.csrf):
            raise Forbidden("missing or wrong CSRF token")
        return session, form


def same_origin(request: Request) -> bool:
    """A browser's Origin, when it sends one, is this page's own."""
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"
