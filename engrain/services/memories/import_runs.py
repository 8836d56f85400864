"""Imports started from the page (issue 43, the Import screen): an export read and imported in the background
while the page shows its progress. A run belongs to one user (another user's run id is unknown); the process
keeps its last runs in memory. Closing the process cancels a run between two pieces: each piece is one
transaction, and importing the export again goes on where it stopped (services/memories/importing.py)."""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

from engrain.errors import EngrainError, InvalidInput, NotFound
from engrain.reading import chats
from engrain.services.memories.importing import ChatCount, ChatImporter, ImportReport

log = logging.getLogger(__name__)
KEPT_RUNS = 50


@dataclass
class ImportRun:
    """One import and how far it is."""

    id: str
    user_id: str
    started_at: datetime
    total: int  # conversations
    done: int = 0
    messages: int = 0
    kept: int = 0
    finished_at: datetime | None = None
    report: ImportReport | None = None
    error: str | None = None

    @property
    def running(self) -> bool:
        return self.finished_at is None

    def seconds_left(self, now: datetime) -> float | None:
        """At the pace so far; None until a conversation is done."""
        if not self.done or not self.running:
            return None
        spent = (now - self.started_at).total_seconds()
        return spent / self.done * (self.total - self.done)


async def read_export(path: Path, fmt: str | None) -> list[chats.Chat]:
    """Every conversation of the export at `path` (read off the event loop: a large export is seconds of CPU); a
    wrong or corrupt file is refused naming the file, the entry and what was expected."""
    kind = chats.named(fmt or "auto")
    if fmt not in (None, "", "auto") and kind is None:
        raise InvalidInput("format", f"{str(fmt)[:40]!r} is none of auto, {', '.join(chats.FORMATS)}")
    try:
        return await anyio.to_thread.run_sync(lambda: list(chats.read(path, kind)))
    except (chats.ExportError, OSError) as exc:
        raise InvalidInput("file", str(exc).replace(str(path.parent) + "/", "")) from None


class ImportRuns:
    """Receives the importer, the clock, and how to run work the process cancels when it closes."""

    def __init__(
        self,
        importer: ChatImporter,
        clock: Callable[[], datetime],
        spawn: Callable[[Awaitable[Any]], object],
    ) -> None:
        self.importer, self.clock, self.spawn = importer, clock, spawn
        self._runs: OrderedDict[str, ImportRun] = OrderedDict()

    def start(
        self, user_id: str, found: list[chats.Chat], *, since: datetime | None = None, cleanup: Callable[[], None]
    ) -> ImportRun:
        """Import `found` for `user_id` in the background; `cleanup` runs when it ends (the uploaded file goes)."""
        run = ImportRun(secrets.token_urlsafe(12), user_id, self.clock(), len(found))
        self._runs[run.id] = run
        while len(self._runs) > KEPT_RUNS:
            self._runs.popitem(last=False)
        self.spawn(self._run(run, found, since, cleanup))
        return run

    def get(self, user_id: str, run_id: str) -> ImportRun:
        run = self._runs.get(run_id)
        if run is None or run.user_id != user_id:
            raise NotFound("run", run_id[:40], "import")
        return run

    async def _run(
        self, run: ImportRun, found: list[chats.Chat], since: datetime | None, cleanup: Callable[[], None]
    ) -> None:
        def step(count: ChatCount) -> None:
            run.done += 1
            run.messages += count.messages
            run.kept += count.kept

        try:
            run.report = await self.importer.run(run.user_id, found, self.clock(), since=since, progress=step)
        except EngrainError as exc:
            run.error = str(exc)
        except Exception as exc:  # the page says it failed; the log has the rest
            log.exception("import %s failed", run.id)
            run.error = f"{type(exc).__name__}: the import stopped; importing again goes on where it stopped"
        finally:
            run.finished_at = self.clock()
            cleanup()
