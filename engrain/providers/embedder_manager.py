"""Which embedder serves right now, loading it in the background, batching calls to it.

`initialize` and `tools/list` never wait on this: a model loads in a daemon thread
after start-up and only calls that need a vector wait for it. With `auto`, the best
model already on this machine serves first; a better one (fastembed bge-small) is
fetched in the background, and when it arrives `on_switch` lets the app re-embed
older rows. When a quarter of the memories or more are not in English (`prefer_multilingual`), the better
one is a multilingual model instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, NotRequired, TypedDict, TypeVar

import anyio

from engrain.config import Settings
from engrain.errors import Unavailable
from engrain.providers import embeddings as emb

log = logging.getLogger(__name__)
MULTILINGUAL_REASON = ": many memories are not in English"  # the rule: services/memories/language_mix.py
T = TypeVar("T")
MAX_BATCH = 256
EMBED_CACHE_SIZE = 2048  # texts (queries and remembered memories), newest used kept; ~20 MB at 384 dimensions
INLINE_MAX = 16
MODEL_HUB = ("huggingface.co", 443)  # where fastembed fetches its models
MODEL_HUB_TIMEOUT = 3.0  # a cheap model embeds this few texts on the event loop; more go to a thread


async def run_in_daemon_thread(fn: Callable[[], T]) -> T:
    """Run blocking `fn` in a daemon thread, so a slow model fetch never holds up process exit."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if fut.done():
            return
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(result)  # type: ignore[arg-type]

    def target() -> None:
        try:
            outcome: tuple[T | None, BaseException | None] = (fn(), None)
        except BaseException as exc:
            outcome = (None, exc)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for the model any more
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=target, name="engrain-model-load", daemon=True).start()
    return await fut


