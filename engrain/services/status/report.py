"""What `engrain://status` and `engrain status` report: database, embedder, LLM, scheduler, counts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import anyio
from sqlalchemy.exc import DBAPIError

from engrain.errors import Unavailable
from engrain.providers.embedder_manager import EmbedderStatus
from engrain.services.prompting.routes import RouteNames
from engrain.storage import chat_imports as queue_repo
from engrain.storage import cycles as cycle_repo
from engrain.storage import stats as stats_repo
from engrain.storage.cycles import ReflectionState
from engrain.storage.db import async_url, redact
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
    # A local command's word on the machine's other users (services/memories/local_user.py); never in engrain://status.
    user_note: NotRequired[str]
    embedder: EmbedderStatus
    llm: LLMStatus
    database: DatabaseStatus
    counts: NotRequired[Counts]
    reflection: NotRequired[ReflectionState]
    imports: NotRequired[ImportsStatus]
    scheduler: NotRequired[SchedulerStatus]


# The scheduler's view of its jobs for a viewer (the scheduler sits above services: it is passed in).
JobsStatus = Callable[[str | None], Awaitable[SchedulerStatus]]


# What the report says of an embedder this process has not loaded (a command: `engrain status` loads none).
NOT_LOADED = "not loaded by this command (a server loads it at start)"


class StatusReport:
    """Receives the runtime, the LLM choice, and the scheduler's job status."""

    def __init__(self, runtime: Runtime, routes: ModelRoutes, jobs: JobsStatus) -> None:
        self.rt, self.routes, self.jobs = runtime, routes, jobs

    async def report(self, user_id: str, *, viewer: str | None = None, wait: float | None = None) -> Status:
        """The report for `user_id`; `viewer` (a resource's caller) sees no other user's job details. `wait`: how
        many seconds the database may take to answer (None: no bound) before it is reported unreachable, so
        that a command over a database that never answers says so instead of hanging (asyncpg waits 60 s)."""
        report = Status(
            user=user_id,
            embedder=self.rt.embeddings.status(),
            llm=LLMStatus(**self.routes.describe(), configured=self.rt.settings.llm),
            database=DatabaseStatus(ok=True),
        )
        if self.rt.embeddings.state == "not started":
            report["embedder"]["message"] = NOT_LOADED
        try:
            with anyio.fail_after(wait):
                await self._from_database(report, user_id, viewer)
        except TimeoutError:
            report["database"] = self._unreachable(f"no answer from the database within {wait:g} s")
        except Unavailable as exc:
            report["database"] = self._unreachable(str(exc))
        except (DBAPIError, OSError) as exc:  # the rest of the report still answers
            report["database"] = self._unreachable(f"database unavailable: {type(exc).__name__}: {exc}")
        return report

    def _unreachable(self, error: str) -> DatabaseStatus:
        """The database's entry when it did not answer: where it was looked for, and why it is not there."""
        url = self.rt.settings.database_url
        return DatabaseStatus(
            ok=False,
            embedded=url is None,
            location=str(self.rt.settings.pgdata) if url is None else redact(async_url(url)),
            error=error[:300],
        )

    async def _from_database(self, report: Status, user_id: str, viewer: str | None) -> None:
        rt = self.rt
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
        report["scheduler"] = await self.jobs(viewer)
        if rt.embeddings.state == "not started":  # which model a server would load, and why
            report["embedder"]["reason"] = await rt.embeddings.planned()
        else:
            _stale(rt, report, report["counts"])


def _stale(rt: Runtime, report: Status, counts: Counts) -> None:
    """The memories whose vectors another model made than the one serving, and who re-embeds them."""
    current = rt.embeddings.current
    stale = {e: n for e, n in counts["by_embedder"].items() if current and e != current.id}
    if not stale:
        return
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
