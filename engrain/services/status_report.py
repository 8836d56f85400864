"""What `engrain://status` and `engrain status` report: database, embedder, LLM, scheduler, counts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import DBAPIError

from engrain.errors import Unavailable
from engrain.storage import cycles as cycle_repo
from engrain.storage import stats as stats_repo
from engrain.storage.db import redact

if TYPE_CHECKING:
    from engrain.services.prompting.routes import ModelRoutes
    from engrain.services.runtime import Runtime

# The scheduler's view of its jobs for a viewer (the scheduler sits above services: it is passed in).
JobsStatus = Callable[[str | None], Awaitable[dict[str, Any]]]


class StatusReport:
    """Receives the runtime, the LLM choice, and the scheduler's job status."""

    def __init__(self, runtime: Runtime, routes: ModelRoutes, jobs: JobsStatus) -> None:
        self.rt, self.routes, self.jobs = runtime, routes, jobs

    async def report(self, user_id: str, *, viewer: str | None = None) -> dict[str, Any]:
        """The report for `user_id`; `viewer` (a resource's caller) sees no other user's job details."""
        return await _report(self.rt, self.routes, self.jobs, user_id, viewer)


async def _report(
    rt: Runtime, routes: ModelRoutes, jobs: JobsStatus, user_id: str, viewer: str | None
) -> dict[str, Any]:
    report: dict[str, Any] = {
        "user": user_id,
        "embedder": rt.embeddings.status(),
        "llm": {
            **routes.describe(),
            "configured": rt.settings.llm,
        },
    }
    try:
        db = await rt.database()
        async with db.sessions() as s:
            report["database"] = {
                "ok": True,
                "embedded": db.embedded,
                "location": str(rt.settings.pgdata) if db.embedded else redact(db.url),
                **(await stats_repo.database_size(s)),
            }
            report["counts"] = await stats_repo.counts(s, user_id, rt.clock())
            report["reflection"] = await cycle_repo.last_cycle(s, user_id)
            mark = await cycle_repo.watermark(s, user_id)
            report["reflection"]["memories_pending"] = (await cycle_repo.importance_since(s, user_id, mark))[0]
        report["scheduler"] = await jobs(viewer)
    except (Unavailable, DBAPIError, OSError) as exc:  # the rest of the report still answers
        report["database"] = {"ok": False, "error": f"database unavailable: {type(exc).__name__}: {exc}"[:300]}
        return report
    current = rt.embeddings.current
    stale = {e: n for e, n in report["counts"]["by_embedder"].items() if current and e != current.id}
    if stale:
        report["embedder"]["stale_rows"] = stale
        note = (
            f"{sum(stale.values())} memories were embedded by another model; recall finds them by full "
            "text only until they are re-embedded"
        )
        report["embedder"]["message"] = "; ".join(filter(None, [report["embedder"]["message"], note]))
    return report