def model_hub_reachable(timeout: float = MODEL_HUB_TIMEOUT) -> bool:
    """Can this machine reach the hub fastembed downloads from? One TCP connect, a few seconds at
    most: fastembed itself retries an unreachable hub for about 40 s, logging errors as it goes.
    HF_HUB_OFFLINE, the hub's own switch, says no without trying."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "TRUE", "YES", "ON"}:
        return False
    try:
        socket.create_connection(MODEL_HUB, timeout=timeout).close()
    except OSError:
        return False
    return True


class EmbedderStatus(TypedDict):
    """Which model serves (`id`, `dim`), how loading went (`state`, `message`), and what was configured.
    `stale_rows`: the status report adds, by embedder, the memories another model embedded."""

    configured: str
    id: str | None
    dim: int | None
    state: str
    message: str | None
    languages: str | None  # what recall matches by meaning: "meaning in en", "words only"…
    stale_rows: NotRequired[dict[str, int]]


# The languages a status names when it says which ones a model reads by meaning.
PROBED_LANGUAGES = ("en", "zh", "de", "es", "fr", "ja", "ko")


def coverage(model: emb.Embedder) -> str:
    """What recall can match by meaning with `model`, in a few words."""
    if not model.semantic:
        return "words only (no model of meaning), in any language"
    covered = [lang for lang in PROBED_LANGUAGES if model.covers(lang)]
    if len(covered) == len(PROBED_LANGUAGES):
        return "meaning in many languages, across languages"
    return "meaning in " + ", ".join(covered) + "; other languages by words"


class EmbedderManager:
    """Holds the current embedder; coalesces concurrent single-text requests into one batch."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.spec = emb.parse_spec(settings.embedder)
        self.current: emb.Embedder | None = None
        self.state = "not started"
        self.message = ""
        self.on_switch: Callable[[emb.Embedder], Awaitable[None]] | None = None
        self._ready = asyncio.Event()
        self._error: BaseException | None = None
        self._pending: list[tuple[str, asyncio.Future[tuple[emb.Embedder, list[float]]]]] = []
        self._flushing = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self.multilingual = False  # `auto` aims at the multilingual model (most memories are not English)

    # ---- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Begin loading in the background; returns at once."""
        self.state = "loading"
        self._spawn(self._load())

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def _use(self, embedder: emb.Embedder, message: str = "") -> None:
        self.current = embedder
        self.state = "ready"
        self.message = message
        self._ready.set()
        log.info("embedder ready: %s (dim %d)%s", embedder.id, embedder.dim, f" — {message}" if message else "")

    async def _load(self) -> None:
        models = self.settings.models_dir
        try:
            if self.spec.kind != "auto":
                api_key = self.settings.embedder_api_key
                self._use(await run_in_daemon_thread(lambda: emb.load(self.spec, models, api_key)))
                return
            await self._load_auto()
        except Exception as exc:  # an explicit model that cannot load is a hard, visible error
            self._error = exc
            self.state = "failed"
            self.message = f"embedder {self.settings.embedder!r} failed to load: {exc}"
            log.error(self.message)
            self._ready.set()

    def _auto_target(self) -> emb.EmbedderSpec:
        """The model `auto` aims at: English bge-small, or a multilingual one — the packaged USE when it is
        installed (no download), else fastembed's multilingual MiniLM."""
        if self.multilingual and emb.use_installed():
            return emb.EmbedderSpec("use", emb.USE_SPEC)
        name = emb.MULTILINGUAL_FASTEMBED_MODEL if self.multilingual else emb.DEFAULT_FASTEMBED_MODEL
        return emb.EmbedderSpec("fastembed", name)

    async def _load_auto(self) -> None:
        models = self.settings.models_dir
        bge = self._auto_target()
        if (cached := await self._cached(bge)) is not None:
            self._use(cached)
            return
        local: emb.Embedder | None = None
        if emb.packaged_model_installed():
            try:
                spec = emb.EmbedderSpec("sentence-transformers", emb.PACKAGED_ST_MODEL)
                local = await run_in_daemon_thread(lambda: emb.load(spec, models))
            except Exception as exc:
                log.warning("packaged sentence-transformers model failed to load: %s", exc)
        if local is None and emb.use_installed():  # the default install's model: every language, offline
            try:
                local = await run_in_daemon_thread(lambda: emb.load(emb.EmbedderSpec("use", emb.USE_SPEC), models))
            except Exception as exc:
                log.warning("packaged multilingual model failed to load: %s", exc)
        fallback = local or emb.HashEmbedder()
        if not (emb.fastembed_installed() and self.settings.fetch_models):
            self._use(fallback, "" if local else "no semantic model installed: using hash")
            return
        if not await run_in_daemon_thread(model_hub_reachable):
            # Offline is an expected condition: say once what serves, and why; never retry for half a minute.
            self._use(fallback, f"semantic model unavailable (offline): using {fallback.id}")
            return
        self._use(fallback, f"fetching {bge.model} in the background")
        await self._fetch(bge, fallback)

    async def _cached(self, spec: emb.EmbedderSpec) -> emb.Embedder | None:
        """The fastembed model `spec` when it is in the local cache (None at once when it is not, or
        fastembed is not installed: no download)."""
        if not emb.fastembed_installed():
            return None
        try:
            return await run_in_daemon_thread(lambda: emb.load(spec, self.settings.models_dir, local_only=True))
        except Exception:
            log.debug("fastembed %s is not cached locally", spec.model)
            return None

    async def _fetch(self, spec: emb.EmbedderSpec, fallback: emb.Embedder, why: str = "") -> None:
        """Load `spec` (downloading it if it must; blocking work in a thread), then serve it and let the app
        re-embed."""
        try:
            better = await run_in_daemon_thread(lambda: emb.load(spec, self.settings.models_dir))
        except Exception as exc:
            self.message = f"semantic model unavailable ({type(exc).__name__}): using {fallback.id}"
            log.warning("%s", self.message)
            return
        if spec != self._auto_target():  # the aim changed while it downloaded
            log.info("fetched %s, but %s is preferred now", spec.model, self._auto_target().model)
            return
        self._use(better, f"switched from {fallback.id}{why}")
        if self.on_switch is not None:
            await self.on_switch(better)

    async def prefer_multilingual(self) -> None:
        """Many memories are not in English: with `auto`, serve the multilingual model from now on, from
        the local cache or fetched in the background (offline: what serves keeps serving)."""
        if self.spec.kind != "auto" or self.multilingual:
            return
        self.multilingual = True
        await self._ready.wait()
        target, current = self._auto_target(), self.current
        if current is None or current.id in (f"fastembed:{target.model}", emb.UniversalSentenceEncoder.id):
            return
        if target.kind == "use":  # packaged: loads from the wheel, offline
            await self._fetch(target, current, MULTILINGUAL_REASON)
            return
        if not emb.fastembed_installed():
            return
        if (cached := await self._cached(target)) is not None:
            self._use(cached, f"switched from {current.id}{MULTILINGUAL_REASON}")
            if self.on_switch is not None:
                await self.on_switch(cached)
            return
        if not (self.settings.fetch_models and await run_in_daemon_thread(model_hub_reachable)):
            self.message = (
                f"many memories are not in English; {target.model} is unavailable (offline): using {current.id}"
            )
            log.info("%s", self.message)
            return
        log.info("many memories are not in English: fetching %s in the background", target.model)
        await self._fetch(target, current)

    async def ready(self) -> emb.Embedder:
        """Wait for the model; raise if it could not load."""
        await self._ready.wait()
        if self.current is None:
            raise Unavailable(self.message or "no embedding model is available")
        return self.current

    def status(self) -> EmbedderStatus:
        return EmbedderStatus(
            configured=self.settings.embedder,
            id=self.current.id if self.current else None,
            dim=self.current.dim if self.current else None,
            state=self.state,
            message=self.message,
            languages=coverage(self.current) if self.current else None,
        )

    # ---- embedding -------------------------------------------------------------------

    async def embed(self, texts: list[str]) -> tuple[emb.Embedder, list[list[float]]]:
        """Embed a batch with the current model; the model is returned with the vectors
        so that callers record exactly which embedder made them."""
        model = await self.ready()
        out: list[list[float]] = []
        for start in range(0, len(texts), MAX_BATCH):
            chunk = texts[start : start + MAX_BATCH]
            if model.cheap and len(chunk) <= INLINE_MAX:
                out += model.embed(chunk)
            else:
                out += await anyio.to_thread.run_sync(model.embed, chunk)
        return model, out

    async def embed_cached(self, text: str) -> tuple[emb.Embedder, list[float]]:
        """embed_one with an LRU cache: clients repeat queries, and models re-tell what was told (a duplicate
        `remember` needs the vector only to be recognised), while a model call costs milliseconds."""
        model = await self.ready()
        key = (model.id, text)
        if key in self._cache:
            self._cache.move_to_end(key)
            return model, self._cache[key]
        model, vector = await self.embed_one(text)
        self._cache[(model.id, text)] = vector
        if len(self._cache) > EMBED_CACHE_SIZE:
            self._cache.popitem(last=False)
        return model, vector

    async def embed_one(self, text: str) -> tuple[emb.Embedder, list[float]]:
        """Embed one text; requests that arrive together share one model call."""
        fut: asyncio.Future[tuple[emb.Embedder, list[float]]] = asyncio.get_running_loop().create_future()
        self._pending.append((text, fut))
        if not self._flushing:
            self._flushing = True
            self._spawn(self._flush())
        return await fut

    async def _flush(self) -> None:
        try:
            await asyncio.sleep(0)  # let callers that arrive in the same tick join the batch
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                try:
                    model, vecs = await self.embed([t for t, _ in batch])
                except Exception as exc:
                    for _, fut in batch:
                        if not fut.done():
                            fut.set_exception(exc)
                    continue
                for (_, fut), vec in zip(batch, vecs, strict=True):
                    if not fut.done():
                        fut.set_result((model, vec))
        finally:
            self._flushing = False
