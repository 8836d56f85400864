"""Re-embedding: when the embedding model changes, every stored vector the new model did not make is
made again, in batches that each commit on their own. The same pass gives a vector to the memories stored
while no model served (a write never waits for the model to load: services/memories/writing.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from engrain.errors import Unavailable
from engrain.storage import memories as repo
from engrain.storage import stats as stats_repo

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

log = logging.getLogger(__name__)
REEMBED_BATCH = 256


class Reembedding:
    """`background`: runs a pass that may last (many rows, a slow model) and is stopped, not awaited, when the
    process closes; each batch has committed, and the next start resumes (server/process.spawn_until_close)."""

    def __init__(self, runtime: Runtime, background: Callable[[Awaitable[Any]], Any] | None = None) -> None:
        self.rt = runtime
        self.background = background or runtime.spawn
        self._missing_pass: asyncio.Future[Any] | None = None
        self._again = False

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
