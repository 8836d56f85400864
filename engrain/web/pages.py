"""The page's screens and actions (engrain ui, /ui over HTTP). Each handler reads the signed-in user from the
session, calls the same service a tool or resource calls, and renders a template; an action is a POST form
that carries the session's CSRF token and redirects back (post/redirect/get), so a reload never repeats it."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any, Protocol, TextIO
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from engrain.errors import EngrainError, NotFound
from engrain.reading import inputs
from engrain.rules.traits import Stage
from engrain.services.memories.browsing import BrowseRequest, MemoryBrowser
from engrain.services.memories.links import MemoryLinks
from engrain.services.memories.views import MemoryViews
from engrain.services.memories.writing import MemoryWriter, RememberRequest
from engrain.services.profile.view import ProfileView
from engrain.services.recall.search import RecallRequest, RecallSearch
from engrain.services.status_report import StatusReport
from engrain.services.traits.review import TraitReview
from engrain.services.traits.views import TraitViews
from engrain.web import charts
from engrain.web.sessions import COOKIE, Session, Sessions, same_token

SEARCH_LIMIT = 30
EXPORT_CHUNK = 64 * 1024
# What an action's redirect may announce: fixed words, never text from the request.
NOTICES = {
    "endorsed": "Endorsed: it counts as strong evidence.",
    "dismissed": "Dismissed: it will not be inferred again.",
    "edited": "Saved.",
    "redacted": "Saved, with its secrets replaced by placeholders: engrain never stores a key, token or password.",
    "pinned": "Pinned.",
    "unpinned": "Unpinned.",
    "forgotten": "Forgotten for good.",
    "linked": "Linked.",
    "exists": "Those two were already linked.",
}
TRAIT_GROUPS = (
    ("Core", (Stage.CORE,)),
    ("Established", (Stage.ESTABLISHED,)),
    ("Forming (tentative, not yet confirmed)", (Stage.EMERGING, Stage.CANDIDATE)),
    ("Trends (seen lately, not yet a trait)", (Stage.TREND,)),
)
Export = Callable[[str, TextIO], Awaitable[int]]


class TokenSignIn(Protocol):
    """The HTTP server's bearer tokens as the page's sign-in uses them (server/tokens.StaticTokenVerifier)."""

    def sign_in(self, token: str) -> tuple[str, bytes] | None:
        """The token's user and the digest the session keeps, or None for a token not known."""
        ...

    def user_of_digest(self, digest: bytes) -> str | None:
        """Whom the token of this digest stands for now (None once it is removed)."""
        ...


@dataclass(frozen=True)
class PageServices:
    """What the page uses: the services the tools and resources use, and the export writer."""

    profile: ProfileView
    traits: TraitViews
    review: TraitReview
    recall: RecallSearch
    browser: MemoryBrowser
    memory_views: MemoryViews
    memories: MemoryWriter
    links: MemoryLinks
    status: StatusReport
    export: Export


class Forbidden(Exception):
    """A form without the session's CSRF token, or from another origin."""


