"""How the page answers: a template rendered in the user's zone with the session's user and CSRF token, a
redirect after an action (post/redirect/get) that may announce a fixed notice, and a service's error as a page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

from engrain.errors import EngrainError, NotFound
from engrain.reading.periods import happened_label
from engrain.web.sessions import Session

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
    "import_cancelled": "Cancelled: nothing was imported, and the file is gone.",
    "import_forgotten": "Forgotten for good. Importing the export again would bring it back.",
}


class Renderer:
    """`base`: the path the page is mounted at ("/ui"); `zone`: the user's time zone (None: the machine's)."""

    def __init__(self, *, base: str, zone: tzinfo | None, clock: Callable[[], datetime]) -> None:
        self.base = base
        self.zone = zone
        self.clock = clock
        self.templates = Environment(
            loader=PackageLoader("engrain.web", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.templates.filters["local"] = self._local  # pyright: ignore[reportUnknownMemberType]
        self.templates.filters["happened"] = self._happened  # pyright: ignore[reportUnknownMemberType]

    def _local(self, value: datetime | str | None) -> datetime | None:
        """A stored time in the user's zone (the page shows the user's dates, not the server's)."""
        if value is None or value == "":
            return None
        at = datetime.fromisoformat(value) if isinstance(value, str) else value
        at = at if at.tzinfo else at.replace(tzinfo=UTC)
        return at.astimezone(self.zone) if self.zone else at.astimezone()

    def _happened(self, row: Any) -> str:
        """When a memory (a view or a recall hit) happened, at its precision (reading/periods.py); "" if unknown."""
        start, end = self._local(getattr(row, "event_time", None)), self._local(getattr(row, "event_end", None))
        return happened_label(start, end, getattr(row, "event_grain", None), self.zone) or ""

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
