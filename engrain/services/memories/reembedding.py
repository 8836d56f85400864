"""Re-embedding: when the embedding model changes, every stored vector the new model did not make is
made again, in batches that each commit on their own. The same pass gives a vector to the memories stored
while no model served (a write never waits for the model to load: services/memories/writing.py), and a long
memory's windows theirs (engrain/text/windows.py): made after the write is acknowledged, so that storing is no
slower, and for every long memory without them once a server starts."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from engrain.errors import Unavailable
from engrain.storage import memories as repo
from engrain.storage import stats as stats_repo
from engrain.storage import windows as windows_repo
from engrain.storage.sqltext import vector_literal
from engrain.text.windows import windows

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

log = logging.getLogger(__name__)
REEMBED_BATCH = 256
# Memories whose windows one batch makes (up to MAX_WINDOWS each): one model call, one commit.
WINDOW_BATCH = 64
# Windows wait for writes to pause this long: a bulk import stores at its full speed and its windows follow (made
# while it stored, 10,000 memories stored 12 % slower: bench/gathering.py, docs/performance.md).
WRITES_QUIET_S = 1.0


class Reembedding:
    """`background`: runs a pass that may last (many rows, a slow model) and is stopped, not awaited, when the
    process closes; each batch has committed, and the next start resumes (server/process.spawn_until_close)."""

    def __init__(self, runtime: Runtime, background: Callable[[Awaitable[Any]], Any] | None = None) -> None:
        self.rt = runtime
        self.background = background or runtime.spawn
        self._missing_pass: asyncio.Future[Any] | None = None
        self._again = False
        self._to_window: list[windows_repo.Key] = []
        self._window_pass: asyncio.Future[Any] | None = None
        self._last_write = 0.0
        self._writing = 0

    async def count_stale(self) -> int:
        """Rows (all users) whose vector was not made by the current model."""
        model = await self.rt.embeddings.ready()
        db = await self.rt.database()
        async with db.sessions() as s:
            return await stats_repo.count_stale(s, model.id)

    async def reembed_stale(
        self, on_batch: Callable[[int], Awaitable[None]] | None = None, *, missing_only: bool = False
    ) -> int:
        """Re-embed, in batches, every row not embedded by the current model (all users); with `missing_only`,
        only the rows with no vector at all. Each batch commits on its own, so an interrupted run loses at most
        one batch and the next run resumes where it stopped; meanwhile recall finds the rows not yet done by full
        text. `on_batch(n)` is awaited after each batch (progress)."""
        db = await self.rt.database()
        total = 0
        while True:
            model = await self.rt.embeddings.ready()
            async with db.sessions() as s:
                rows = await repo.stale_embeddings(s, model.id, REEMBED_BATCH, missing_only=missing_only)
            if not rows:
                return total
            used, vectors = await self.rt.embeddings.embed([content for _, content in rows])
            async with db.sessions.begin() as s:
                await repo.set_embeddings(s, used.id, [key for key, _ in rows], vectors)
            total += len(rows)
            if on_batch is not None:
                await on_batch(len(rows))

    def embed_missing_soon(self) -> None:
        """Memories were stored with no vector (no model served yet), or a server starts (a process killed
        while its model loaded left some): once a model serves, embed every memory that has none, in the
        background. One pass at a time per process; a call during a pass has it look once more when it ends,
        so a row committed after the pass last looked is not left behind."""
        if self._missing_pass is not None and not self._missing_pass.done():
            self._again = True
            return
        self._missing_pass = self.background(self._embed_missing())

    async def _embed_missing(self) -> None:
        done = 0
        try:
            while True:
                self._again = False
                done += await self.reembed_stale(missing_only=True)  # waits for the model first
                if not self._again:
                    break
        except Unavailable as exc:  # no model (it failed, or the process closes): the words still find them
            log.info("memories without a vector stay so until a model serves: %s", exc)
        if done:
            log.info("embedded %d memories stored while no model served", done)

    @contextlib.contextmanager
    def writing(self) -> Generator[None]:
        """A write is under way: windows wait for it, and for WRITES_QUIET_S after the last one."""
        self._writing += 1
        try:
            yield
        finally:
            self._writing -= 1
            self._last_write = time.monotonic()

    async def _writes_paused(self) -> None:
        """Wait until no write is under way and WRITES_QUIET_S passed since the last (every windows' pass)."""
        while (wait := self._quiet_in()) > 0:
            await asyncio.sleep(wait)

    def _quiet_in(self) -> float:
        """Seconds until writes have paused long enough for the windows' pass (a write under way: a full wait)."""
        return WRITES_QUIET_S if self._writing else self._last_write + WRITES_QUIET_S - time.monotonic()

    def window_soon(self, keys: Sequence[windows_repo.Key]) -> None:
        """Long memories (user, id) were committed: give them their windows in the background, once writes
        pause. One pass at a time per process; keys that arrive meanwhile join it."""
        self._to_window += keys
        if self._to_window and (self._window_pass is None or self._window_pass.done()):
            self._window_pass = self.background(self._window_written())

    async def windows_settled(self) -> None:
        """Wait for the windows of the memories stored so far (a bench, a test, `engrain reindex`)."""
        while self._window_pass is not None and not self._window_pass.done():
            await asyncio.shield(self._window_pass)

    async def _window_written(self) -> None:
        db = await self.rt.database()
        try:
            while self._to_window:
                await self._writes_paused()
                keys, self._to_window = self._to_window[:WINDOW_BATCH], self._to_window[WINDOW_BATCH:]
                async with db.sessions() as s:
                    rows = await windows_repo.long_contents(s, keys)
                await self._window(rows)
        except Unavailable as exc:  # no model: the next start's pass makes them
            self._to_window.clear()
            log.info("long memories wait for their windows until a model serves: %s", exc)

    async def window_missing(self) -> int:
        """Make the windows of every long memory (all users) that has none of the current model's: those stored
        before windows existed, while a pass was stopped, or by another model. Each batch commits on its own."""
        db = await self.rt.database()
        total = 0
        while True:
            await self._writes_paused()
            model = await self.rt.embeddings.ready()
            async with db.sessions() as s:
                rows = await windows_repo.unwindowed(s, model.id, WINDOW_BATCH)
            if not rows or not await self._window(rows):  # none had a window to make (blank text): none will
                return total
            total += len(rows)

    async def _window(self, rows: Sequence[tuple[windows_repo.Key, str]]) -> int:
        """Split, embed and store the windows of `rows` (one model call, one statement); how many were made."""
        split = await anyio.to_thread.run_sync(lambda: [(key, windows(content)) for key, content in rows])
        flat = [(key, n, piece) for key, pieces in split for n, piece in enumerate(pieces)]
        if not flat:
            return 0
        used, vectors = await self.rt.embeddings.embed([piece for _, _, piece in flat])
        texts = await anyio.to_thread.run_sync(lambda: [vector_literal(v) for v in vectors])
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            keys, numbers = [k for k, _, _ in flat], [n for _, n, _ in flat]
            await windows_repo.set_windows(s, used.id, len(vectors[0]), keys, numbers, texts)
        return len(flat)