class Pages:
    """The handlers. `base`: the path the page is mounted at ("/ui"); `signin`: a bearer token → its user, for
    the HTTP server (None: `engrain ui`, where only its one-time URL signs in)."""

    def __init__(
        self,
        services: PageServices,
        sessions: Sessions,
        *,
        base: str,
        zone: tzinfo | None,
        clock: Callable[[], datetime],
        signin: TokenSignIn | None = None,
    ) -> None:
        self.s = services
        self.sessions = sessions
        self.base = base
        self.zone = zone
        self.clock = clock
        self.signin_with = signin
        self.templates = Environment(
            loader=PackageLoader("engrain.web", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.templates.filters["local"] = self._local  # pyright: ignore[reportUnknownMemberType]

    # ---- rendering -------------------------------------------------------------------

    def _local(self, value: datetime | str | None) -> datetime | None:
        """A stored time in the user's zone (the page shows the user's dates, not the server's)."""
        if value is None or value == "":
            return None
        at = datetime.fromisoformat(value) if isinstance(value, str) else value
        at = at if at.tzinfo else at.replace(tzinfo=UTC)
        return at.astimezone(self.zone) if self.zone else at.astimezone()

    def render(
        self, request: Request, name: str, session: Session | None, status: int = 200, **values: Any
    ) -> HTMLResponse:
        done = request.query_params.get("done", "")
        html = self.templates.get_template(name).render(
            base=self.base,
            user=session.user if session else None,
            csrf=session.csrf if session else "",
            zone=getattr(self.zone, "key", ""),
            notice=NOTICES.get(done),
            **values,
        )
        return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})

    def redirect(self, path: str, done: str | None = None) -> RedirectResponse:
        return RedirectResponse(f"{self.base}{path}" + (f"?done={done}" if done else ""), status_code=303)

    def failure(self, request: Request, session: Session | None, exc: EngrainError) -> HTMLResponse:
        status = 404 if isinstance(exc, NotFound) else 400
        title = "Not found" if status == 404 else "That did not work"
        return self.render(request, "error.html", session, status, title=title, error=str(exc))

    # ---- sessions --------------------------------------------------------------------

    def session(self, request: Request) -> Session | None:
        """The request's live session. One opened with a bearer token lives only as long as that token stands
        for its user: once the token is removed from ENGRAIN_TOKENS, or given to someone else, the session is
        closed at its next request, as MCP refuses the token (the tokens file is read again within seconds)."""
        sid = request.cookies.get(COOKIE)
        session = self.sessions.get(sid)
        if session is not None and session.credential is not None:
            holder = self.signin_with.user_of_digest(session.credential) if self.signin_with else None
            if holder != session.user:
                self.sessions.close(sid)
                return None
        return session

    def _signed_in(self, sid: str) -> RedirectResponse:
        response = self.redirect("/")
        # HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), scoped to the page's path.
        response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path=self.base or "/")
        return response

    async def login(self, request: Request) -> Response:
        """GET /login?token=…: the one-time URL of `engrain ui`. The token is used up and never stays in the URL."""
        sid = self.sessions.redeem(request.query_params.get("token", ""))
        if sid is None:
            return self._signin_form(request, "That sign-in address was used already or has expired.")
        return self._signed_in(sid)

    def _signin_form(self, request: Request, error: str | None = None) -> HTMLResponse:
        """The sign-in page: a token field over HTTP, the way to a new one-time URL for `engrain ui`; with
        `error`, a 401 that says why the last attempt failed."""
        status = 200 if error is None else 401
        token_signin = self.signin_with is not None
        return self.render(
            request, "signin.html", None, status, title="Sign in", token_signin=token_signin, error=error
        )

    async def signin_page(self, request: Request) -> Response:
        return self._signin_form(request)

    async def signin(self, request: Request) -> Response:
        """POST /signin (HTTP server): a user's bearer token opens a session for that user, and only that user.
        A form posted from another origin is refused: another site must not sign the browser in as someone else
        (login CSRF)."""
        if not self.same_origin(request):
            return HTMLResponse("Forbidden: cross-origin sign-in.", status_code=403)
        token = (await request.form()).get("token")
        held = self.signin_with.sign_in(token) if self.signin_with and isinstance(token, str) and token else None
        if held is None:
            return self._signin_form(request, "That token is not known to this server.")
        user, credential = held
        return self._signed_in(self.sessions.open(user, credential))

    async def signout(self, request: Request, session: Session, form: FormData) -> Response:
        self.sessions.close(request.cookies.get(COOKIE))
        response = self.redirect("/signin")
        response.delete_cookie(COOKIE, path=self.base or "/")
        return response

    @staticmethod
    def same_origin(request: Request) -> bool:
        """A browser's Origin, when it sends one, is this page's own."""
        origin = request.headers.get("origin")
        return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"

    async def form(self, request: Request) -> tuple[Session, FormData]:
        """The session and form of a POST, or Forbidden: the CSRF token must be the session's, and a browser's
        Origin, when it sends one, this page's own."""
        session = self.session(request)
        if not self.same_origin(request):
            raise Forbidden("cross-origin form")
        form = await request.form()
        csrf = form.get("csrf")
        if session is None or not same_token(csrf if isinstance(csrf, str) else None, session.csrf):
            raise Forbidden("missing or wrong CSRF token")
        return session, form

    # ---- screens ---------------------------------------------------------------------

    async def profile(self, request: Request, session: Session) -> Response:
        as_of = request.query_params.get("as_of") or None
        page = await self.s.profile.sections(session.user, as_of)
        return self.render(request, "profile.html", session, title="Profile", nav="profile", page=page, as_of=as_of)

    async def traits(self, request: Request, session: Session) -> Response:
        listed = (await self.s.traits.list(session.user, min_stage=Stage.TREND)).traits
        groups = [(title, [t for t in listed if t.stage in stages]) for title, stages in TRAIT_GROUPS]
        return self.render(
            request, "traits.html", session, title="Traits", nav="traits", groups=[g for g in groups if g[1]]
        )

    async def trait(self, request: Request, session: Session) -> Response:
        detail = await self.s.traits.detail(session.user, request.path_params["trait_id"])
        points = [
            (datetime.fromisoformat(h.at), h.confidence, h.action) for h in detail.history if h.confidence is not None
        ]
        if detail.confidence is not None and detail.stage != Stage.DISSOLVED:
            points.append((self.clock(), detail.confidence, "now: decayed since its last change, if unconfirmed"))
        return self.render(
            request,
            "trait.html",
            session,
            title="Trait",
            nav="traits",
            trait=detail,
            chart=charts.confidence(points),
            max_chars=inputs.MAX_CONTENT_CHARS,
        )

    async def memories(self, request: Request, session: Session) -> Response:
        q = request.query_params
        form = {k: q.get(k, "") for k in ("q", "kind", "temporality", "namespace", "since", "until")}
        browse = BrowseRequest(
            kind=form["kind"],
            temporality=form["temporality"],
            namespace=form["namespace"],
            since=form["since"],
            until=form["until"],
            page=int(q["page"]) if q.get("page", "").isdigit() else 1,
        )
        searching = bool(form["q"].strip())
        # Checks every filter and feeds the chart; the page of memories only when there is no search to show.
        listing = await self.s.browser.page(session.user, browse, listing=not searching)
        hits = None
        if searching:
            result = await self.s.recall.recall(
                session.user,
                RecallRequest(
                    query=form["q"],
                    limit=SEARCH_LIMIT,
                    kinds=[form["kind"]] if form["kind"] else None,
                    namespace=form["namespace"] or None,
                    since=form["since"] or None,
                    until=form["until"] or None,
                    track_access=False,  # the user looking is not the model using a memory
                ),
            )
            hits = [h for h in result.results if not form["temporality"] or h.temporality == form["temporality"]]

        def page_url(n: int) -> str:
            return f"{self.base}/memories?" + urlencode({**{k: v for k, v in form.items() if v}, "page": n})

        return self.render(
            request,
            "memories.html",
            session,
            title="Memories",
            nav="memories",
            form=form,
            hits=hits,
            browse=listing,
            chart=charts.weekly(listing.weeks),
            kinds=inputs.ALL_KINDS,
            temporalities=inputs.TEMPORALITIES,
            namespaces=listing.namespaces,
            page_url=page_url,
            max_query=inputs.MAX_QUERY_CHARS,
        )

    async def memory(self, request: Request, session: Session) -> Response:
        detail = await self.s.memory_views.detail(session.user, request.path_params["memory_id"])
        if detail.kind == "trait":
            return self.redirect(f"/traits/{detail.id}")
        live = detail.valid_until is None or detail.valid_until > self.clock()
        return self.render(
            request,
            "memory.html",
            session,
            title="Memory",
            nav="memories",
            memory=detail,
            live=live,
            max_chars=inputs.MAX_CONTENT_CHARS,
        )

    async def confirm_forget(self, request: Request, session: Session) -> Response:
        detail = await self.s.memory_views.detail(session.user, request.path_params["memory_id"])
        return self.render(
            request,
            "forget.html",
            session,
            title="Forget",
            nav="memories",
            memory=detail,
            reasons=inputs.FORGET_REASONS,
        )

    async def status(self, request: Request, session: Session) -> Response:
        report = await self.s.status.report(session.user, viewer=session.user)
        return self.render(request, "status.html", session, title="Status", nav="status", s=report)

    async def export(self, request: Request, session: Session) -> Response:
        """The user's memories, links, traits and history as `engrain export` writes them (JSON lines that
        `engrain import` reads), written to a
        temporary file and streamed."""
        spool = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - closed by the stream below
        await self.s.export(session.user, spool)
        spool.seek(0)

        async def chunks() -> AsyncIterator[str]:
            with spool:
                while chunk := spool.read(EXPORT_CHUNK):
                    yield chunk

        return StreamingResponse(
            chunks(),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": 'attachment; filename="engrain-export.jsonl"', "Cache-Control": "no-store"},
        )

    # ---- actions ---------------------------------------------------------------------

    async def review(self, request: Request, session: Session, form: FormData) -> Response:
        trait_id = request.path_params["trait_id"]
        action = str(form.get("action", ""))
        content = str(form.get("content", "")) if action == "edit" else None
        result = await self.s.review.review(session.user, trait_id, action, content)
        done = {"endorse": "endorsed", "dismiss": "dismissed", "edit": "edited"}[result.action]
        return self.redirect(f"/traits/{result.id}", done)

    async def edit(self, request: Request, session: Session, form: FormData) -> Response:
        """A new wording supersedes the memory (its history keeps the old one); relative dates in the new words
        are read against the time the old one was told."""
        old = await self.s.memory_views.detail(session.user, request.path_params["memory_id"])
        result = await self.s.memories.remember(
            session.user,
            RememberRequest(
                content=str(form.get("content", "")),
                kind=old.kind,
                namespace=old.namespace,
                category=old.category,
                tags=old.tags or None,
                pinned=old.pinned,
                supersedes=old.id,
                said_at=old.told_at.isoformat(),
            ),
        )
        return self.redirect(f"/memories/{result.id}", "redacted" if result.redacted else "edited")

    async def pin(self, request: Request, session: Session, form: FormData) -> Response:
        pinned = form.get("pinned") == "1"
        result = await self.s.memories.pin(session.user, request.path_params["memory_id"], pinned)
        return self.redirect(f"/memories/{result.id}", "pinned" if pinned else "unpinned")

    async def forget(self, request: Request, session: Session, form: FormData) -> Response:
        reason = str(form.get("reason", "")) or None
        await self.s.memories.forget(session.user, request.path_params["memory_id"], reason)
        return self.redirect("/memories", "forgotten")

    async def link(self, request: Request, session: Session, form: FormData) -> Response:
        result = await self.s.links.link(
            session.user,
            str(form.get("source_id", "")).strip(),
            str(form.get("target_id", "")).strip(),
            str(form.get("relation", "")).strip() or "related",
        )
        return self.redirect(f"/memories/{result.source_id}", "linked" if result.status == "created" else "exists")


Screen = Callable[[Pages, Request, Session], Awaitable[Response]]
Action = Callable[[Pages, Request, Session, FormData], Awaitable[Response]]


def screen(pages: Pages, handler: Screen) -> Callable[[Request], Awaitable[Response]]:
    """A GET handler that needs a session (else the sign-in page) and shows a service's error as a page."""

    async def endpoint(request: Request) -> Response:
        session = pages.session(request)
        if session is None:
            return pages.redirect("/signin")
        try:
            return await handler(pages, request, session)
        except EngrainError as exc:
            return pages.failure(request, session, exc)

    return endpoint


def action(pages: Pages, handler: Action) -> Callable[[Request], Awaitable[Response]]:
    """A POST handler: the form must carry the session's CSRF token from this page's origin (else 403)."""

    async def endpoint(request: Request) -> Response:
        try:
            session, form = await pages.form(request)
        except Forbidden as exc:
            return HTMLResponse(f"Forbidden: {exc}.", status_code=403)
        try:
            return await handler(pages, request, session, form)
        except EngrainError as exc:
            return pages.failure(request, session, exc)

    return endpoint
