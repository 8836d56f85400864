"""The process lifecycle, apart from the wiring of services (`state.py`): the database (opened in the
background, opened again after a failure or when the embedded postmaster died), the embedder's loading,
the background tasks the process waits for on shutdown, the job loop, and how many sessions hold the
process (stdio once, streamable HTTP once, SSE once per connection).

Nothing slow happens on construction: `start` kicks everything off in the background, so `initialize` and
`tools/list` answer at once; calls that need the database wait for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from engrain.config import Settings
from engrain.errors import Unavailable
from engrain.providers.embedder_manager import EmbedderManager
from engrain.storage.db import Database
from engrain.storage.embedded import postmaster_alive

log = logging.getLogger(__name__)
DB_RETRY_SECONDS = 2.0


class ProcessLifecycle:
    """`on_open` runs once the database is open (work that wants it: language checks, preloads);
    `job_loop` is the scheduler's loop, started when the job loop is on; `load_first`, what loads at start
    before the model (the readers every first call needs)."""

    def __init__(
        self,
        settings: Settings,
        embeddings: EmbedderManager,
        on_open: Callable[[], None],
        job_loop: Callable[[], Awaitable[Any]],
        *,
        load_model: bool = True,
        load_first: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.settings, self.embeddings, self._load_model = settings, embeddings, load_model
        self._load_first = load_first
        self._on_open, self._job_loop = on_open, job_loop
        self._db: Database | None = None
        self._db_error: BaseException | None = None
        self._db_ready = asyncio.Event()
        self._tasks: set[asyncio.Future[Any]] = set()
        self._until_close: set[asyncio.Future[Any]] = set()
        self._started = False
        self._holders = 0
        self._db_attempt_at = 0.0
        self._opening: asyncio.Future[Any] | None = None
        self._scheduler_loop: asyncio.Future[Any] | None = None

    def start(self, *, scheduler_loop: bool | None = None) -> None:
        """Kick off the database, the embedder (`load_model`; else it loads when a vector is first needed)
        and (ENGRAIN_SCHEDULER=on) the job loop in the background; idempotent. `scheduler_loop` overrides the
        setting (the CLI runs jobs itself)."""
        if self._started:
            return
        self._started = True
        self._opening = self._spawned(self._open_database())
        if self._load_model:  # what the first calls need first (`load_first`), then the model no call waits for
            self.embeddings.start(self._load_first)
        if scheduler_loop if scheduler_loop is not None else self.settings.scheduler == "on":
            self._scheduler_loop = self.spawn_until_close(self._job_loop())

    def acquire(self) -> None:
        """One more user of this process (a stdio session, an SSE connection, an HTTP server): start."""
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
            self._on_open()
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
        self._opening = self._spawned(self._open_database(previous))

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
            raise Unavailable(f"database unavailable: {self._db_error or 'the process is closing'}")
        return self._db

    def database_if_open(self) -> Database | None:
        """The database without waiting (None while opening or unavailable): for metrics."""
        return self._db

    def spawn(self, coro: Awaitable[Any]) -> None:
        """Run work that must not delay the answer (access tracking, re-embedding)."""
        self._spawned(coro)

    def spawn_until_close(self, coro: Awaitable[Any]) -> asyncio.Future[Any]:
        """Run work that lasts as long as the process serves (the job loop) or may wait on other processes for as
        long as they take (the stored rows' redaction pass another server is running): cancelled at close
        rather than waited for, so that a shutdown never waits on it."""
        task = self._spawned(coro)
        self._until_close.add(task)
        task.add_done_callback(self._until_close.discard)
        return task

    def _spawned(self, coro: Awaitable[Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(coro)
        self.track(task)
        return task

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
        """Cancel the in-server job loop before the process closes (a session's digest must not race a catch-up
        run); a job it was running is recorded as cancelled. At close it is cancelled with the rest."""
        if self._scheduler_loop is not None:
            self._scheduler_loop.cancel()
            await asyncio.gather(self._scheduler_loop, return_exceptions=True)
            self._scheduler_loop = None

    async def close(self) -> None:
        """Stop background work and release the database; `start` may be called again later. A database still
        opening is abandoned, not awaited: a client that closes at once sees the process gone at once (an
        embedded postmaster it started meanwhile is stopped by its keeper, storage/embedded.py)."""
        if self._opening is not None and not self._opening.done():
            self._opening.cancel()
        self._scheduler_loop = None
        for task in list(self._until_close):
            task.cancel()
        await self.embeddings.close()
        await self.drain()
        if self._db is not None:
            await self._db.close()
        self._db, self._db_error, self._started = None, None, False
        self._db_ready = asyncio.Event()
