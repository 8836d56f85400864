"""Process-wide state: settings, clock, database, embedder, background tasks.

Created once per server process and shared by every session (stdio, HTTP, SSE).
Nothing slow happens on construction: the database and the model come up in the
background, so `initialize` and `tools/list` answer at once; calls that need them wait.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import anyio

from engrain.config import Settings
from engrain.errors import Unavailable
from engrain.providers.embedder_manager import EmbedderManager
from engrain.providers.embeddings import Embedder
from engrain.providers.llm import LLM, LLMChoice, choose
from engrain.reading.dates import load_date_reader
from engrain.scheduler.jobs import JobContext
from engrain.scheduler.runner import Scheduler
from engrain.services.memories.ingest import IngestService
from engrain.services.memories.language_mix import LanguageMix
from engrain.services.memories.links import LinkService
from engrain.services.memories.reembedding import Reembedding
from engrain.services.memories.views import MemoryViews
from engrain.services.memories.writing import MemoryService
from engrain.services.recall.search import RecallService
from engrain.services.runtime import Runtime
from engrain.services.status_report import StatusReport
from engrain.services.traits.host_tasks import HostTasks
from engrain.services.traits.reflection.applying import ReflectionApplier
from engrain.services.traits.reflection.cycle import ReflectionService
from engrain.services.traits.reflection.planning import ReflectionPlanner
from engrain.services.traits.review import TraitReview
from engrain.services.traits.views import TraitViews
from engrain.storage.db import Database
from engrain.storage.embedded import postmaster_alive
from engrain.text.languages import load_identifier

log = logging.getLogger(__name__)
DB_RETRY_SECONDS = 2.0


def utcnow() -> datetime:
    return datetime.now(UTC)


class AppState:
    def __init__(self, settings: Settings, clock: Callable[[], datetime] = utcnow, llm: LLM | None = None) -> None:
        self.settings = settings
        self.clock = clock
        # An explicit provider (tests pass a scripted one) wins over ENGRAIN_LLM.
        self.llm = (
            LLMChoice("direct", llm)
            if llm is not None
            else choose(
                settings.llm, settings.llm_api_key, settings.llm_timeout, settings.llm_base_url, settings.llm_model
            )
        )
        self.embeddings = EmbedderManager(settings)
        self.embeddings.on_switch = self._on_embedder_switch
        self._db: Database | None = None
        self._db_error: BaseException | None = None
        self._db_ready = asyncio.Event()
        self._tasks: set[asyncio.Future[Any]] = set()
        self._started = False
        self._holders = 0
        self._db_attempt_at = 0.0
        # The composition root: each service gets the runtime and the services it calls, nothing else.
        runtime = Runtime(settings, clock, self.database, self.embeddings, self.spawn)
        self.languages = LanguageMix(runtime)
        self.memories = MemoryService(runtime, self.languages)
        self.memory_views = MemoryViews(runtime)
        self.reembedding = Reembedding(runtime)
        self.recall = RecallService(runtime)
        self.links = LinkService(runtime)
        self.reflection = ReflectionService(
            runtime, ReflectionPlanner(runtime, self.recall), ReflectionApplier(runtime)
        )
        self.traits = TraitViews(runtime, self.reflection)
        self.trait_review = TraitReview(runtime)
        self.ingest = IngestService(runtime, self.memories, self.links)
        self.host_tasks = HostTasks(settings.host_task_ttl, self.clock, self.database, self.reflection, self.ingest)
        self.job_context = JobContext(runtime, self.reflection, self.llm)
        self.scheduler = Scheduler(self.job_context)
        self.status = StatusReport(runtime, self.llm, self.scheduler.status)
        self._scheduler_loop: asyncio.Task[Any] | None = None

    # ---- lifecycle -------------------------------------------------------------------

    def start(self, *, scheduler_loop: bool | None = None) -> None:
        """Kick off the database, the embedder and (ENGRAIN_SCHEDULER=on) the job loop in the
        background; idempotent. `scheduler_loop` overrides the setting (the CLI runs jobs itself)."""
        if self._started:
            return
        self._started = True
        self.spawn(self._open_database())
        self.embeddings.start()
        if scheduler_loop if scheduler_loop is not None else self.settings.scheduler == "on":
            self._scheduler_loop = asyncio.ensure_future(self.scheduler.run_forever())

    def acquire(self) -> None:
        """One more user of this state (a stdio session, an SSE connection, an HTTP server): start."""
        self._holders += 1
        self.start()

    @property
    def holders(self) -> int:
        return self._holders

    async def release(self) -> bool:
        """One user fewer; the last one stops the job loop and closes. True when this was the last."""
        self._holders -= 1
        if self._holders > 0:
            return False
        await self.close()
        return True

    async def _open_database(self, previous: Database | None = None) -> None:
        self._db_attempt_at = asyncio.get_running_loop().time()
        try:
            if previous is not None:
                await previous.close()
            self._db = await Database.open(self.settings)
            log.info("database ready (%s)", "embedded" if self._db.embedded else "external")
            self.spawn(self.languages.check())
            # Language detection's model, loaded off the start-up path, before the first text needs it.
            self.spawn(anyio.to_thread.run_sync(load_identifier))
            self.spawn(anyio.to_thread.run_sync(load_date_reader))
        except Exception as exc:
            self._db_error = exc
            log.error("database unavailable: %s", exc)
        finally:
            self._db_ready.set()

    def _reopen(self) -> None:
        """Start opening the database again; callers wait on the new `_db_ready`. Synchronous, so that
        of several concurrent callers exactly one starts it."""
        previous, self._db = self._db, None
        self._db_ready = asyncio.Event()
        self.spawn(self._open_database(previous))

    async def database(self) -> Database:
        """The open database; waits for the first opening. After a failed opening (Postgres down at
        start) the next call at least DB_RETRY_SECONDS later tries again, so the server recovers
        on its own; once open, the pool's pre-ping replaces connections a restart broke. An embedded
        postmaster that died (killed, out of memory) is started again by the next call."""
        await self._db_ready.wait()
        if self._db is not None and self._db.embedded and not postmaster_alive():
            log.info("embedded PostgreSQL is not running: restarting it")
            self._reopen()
            await self._db_ready.wait()
        elif (
            self._db is None
            and self._started
            and asyncio.get_running_loop().time() - self._db_attempt_at >= DB_RETRY_SECONDS
        ):
            self._reopen()
            await self._db_ready.wait()
        if self._db is None:
            raise Unavailable(f"database unavailable: {self._db_error}")
        return self._db

    def database_if_open(self) -> Database | None:
        """The database without waiting (None while opening or unavailable): for metrics."""
        return self._db

    def spawn(self, coro: Awaitable[Any]) -> None:
        """Run work that must not delay the answer (access tracking, re-embedding)."""
        self.track(asyncio.ensure_future(coro))

    def track(self, task: asyncio.Future[Any]) -> None:
        """Keep a background task referenced until it ends, and log its failure."""
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed: %r", task.exception())

    async def drain(self) -> None:
        """Wait for pending background writes (at shutdown, and in tests)."""
        while pending := [t for t in self._tasks if not t.done()]:
            await asyncio.gather(*pending, return_exceptions=True)

    async def stop_scheduler_loop(self) -> None:
        """Cancel the in-server job loop; a job it was running is recorded as cancelled."""
        if self._scheduler_loop is not None:
            self._scheduler_loop.cancel()
            await asyncio.gather(self._scheduler_loop, return_exceptions=True)
            self._scheduler_loop = None

    async def close(self) -> None:
        """Stop background work and release the database; `start` may be called again later."""
        await self.stop_scheduler_loop()
        await self.embeddings.close()
        await self.drain()
        if self._db is not None:
            await self._db.close()
        self._db, self._db_error, self._started = None, None, False
        self._db_ready = asyncio.Event()

    async def _on_embedder_switch(self, embedder: Embedder) -> None:
        done = await self.reembedding.reembed_stale()
        log.info("re-embedded %d memories with %s", done, embedder.id)

    # ---- identity --------------------------------------------------------------------

    def user(self) -> str:
        """The caller: the bearer token's subject over HTTP, ENGRAIN_USER on stdio."""
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        if token is not None:
            return token.subject or token.client_id
        return self.settings.user
