"""The composition root: every service of one server process, built once and shared by every session
(stdio, HTTP, SSE). The process lifecycle (the database, background tasks, the job loop, how many
sessions hold the process) is `process.ProcessLifecycle`; this module only wires, and says who calls.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

import anyio

from engrain.config import Settings
from engrain.providers.embedder_manager import EmbedderManager
from engrain.providers.embeddings import Embedder
from engrain.providers.llm import LLM, LLMChoice, choose
from engrain.reading.dates import load_date_reader
from engrain.scheduler.jobs import JobContext
from engrain.scheduler.runner import Scheduler
from engrain.server.process import ProcessLifecycle
from engrain.services.memories.browsing import MemoryBrowser
from engrain.services.memories.import_queue import ImportQueue
from engrain.services.memories.import_runs import ImportRuns
from engrain.services.memories.imported import ImportedHistory
from engrain.services.memories.importing import ChatImporter
from engrain.services.memories.ingest import ConversationIngest
from engrain.services.memories.language_mix import LanguageMix
from engrain.services.memories.links import MemoryLinks
from engrain.services.memories.local_user import LocalUsers
from engrain.services.memories.redacting import StoredSecrets
from engrain.services.memories.reembedding import Reembedding
from engrain.services.memories.views import MemoryViews
from engrain.services.memories.writing import MemoryWriter
from engrain.services.profile.view import ProfileView
from engrain.services.prompting.routes import ModelRoutes
from engrain.services.prompting.task_store import TaskStore
from engrain.services.recall.search import RecallSearch
from engrain.services.runtime import Runtime
from engrain.services.sessions.context import SessionContext
from engrain.services.sessions.keeping import SessionKeeper
from engrain.services.status.report import StatusReport
from engrain.services.traits.host_tasks import HostTasks
from engrain.services.traits.reflection.applying import ReflectionApplier
from engrain.services.traits.reflection.cycle import Reflection
from engrain.services.traits.reflection.due import ReflectionDue
from engrain.services.traits.reflection.planning import ReflectionPlanner
from engrain.services.traits.reflection.requests import ReflectRequests
from engrain.services.traits.review import TraitReview
from engrain.services.traits.views import TraitViews
from engrain.text.languages import load_identifier

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


# What a process is for, which decides its background work: a `server` (engrain serve) loads its model at
# start and keeps the home's vectors in step with it; the `page` (engrain ui) loads its model at start and
# re-embeds nothing; a `command` (export, status, import, reindex, worker…) loads a model only when it needs
# a vector and re-embeds only when that is its work (reindex, import); the `hooks` worker (server/hook_worker.py)
# answers Claude Code's hooks for as long as they come, so it loads its model at start and re-embeds nothing.
Role = Literal["server", "page", "hooks", "command"]


class AppState:
    def __init__(
        self,
        settings: Settings,
        clock: Callable[[], datetime] = utcnow,
        llm: LLM | None = None,
        *,
        role: Role = "server",
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.role = role
        # An explicit provider (tests pass a scripted one) wins over ENGRAIN_LLM.
        self.routes = ModelRoutes(
            LLMChoice("direct", llm)
            if llm is not None
            else choose(
                settings.llm, settings.llm_api_key, settings.llm_timeout, settings.llm_base_url, settings.llm_model
            )
        )
        self.embeddings = EmbedderManager(settings)
        self.embeddings.on_switch = self._on_embedder_switch
        self.process = ProcessLifecycle(
            settings,
            self.embeddings,
            self._on_database_open,
            self._job_loop,
            load_model=role != "command",
            load_first=self._load_readers,
        )
        # The composition root: each service gets the runtime and the services it calls, nothing else.
        runtime = Runtime(settings, clock, self.process.database, self.embeddings, self.process.spawn)
        self.local_users = LocalUsers(runtime)
        self.languages = LanguageMix(runtime)
        self.embeddings.home_multilingual = self.languages.wanted
        self.reembedding = Reembedding(runtime, self.process.spawn_until_close)
        self.memories = MemoryWriter(runtime, self.languages, self.reembedding)
        self.memory_views = MemoryViews(runtime)
        self.browser = MemoryBrowser(runtime)
        self.stored_secrets = StoredSecrets(runtime)
        self.recall = RecallSearch(runtime, screen=self.stored_secrets.screen)
        self.links = MemoryLinks(runtime)
        self.reflection = Reflection(runtime, ReflectionPlanner(runtime, self.recall), ReflectionApplier(runtime))
        self.traits = TraitViews(runtime)
        self.trait_review = TraitReview(runtime)
        self.ingest = ConversationIngest(runtime, self.memories, self.links)
        self.chat_import = ChatImporter(self.memories)
        self.import_queue = ImportQueue(runtime, self.ingest)
        self.imported = ImportedHistory(runtime)
        self.import_runs = ImportRuns(self.chat_import, self.clock, self.process.spawn_until_close)
        tasks = TaskStore(settings.host_task_ttl, self.clock, self.process.database)
        self.host_tasks = HostTasks(
            tasks, self.clock, self.process.database, self.reflection, self.ingest, self.import_queue
        )
        self.reflection_due = ReflectionDue(runtime, host_reads_imports=not self.routes.has_own_model)
        self.profile = ProfileView(runtime, self.reflection_due)
        self.session_context = SessionContext(runtime, self.profile, self.recall)
        self.session_keeper = SessionKeeper(self.chat_import)
        self.reflect_requests = ReflectRequests(
            self.reflection, self.trait_review, self.host_tasks, self.reflection_due
        )
        self.job_context = JobContext(runtime, self.reflection, self.routes, self.import_queue)
        self.scheduler = Scheduler(self.job_context)
        self.status = StatusReport(runtime, self.routes, self.scheduler.status)
        # The lifecycle, as the transports and the CLI use it.
        self.start, self.acquire, self.release = self.process.start, self.process.acquire, self.process.release
        self.database, self.database_if_open = self.process.database, self.process.database_if_open
        self.spawn, self.track, self.drain = self.process.spawn, self.process.track, self.process.drain
        self.stop_scheduler_loop, self.close = self.process.stop_scheduler_loop, self.process.close

    @property
    def holders(self) -> int:
        return self.process.holders

    def _on_database_open(self) -> None:
        """Work that wants the open database, or that should be done before the first text needs it, in a
        process that serves (not a one-off command such as `engrain export`): the readers and the model
        loaded (`_settle`), and the redaction of rows stored before the current rules."""
        if self.role == "command":
            return
        if self.process.holders:
            self.process.spawn_until_close(self.stored_secrets.run_once())
        self.process.spawn(self._settle())

    async def _settle(self) -> None:
        """Wait for the language identifier and the date reader (loading in worker threads since the start, before
        the model, so that no user's first text pays for them), then freeze what start-up made for the garbage
        collector: its full collections scanned the models, dictionaries and modules too, and held the event
        loop, and every user's call, for a long time under a large batch (bench/hostile_input.py;
        docs/performance.md). Frozen objects are never scanned. A server then embeds, in the background, the
        memories stored with no vector (while a model loaded: by this process, or by one killed before its model
        served); with `auto`, it re-embeds those of another model too (a run an earlier server did not finish
        resumes)."""
        await self._load_readers()  # loaded from the start (ProcessLifecycle's load_first): waits for that
        try:
            model = await self.embeddings.ready()
        except Exception:  # a model that cannot load is reported where it is used
            model = None
        gc.freeze()  # no collection first: a full one holds the loop just as the first calls come in
        log.debug("start-up settled: what it made is frozen for the garbage collector")
        if model is None or self.role != "server":
            return
        if self.embeddings.spec.kind == "auto":
            self.process.spawn_until_close(self._reembed(model.id))  # stale rows: those with no vector among them
        else:
            self.reembedding.embed_missing_soon()
            self.process.spawn_until_close(self._window_missing())

    @staticmethod
    async def _load_readers() -> None:
        """The language identifier and the date reader, in worker threads, side by side: every first text needs
        both. A serving process loads them first at start, before its model (`load_first`)."""
        async with anyio.create_task_group() as loading:
            loading.start_soon(anyio.to_thread.run_sync, load_identifier)
            loading.start_soon(anyio.to_thread.run_sync, load_date_reader)

    async def _job_loop(self) -> None:
        await self.scheduler.run_forever()

    async def _on_embedder_switch(self, embedder: Embedder, previous: str) -> None:
        """Another model serves: a server re-embeds the home's memories in the background (stopped, not waited
        for, when it closes: each batch commits, and the next start resumes); any other process says who will."""
        if self.role == "server":
            self.process.spawn_until_close(self._reembed(embedder.id))
        else:
            log.info(
                "memories embedded by %s wait for %s: the next `engrain serve` re-embeds them, or `engrain reindex`",
                previous,
                embedder.id,
            )

    async def _reembed(self, model: str) -> None:
        """Re-embed what another model made, once across the servers sharing this database."""
        db = await self.database()
        async with db.try_advisory_lock("reembed") as mine:
            if not mine:
                return  # another server is at it
            stale = await self.reembedding.count_stale()
            if stale:
                log.info(
                    "re-embedding %d memories with %s (in the background; resumed by the next start)",
                    stale,
                    model,
                )
                done = await self.reembedding.reembed_stale()
                log.info("re-embedded %d memories with %s", done, model)
        await self._window_missing()

    async def _window_missing(self) -> None:
        """Make the windows of the long memories that have none of the current model's (engrain/text/windows.py),
        once across the servers sharing this database."""
        db = await self.database()
        async with db.try_advisory_lock("windows") as mine:
            if mine and (made := await self.reembedding.window_missing()):
                log.info("made the windows of %d long memories", made)

    # ---- identity --------------------------------------------------------------------

    async def user(self) -> str:
        """The caller: the bearer token's subject over HTTP, the local user on stdio (ENGRAIN_USER, else the
        machine's one local user: services/memories/local_user.py)."""
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        if token is not None:
            return token.subject or token.client_id
        return await self.local_users.name()

    async def local_notice(self) -> str | None:
        """What the first recall of a local session says about where the person's memories are (never over
        HTTP: a token's user learns nothing of other users)."""
        from mcp.server.auth.middleware.auth_context import get_access_token

        return None if get_access_token() is not None else await self.local_users.first_notice()
