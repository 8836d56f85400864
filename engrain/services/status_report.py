"""What `engrain://status` and `engrain status` report: database, embedder, LLM, scheduler, counts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from sqlalchemy.exc import DBAPIError

from engrain.errors import Unavailable
from engrain.providers.embedder_manager import EmbedderStatus
from engrain.services.prompting.routes import RouteNames
from engrain.storage import chat_imports as queue_repo
from engrain.storage import cycles as cycle_repo
from engrain.storage import stats as stats_repo
from engrain.storage.cycles import ReflectionState
from engrain.storage.db import redact
from engrain.storage.stats import Counts

if TYPE_CHECKING:
    from engrain.services.prompting.routes import ModelRoutes
    from engrain.services.runtime import Runtime


class JobRunView(TypedDict):
    """A job run as the viewer may see it. Another user's run shows when it ran, how it ended and its
    text-valued stats (such as the LLM), without `user_id` and `error`, which describe that user's data."""

    status: str
    user_id: NotRequired[str | None]
    started_at: str
    finished_at: str | None
    stats: dict[str, Any] | None
    error: NotRequired[str | None]


class JobSchedule(TypedDict):
    last_run: JobRunView | None  # the last run over all users
    last_any_run: JobRunView | None  # including one user's session digest
    next_run: str  # ISO 8601, or "now"


class SchedulerStatus(TypedDict):
    enabled_in_this_server: bool
    interval_s: float
    jobs: dict[str, JobSchedule]


class LLMStatus(TypedDict):
    provider: str
    mode: str
    route: RouteNames
    configured: str


class DatabaseStatus(TypedDict):
    ok: bool
    embedded: NotRequired[bool]
    location: NotRequired[str]
    size_bytes: NotRequired[int]
    size: NotRequired[str]
    error: NotRequired[str]  # when not ok


class ImportsStatus(TypedDict):
    """The user's imported chat history still waiting for a model to read it (services/memories/import_queue)."""

    pieces_waiting: int
    conversations_waiting: int
    oldest: str | None  # ISO 8601: the first message of the oldest piece waiting


class Status(TypedDict):
    """The report. Without a database, only `user`, `embedder`, `llm` and `database` (with its error)."""

    user: str
    embedder: EmbedderStatus
    llm: LLMStatus
    database: DatabaseStatus
    counts: NotRequired[Counts]
    reflection: NotRequired[ReflectionState]
    imports: NotRequired[ImportsStatus]
    scheduler: NotRequired[SchedulerStatus]


# The scheduler's view of its jobs for a viewer (the scheduler sits above services: it is passed in).
JobsStatus = Callable[[str | None], Awaitable[SchedulerStatus]]


class StatusReport:
    """Receives the runtime, the LLM choice, and the scheduler's job status."""

    def __init__(self, runtime: Runtime, routes: ModelRoutes, jobs: JobsStatus) -> None:
        self.rt, self.routes, self.jobs = runtime, routes, jobs

    async def report(self, user_id: str, *, viewer: str | None = None) -> Status:
        """The report for `user_id`; `viewer` (a resource's caller) sees no other user's job details."""
        return await _report(self.rt, self.routes, self.jobs, user_id, viewer)


async def _report(rt: Runtime, routes: ModelRoutes, jobs: JobsStatus, user_id: str, viewer: str | None) -> Status:
    report = Status(
        user=user_id,
        embedder=rt.embeddings.status(),
        llm=LLMStatus(**routes.describe(), configured=rt.settings.llm),
        database=DatabaseStatus(ok=True),
    )
    try:
        db = await rt.database()
        async with db.sessions() as s:
            report["database"] = DatabaseStatus(
                ok=True,
                embedded=db.embedded,
                location=str(rt.settings.pgdata) if db.embedded else redact(db.url),
                **(await stats_repo.database_size(s)),
            )
            report["counts"] = await stats_repo.counts(s, user_id, rt.clock())
            report["reflection"] = await cycle_repo.reflection_state(s, user_id)
            waiting = await queue_repo.waiting(s, user_id)
            report["imports"] = ImportsStatus(
                pieces_waiting=waiting.pieces,
                conversations_waiting=waiting.conversations,
                oldest=waiting.oldest.isoformat() if waiting.oldest else None,
            )
        report["scheduler"] = await jobs(viewer)
    except (Unavailable, DBAPIError, OSError) as exc:  # the rest of the report still answers
        report["database"] = DatabaseStatus(ok=False, error=f"database unavailable: {type(exc).__name__}: {exc}"[:300])
        return report
    current = rt.embeddings.current
    stale = {e: n for e, n in report["counts"]["by_embedder"].items() if current and e != current.id}
    if stale:
        report["embedder"]["stale_rows"] = stale
        who = (
            "the server re-embeds them in the background"
            if rt.embeddings.spec.kind == "auto"
            else "`engrain reindex` re-embeds them"
        )
        note = (
            f"{sum(stale.values())} memories were embedded by another model; recall finds them by full "
            f"text only until they are re-embedded ({who})"
        )
        report["embedder"]["message"] = "; ".join(filter(None, [report["embedder"]["message"], note]))
    return report
