"""The Import screen (issue 43): choose an export, see what would be kept (the dry run), confirm, watch the import,
then the imported history by where it came from, with a way to forget one conversation or a whole export. The
same services as `engrain import-chats`; uploads wait on disk between the dry run and the import (uploads.py)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlencode

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import Response

from engrain.errors import InvalidInput
from engrain.reading import inputs
from engrain.reading.chats import LABEL, format_of
from engrain.services.memories.import_runs import read_export
from engrain.web.rendering import Renderer
from engrain.web.services import PageServices
from engrain.web.sessions import Session
from engrain.web.uploads import Uploads

SHOWN_CONVERSATIONS = 100  # of a dry run, those that keep the most first


class ImportScreens:
    def __init__(self, renderer: Renderer, services: PageServices, uploads: Uploads) -> None:
        self.page = renderer
        self.s = services
        self.uploads = uploads

    def _since(self, value: str) -> datetime | None:
        value = value.strip()
        return inputs.when("since", value, self.page.clock(), self.page.zone) if value else None

    async def home(self, request: Request, session: Session) -> Response:
        """The upload form, what waits for a model, and the imported history by export."""
        report = await self.s.status.report(session.user, viewer=session.user)
        groups = await self.s.imported.groups(session.user)
        return self.page.render(
            request, "import.html", session, title="Import", nav="import", groups=groups, imports=report.get("imports")
        )

    async def upload(self, request: Request, session: Session, form: FormData) -> Response:
        """Keep the chosen files, then show the dry run (post/redirect/get: a reload runs the dry run again)."""
        files = [f for f in form.getlist("file") if isinstance(f, UploadFile)]
        fmt = str(form.get("format", "auto"))
        since = str(form.get("since", ""))
        self._since(since)  # refused now, before the upload is kept
        upload = await self.uploads.save(session.user, files)
        query = urlencode({"format": fmt} | ({"since": since.strip()} if since.strip() else {}))
        return self.page.redirect(f"/import/{upload.token}?{query}")

    async def preview(self, request: Request, session: Session) -> Response:
        upload = self.uploads.get(session.user, request.path_params["token"])
        fmt = request.query_params.get("format", "auto")
        since = request.query_params.get("since", "")
        found = await read_export(upload.path, fmt)
        report = await self.s.chat_import.run(
            session.user, found, self.page.clock(), since=self._since(since), dry_run=True
        )
        shown = sorted(report.chats, key=lambda c: -c.kept)[:SHOWN_CONVERSATIONS]
        return self.page.render(
            request,
            "import_preview.html",
            session,
            title="Import: what would be kept",
            nav="import",
            upload=upload,
            report=report,
            shown=shown,
            fmt=fmt,
            since=since,
        )

    async def start(self, request: Request, session: Session, form: FormData) -> Response:
        upload = self.uploads.get(session.user, str(form.get("token", "")))
        if form.get("cancel"):
            self.uploads.discard(upload.token)
            return self.page.redirect("/import", "import_cancelled")
        found = await read_export(upload.path, str(form.get("format", "auto")))
        since = self._since(str(form.get("since", "")))
        run = self.s.import_runs.start(
            session.user, found, since=since, cleanup=lambda: self.uploads.discard(upload.token)
        )
        return self.page.redirect(f"/import/runs/{run.id}")

    async def progress(self, request: Request, session: Session) -> Response:
        """The run's progress; the page reloads itself (no script) until it ends."""
        run = self.s.import_runs.get(session.user, request.path_params["run_id"])
        now = self.page.clock()
        return self.page.render(
            request,
            "import_run.html",
            session,
            title="Importing" if run.running else "Imported",
            nav="import",
            run=run,
            left=run.seconds_left(now),
            refresh=run.running,
        )

    async def conversation(self, request: Request, session: Session) -> Response:
        source = request.query_params.get("source", "")
        memories = await self.s.imported.memories(session.user, source)
        fmt = format_of(source)
        return self.page.render(
            request,
            "import_conversation.html",
            session,
            title="Imported conversation",
            nav="import",
            source=source,
            label=LABEL[fmt] if fmt else "",
            memories=memories,
        )

    async def confirm_forget(self, request: Request, session: Session) -> Response:
        source = request.query_params.get("source") or None
        fmt = request.query_params.get("format") or None
        groups = await self.s.imported.groups(session.user)
        if fmt is not None:
            group = next((g for g in groups if g.format == fmt), None)
            if group is None:
                raise InvalidInput("format", f"nothing was imported from {fmt[:40]!r}")
            what, memories = f"everything imported from {group.label}", group.memories
            count = len(group.conversations)
        else:
            found = [c for g in groups for c in g.conversations if c.source == source]
            if not found:
                raise InvalidInput("source", "is no imported conversation of yours")
            what, memories, count = f"the conversation “{found[0].title or found[0].source}”", found[0].memories, 1
        return self.page.render(
            request,
            "import_forget.html",
            session,
            title="Forget imported history",
            nav="import",
            what=what,
            memories=memories,
            conversations=count,
            source=source,
            fmt=fmt,
        )

    async def forget(self, request: Request, session: Session, form: FormData) -> Response:
        await self.s.imported.forget(
            session.user, source=str(form.get("source", "")) or None, fmt=str(form.get("format", "")) or None
        )
        return self.page.redirect("/import", "import_forgotten")
