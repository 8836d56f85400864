"""What `engrain://status` reports: database, embedder, LLM, scheduler, counts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import DBAPIError

from engrain.errors import Unavailable
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo
from engrain.storage.db import redact

if TYPE_CHECKING:
    from engrain.server.state import AppState


async def status(app: AppState, user_id: str, *, viewer: str | None = None) -> dict[str, Any]:
    """The report for `user_id`; `viewer` (a resource's caller) sees no other user's job details."""
    report: dict[str, Any] = {
        "user": user_id,
        "embedder": app.embeddings.status(),
        "llm": {
            "provider": app.llm.name,
            "mode": app.llm.kind,
            "configured": app.settings.llm,
            "route": {"client_samples": app.llm.route(True), "client_does_not_sample": app.llm.route(False)},
        },
    }
    try:
        db = await app.database()
        async with db.sessions() as s:
            report["database"] = {
                "ok": True,
                "embedded": db.embedded,
                "location": str(app.settings.pgdata) if db.embedded else redact(db.url),
                **(await repo.database_size(s)),
            }
            report["counts"] = await repo.counts(s, user_id, app.clock())
            report["reflection"] = await trait_repo.last_cycle(s, user_id)
            mark = await trait_repo.watermark(s, user_id)
            report["reflection"]["memories_pending"] = (await trait_repo.importance_since(s, user_id, mark))[0]
        report["scheduler"] = await app.scheduler.status(viewer)
    except (Unavailable, DBAPIError, OSError) as exc:  # the rest of the report still answers
        report["database"] = {"ok": False, "error": f"database unavailable: {type(exc).__name__}: {exc}"[:300]}
        return report
    current = app.embeddings.current
    stale = {e: n for e, n in report["counts"]["by_embedder"].items() if current and e != current.id}
    if stale:
        report["embedder"]["stale_rows"] = stale
        note = (
            f"{sum(stale.values())} memories were embedded by another model; recall finds them by full "
            "text only until they are re-embedded"
        )
        report["embedder"]["message"] = "; ".join(filter(None, [report["embedder"]["message"], note]))
    return report
