"""Re-embedding: when the embedding model changes, every stored vector the new model did not make is
made again, in batches that each commit on their own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from engrain.storage import memories as repo
from engrain.storage import stats as stats_repo

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

REEMBED_BATCH = 256


class Reembedding:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def count_stale(self) -> int:
        """Rows (all users) whose vector was not made by the current model."""
        model = await self.rt.embeddings.ready()
        db = await self.rt.database()
        async with db.sessions() as s:
            return await stats_repo.count_stale(s, model.id)

    async def reembed_stale(self, on_batch: Callable[[int], Awaitable[None]] | None = None) -> int:
        """Re-embed, in batches, every row not embedded by the current model (all users). Each batch
        commits on its own, so an interrupted run loses at most one batch and the next run resumes
        where it stopped; meanwhile recall finds the rows not yet done by full text.
        `on_batch(n)` is awaited after each batch (progress)."""
        db = await self.rt.database()
        total = 0
        while True:
            model = await self.rt.embeddings.ready()
            async with db.sessions() as s:
                rows = await repo.stale_embeddings(s, model.id, REEMBED_BATCH)
            if not rows:
                return total
            used, vectors = await self.rt.embeddings.embed([content for _, content in rows])
            async with db.sessions.begin() as s:
                await repo.set_embeddings(s, used.id, [key for key, _ in rows], vectors)
            total += len(rows)
            if on_batch is not None:
                await on_batch(len(rows))
