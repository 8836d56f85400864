"""The page's screens (GET): the profile, the traits and one trait, the memories (search, filters, the weekly
chart) and one memory, the forget confirmation, the status, and the export download. Each calls the service a
tool or resource calls, for the signed-in user."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from datetime import datetime
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from engrain.reading import inputs
from engrain.rules.traits import Stage
from engrain.services.memories.browsing import BrowseRequest
from engrain.services.recall.search import RecallRequest
from engrain.web import charts
from engrain.web.rendering import Renderer
from engrain.web.services import PageServices
from engrain.web.sessions import Session

SEARCH_LIMIT = 30
EXPORT_CHUNK = 64 * 1024
TRAIT_GROUPS = (
    ("Core", (Stage.CORE,)),
    ("Established", (Stage.ESTABLISHED,)),
    ("Forming (tentative, not yet confirmed)", (Stage.EMERGING, Stage.CANDIDATE)),
    ("Trends (seen lately, not yet a trait)", (Stage.TREND,)),
)


class Screens:
    def __init__(self, renderer: Renderer, services: PageServices) -> None:
        self.page = renderer
        self.s = services

    async def profile(self, request: Request, session: Session) -> Response:
        as_of = request.query_params.get("as_of") or None
        page = await self.s.profile.sections(session.user, as_of)
        return self.page.render(
            request, "profile.html", session, title="Profile", nav="profile", page=page, as_of=as_of
        )

    async def traits(self, request: Request, session: Session) -> Response:
        listed = (await self.s.traits.list(session.user, min_stage=Stage.TREND)).traits
        groups = [(title, [t for t in listed if t.stage in stages]) for title, stages in TRAIT_GROUPS]
        return self.page.render(
            request, "traits.html", session, title="Traits", nav="traits", groups=[g for g in groups if g[1]]
        )

    async def trait(self, request: Request, session: Session) -> Response:
        detail = await self.s.traits.detail(session.user, request.path_params["trait_id"])
        points = [
            (datetime.fromisoformat(h.at), h.confidence, h.action) for h in detail.history if h.confidence is not None
        ]
        if detail.confidence is not None and detail.stage != Stage.DISSOLVED:
            points.append((self.page.clock(), detail.confidence, "now: decayed since its last change, if unconfirmed"))
        return self.page.render(
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
            return f"{self.page.base}/memories?" + urlencode({**{k: v for k, v in form.items() if v}, "page": n})

        return self.page.render(
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
            return self.page.redirect(f"/traits/{detail.id}")
        live = detail.valid_until is None or detail.valid_until > self.page.clock()
        return self.page.render(
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
        return self.page.render(
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
        return self.page.render(request, "status.html", session, title="Status", nav="status", s=report)

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
