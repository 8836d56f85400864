"""The write path (docs/SPEC.md §5): remember (one or a batch), supersede, merge, forget.

Reading memories back is `memory_views.py`; re-embedding after a model change is `reembedding.py`. A write never
waits for the model of meaning to load: while it loads (or when none could) the memory is stored with no vector,
checked for an exact repeat only, and `reembedding.Reembedding.embed_missing_soon` gives it its vector once a
model serves."""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import uuid
from collections.abc import Awaitable, Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

import anyio
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from engrain.errors import InvalidInput, NotFound, QuotaExceeded
from engrain.reading import changes, inputs
from engrain.reading.changes import Change
from engrain.reading.dates import mood_of
from engrain.reading.duplicates import is_near_duplicate
from engrain.reading.enrich import DEFAULT_IMPORTANCE, IMPORTANT, content_hash, enrich
from engrain.reading.leaving import holds, left_value
from engrain.reading.metadata import Key, MemoryMetadata
from engrain.reading.mood import Mood
from engrain.reading.periods import Grain, Period, happened_label
from engrain.reading.slots import Topic, given_slot, shown_key, single_valued, slot_of, slot_topic, states_now
from engrain.reading.speakers import REPLY, ROLES, spoken_by, words_of
from engrain.reading.standing import standing_of
from engrain.rules import plans
from engrain.services.memories import replacing
from engrain.services.memories.redacting import redact_request, redacted
from engrain.services.memories.requests import RememberRequest
from engrain.services.memories.results import ForgetResult, PinResult, RememberResult, Replaceable
from engrain.services.wording import short_ids as ids
from engrain.storage import analyze, timeline
from engrain.storage import memories as repo
from engrain.storage import stats as stats_repo
from engrain.storage.models import Memory
from engrain.text import fulltext
from engrain.text.languages import ENGLISH, detect, has_cjk
from engrain.text.windows import WINDOWED_CHARS

if TYPE_CHECKING:
    from engrain.providers.embeddings import Embedder
    from engrain.services.memories.language_mix import LanguageMix
    from engrain.services.memories.reembedding import Reembedding
    from engrain.services.runtime import Runtime
    from engrain.storage.db import Database

log = logging.getLogger(__name__)
T = TypeVar("T")
# What a batch writes in its own transaction with the ids it created (remember_many's `then`).
Then = Callable[[AsyncSession, list[uuid.UUID]], Awaitable[None]]
# A text's vector and the model that made it; None while no model serves (stored without one, embedded later).
Embedded: TypeAlias = "tuple[Embedder, list[float]] | None"

MAX_BATCH = 5_000
# A turn of a chat this short is embedded with the end of the turn before it (what it answers).
SHORT_TURN_WORDS = 8
CONTEXT_CHARS = 600
# New rows between two checks of the planner's statistics (storage/db.Database.refresh_statistics): a batch
# of this many is checked right after it commits; one-at-a-time writes, every this many.
STATISTICS_CHECK_ROWS = 100
# Where a caller's session keeps the rows whose windows are made once it commits (`_window_after_commit`).
_WINDOWS_AT_COMMIT = "engrain.windows_at_commit"
# The user's newest current facts a value left or a change is compared with, per value or change: a domain's
# words ("work", "card") are common, and the fact a change ends may be older than the last few that say them.
FACTS_COMPARED = 20


@dataclass
class Prepared:
    """One validated, enriched memory, ready to store."""

    content: str
    digest: str
    kind: str
    namespace: str
    importance_given: int | None
    category: str
    tags: list[str]
    temporality: str
    event: Period | None
    told_at: datetime
    pinned: bool
    source: str | None
    metadata: dict[str, Any]
    lang: str  # detected once, for enrichment and the full-text form
    topic: Topic | None = None  # a single-valued slot it speaks of without filling it (reading/slots.slot_topic)
    redacted: dict[str, int] | None = None  # secrets replaced before it was read (kind → count)
    turn: bool = False  # a turn of a chat (its role given or its speaker named)
    left: str | None = None  # a value the user says they left ("Ditched Vodafone for…": reading/leaving.py)
    change: Change | None = None  # a change said by the new value ("I'm at The Gym Group now": reading/changes.py)
    context: str = ""  # what its vector is made of besides its words: a short turn's previous turn

    @property
    def event_time(self) -> datetime | None:
        return self.event.start if self.event is not None else None

    def arrive(self, present: datetime) -> None:
        """Judge its plan at the user's present for this write (rules/plans.on_arrival)."""
        end = self.event.end if self.event is not None else None
        arrived = plans.on_arrival(self.temporality, self.event_time, end, self.told_at, present)
        if arrived != self.temporality:  # a plan whose time had passed: history, marked as a past plan
            self.metadata = {**self.metadata, Key.WAS_PLAN.value: True}
        self.temporality = arrived

    def row(self, user_id: str, now: datetime) -> Memory:
        return Memory(
            id=uuid.uuid4(),
            user_id=user_id,
            namespace=self.namespace,
            kind=self.kind,
            content=self.content,
            content_hash=self.digest,
            importance=self.importance_given or DEFAULT_IMPORTANCE,
            category=self.category,
            tags=self.tags,
            temporality=self.temporality,
            event_time=self.event.start if self.event is not None else None,
            event_end=self.event.end if self.event is not None else None,
            event_grain=str(self.event.grain) if self.event is not None else None,
            told_at=self.told_at,
            created_at=now,
            updated_at=now,
            pinned=self.pinned,
            source=self.source,
            metadata_=self.metadata,
            access_count=0,
            lang=self.lang,
        )


async def to_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` in a worker thread (anyio's run_sync takes no keyword arguments)."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))


def _told(result: RememberResult, stored: str, kinds: dict[str, int] | None) -> RememberResult:
    """Say what was redacted, and the text as it was stored, when anything was."""
    if kinds:
        result.redacted, result.content = kinds, stored
    return result


def _result(
    m: Memory, status: Literal["created", "duplicate", "merged"], tz: tzinfo | None, superseded: uuid.UUID | None = None
) -> RememberResult:
    meta = MemoryMetadata.of(m.metadata_)
    return RememberResult(
        id=str(m.id),
        status=status,
        kind=m.kind,
        temporality=m.temporality,
        event_time=m.event_time,
        happened=happened_label(m.event_time, m.event_end, m.event_grain, tz),
        told_at=m.told_at,
        importance=m.importance,
        category=m.category,
        procedure_steps=meta.procedure_steps,
        superseded=str(superseded) if superseded else None,
        key=shown_key(meta.slot) if meta.slot and single_valued(meta.slot) else None,
    )


async def _arrive(s: AsyncSession, user_id: str, now: datetime, batch: list[Prepared]) -> None:
    """A batch's plans judged at its present: an imported history at its own end (its last message), unless
    the user's clock is already past it (storage/timeline.write_present)."""
    if batch:
        present = await timeline.write_present(s, user_id, now, max(p.told_at for p in batch))
        for p in batch:
            p.arrive(present)


@contextmanager
def _item(i: int) -> Generator[None]:
    """An error about one item of a batch names it: `items[3].content`."""
    try:
        yield
    except InvalidInput as exc:
        raise InvalidInput(f"items[{i}].{exc.field}", str(exc).split(": ", 1)[1]) from None


class MemoryWriter:
    def __init__(self, runtime: Runtime, languages: LanguageMix, reembedding: Reembedding) -> None:
        self.rt = runtime
        self.languages = languages
        self.reembedding = reembedding
        self._unchecked_rows = 0

    def _stored(
        self, db: Database, written: Sequence[tuple[str, uuid.UUID, str]], session: AsyncSession | None = None
    ) -> None:
        """New rows (user, id, text) were written: their long ones get their windows in the background once
        committed (rows written in a caller's `session`, when it commits), and after every STATISTICS_CHECK_ROWS
        the statistics are refreshed in the background if they need it (the acknowledgement waits for neither)."""
        long = [(user_id, memory_id) for user_id, memory_id, content in written if len(content) > WINDOWED_CHARS]
        if long and session is None:
            self.reembedding.window_soon(long)
        elif long and session is not None:
            self._window_after_commit(session, long)
        self._unchecked_rows += len(written)
        if self._unchecked_rows >= STATISTICS_CHECK_ROWS:
            self._unchecked_rows = 0
            self.rt.spawn(db.refresh_statistics())

    def _window_after_commit(self, session: AsyncSession, keys: list[tuple[str, uuid.UUID]]) -> None:
        """Windows for rows of a caller's transaction (a whole conversation ingested): made once it commits, as
        the background pass could not read them before."""
        pending: list[tuple[str, uuid.UUID]] | None = session.info.get(_WINDOWS_AT_COMMIT)
        if pending is None:
            pending = session.info[_WINDOWS_AT_COMMIT] = []

            def committed(_: Session) -> None:
                self.reembedding.window_soon(session.info.pop(_WINDOWS_AT_COMMIT, []))

            event.listen(session.sync_session, "after_commit", committed, once=True)
        pending += keys

    async def remember(
        self,
        user_id: str,
        request: RememberRequest,
        *,
        source: str | None = None,
        session: AsyncSession | None = None,
    ) -> RememberResult:
        """Store one memory, or recognise it as a duplicate / near-duplicate of a live one.

        `source`: where it came from (a conversation's id). `session`: write inside the caller's
        transaction (ingestion stores a whole answer or nothing); without one, the memory is its own
        transaction."""
        now = self.rt.clock()
        inputs.text_field("content", request.content, inputs.MAX_CONTENT_CHARS)  # before any work is spent on it
        if request.supersedes:
            inputs.memory_ref("supersedes", request.supersedes)
        # Secrets go first: nothing below (the embedding, the reading, the row, a log line) sees them.
        request, kinds = await redacted(request, self.rt.settings.redact)
        with self.reembedding.writing():
            return await self._remember(user_id, request, kinds, now, source, session)

    async def _remember(
        self,
        user_id: str,
        request: RememberRequest,
        kinds: dict[str, int],
        now: datetime,
        source: str | None,
        session: AsyncSession | None,
    ) -> RememberResult:
        await fulltext.load_for(request.content)
        item, embedded = await self._read_and_embed(request, now, source)
        db = await self.rt.database()
        async with db.transaction(session) as s:
            item.arrive(await timeline.write_present(s, user_id, now, item.told_at))
            old_id = await ids.resolve(s, user_id, "supersedes", request.supersedes) if request.supersedes else None
            result = await self._write(s, user_id, item, old_id, embedded, now)
        if result.status == "created":  # once committed (or in the caller's transaction): the mix may read it
            self.languages.stored([item.lang])
            self._stored(db, [(user_id, uuid.UUID(result.id), item.content)], session)
            if embedded is None:
                self.reembedding.embed_missing_soon()
                result.words_only = self._no_model()
        return _told(result, item.content, kinds)

    async def _read_and_embed(
        self, request: RememberRequest, now: datetime, source: str | None
    ) -> tuple[Prepared, Embedded]:
        """Read the text (dates, mood, language: CPU work in a worker thread, which keeps the event loop, and so
        every other user's calls, free) and embed it, before the transaction, so that the duplicate check, the
        near-duplicate search and the insert share one. A model that runs in a worker thread of its own embeds
        while the text is read, the two side by side on two cores; a cheap one (hash) runs on the event loop,
        where overlapping it with the reading thread only adds switching, so it follows (docs/performance.md).
        No model at hand (still loading): no vector, and no wait."""
        current = await self.rt.embeddings.at_hand()
        if current is None:
            return await to_thread(self._prepare, request, now, source), None
        if current.cheap:
            item = await to_thread(self._prepare, request, now, source)
            return item, await self.rt.embeddings.embed_cached(request.content)
        embedding = asyncio.ensure_future(self.rt.embeddings.embed_cached(request.content))
        try:
            item = await to_thread(self._prepare, request, now, source)
        except BaseException:
            embedding.cancel()
            raise
        return item, await embedding

    async def _write(
        self,
        s: AsyncSession,
        user_id: str,
        item: Prepared,
        old_id: uuid.UUID | None,
        embedded: Embedded,
        now: datetime,
    ) -> RememberResult:
        """The duplicate check, the near-duplicate search and the insert, in one transaction. Without a vector
        only the same text is found: a near-duplicate stored while the model loaded is kept as its own row."""
        content, kind, ns, digest, clean_tags = item.content, item.kind, item.namespace, item.digest, item.tags
        if old_id is not None and await repo.get(s, user_id, old_id) is None:
            raise NotFound("supersedes", old_id)
        same_text, near = await self._probe(s, user_id, item, embedded, now)
        if same_text is None and old_id is not None:
            # Settling a result's `may_replace`: the words of a memory stored already (by ingest_conversation, of a
            # kind the model gave or in a project's namespace) are that memory, which then replaces the old one.
            same_text = next(iter((await repo.live_by_hashes(s, user_id, [digest])).values()), None)
        if same_text is not None:
            return await self._duplicate(s, user_id, same_text, old_id, now)
        # An explicit `supersedes` asks for a new row: never fold it into a look-alike.
        if (
            old_id is None
            and near is not None
            and embedded is not None
            and is_near_duplicate(
                embedded[0].id, near.similarity, content, near.content, item.event_time, near.event_time
            )
        ):
            return await self._merge(
                s, user_id, near.id, content, item.importance_given, clean_tags, now, near.similarity
            )
        await self._check_quota(s, user_id, 1, now)
        memory = item.row(user_id, now)
        vector = repo.Vector(embedded[0].id, embedded[1]) if embedded is not None else None
        if not await repo.insert_many(s, [memory], [vector], now):
            # A concurrent remember of the same text was stored since the probe: report its row.
            same_text = (await repo.live_by_hashes(s, user_id, [digest])).get((ns, kind, digest))
            assert same_text is not None
            return await self._duplicate(s, user_id, same_text, old_id, now)
        if old_id is not None:
            await self._supersede(s, user_id, old_id, memory.id, now)
        replaced, maybe = await self._settle(s, user_id, memory, item, None, now, unsure=old_id is None)
        result = _result(memory, "created", self.rt.settings.tz, old_id or replaced.get(memory.id))
        if maybe is not None:
            result.may_replace = Replaceable(id=str(maybe.id), content=maybe.content)
        return result

    @staticmethod
    async def _probe(
        s: AsyncSession, user_id: str, item: Prepared, embedded: Embedded, now: datetime
    ) -> tuple[uuid.UUID | None, repo.Neighbour | None]:
        """The live row with the same text and, given a vector, the nearest live memory (storage/memories.probe)."""
        ns, kind, digest = item.namespace, item.kind, item.digest
        if embedded is None:
            return (await repo.live_by_hashes(s, user_id, [digest])).get((ns, kind, digest)), None
        model, vector = embedded
        return await repo.probe(s, user_id, ns, kind, digest, model.id, model.dim, vector, now)

    async def _settle(
        self,
        s: AsyncSession,
        user_id: str,
        memory: Memory,
        item: Prepared,
        holders: dict[str, list[Memory]] | None,
        now: datetime,
        unsure: bool = True,
    ) -> tuple[dict[uuid.UUID, uuid.UUID], Memory | None]:
        """What a new memory ends, one way for `remember` and `remember_many`: a statement of a slot settles that
        slot; only when it replaces nothing may a value it says the user left, or a change it says by the new value,
        end a fact (`_leave`; `holders`: the facts found for a whole batch, else read here); where the rules cannot
        tell (and `unsure`, not when the caller named what it supersedes), it names what it may replace — looked for
        after the replacing, so never what it replaced — and marks it, for reflection to show the model. Returns
        {winner: what it replaced} and that memory."""
        ends, maybe = await self._fill_slot(s, user_id, memory, now), None
        if not ends:
            found = holders if holders is not None else await self._holders(s, user_id, [item], now)
            ends, maybe = await self._leave(s, user_id, memory, item, found, now)
        if maybe is None and unsure and item.topic is not None:
            maybe = await self._may_replace(s, user_id, item, now)
        if maybe is not None:
            await repo.mark_may_replace(s, user_id, memory.id, maybe.id)
        return ends, maybe

    async def _may_replace(self, s: AsyncSession, user_id: str, item: Prepared, now: datetime) -> Memory | None:
        """Where the rules are unsure: a memory that speaks of one of the user's single-valued facts without
        stating its value for now ("I used to work at Google", "we broke up") may end the live memory that
        fills it — the latest told before it — unless it names that value and holds now ("I love living in
        Berlin")."""
        topic = item.topic
        if topic is None or item.temporality == "prospective":  # a plan ends nothing yet
            return None
        holders = [
            h for key in topic.keys for h in await repo.slot_holders(s, user_id, key, now) if h[2] <= item.told_at
        ]
        if not holders:
            return None
        holder, value, _ = max(holders, key=lambda h: h[2])
        # "I used to work at Google" may end "I work at Google"; "I lived in Paris" says nothing of Berlin.
        if not topic.ends and (value not in item.content.lower() or states_now(item.content, item.lang)):
            return None
        return await repo.get(s, user_id, holder)

    async def _fill_slot(
        self, s: AsyncSession, user_id: str, memory: Memory, now: datetime
    ) -> dict[uuid.UUID, uuid.UUID]:
        """A correction said in passing: the live memories of the same slot with another value are replaced
        by the newly told one ("I live in Berlin" by "Actually I moved to Lisbon"); if one of them was told
        later (an import of older history), it replaces the new one instead. Returns {winner: what it replaced}."""
        meta = MemoryMetadata.of(memory.metadata_)
        slot, value = meta.slot, meta.slot_value
        replaced: dict[uuid.UUID, uuid.UUID] = {}
        if slot is None or value is None or not single_valued(slot):
            return replaced
        for other, other_value, told in await repo.slot_holders(s, user_id, slot, now):
            if other == memory.id or other_value == value:
                continue
            winner, loser = (memory.id, other) if told <= memory.told_at else (other, memory.id)
            await self._supersede(s, user_id, loser, winner, now)
            replaced.setdefault(winner, loser)
            if loser == memory.id:
                break  # the new memory is itself replaced: it replaces nothing more
        return replaced

    async def _duplicate(
        self, s: AsyncSession, user_id: str, dup_id: uuid.UUID, old_id: uuid.UUID | None, now: datetime
    ) -> RememberResult:
        """The text is stored already: count the use; a `supersedes` still retires the old memory."""
        dup = await repo.get(s, user_id, dup_id)
        assert dup is not None
        await repo.touch(s, user_id, [dup.id], now)
        replaced = old_id if old_id not in (None, dup.id) else None
        if replaced is not None:
            await self._supersede(s, user_id, replaced, dup.id, now)
        return _result(dup, "duplicate", self.rt.settings.tz, replaced)

    async def _check_quota(self, s: Any, user_id: str, adding: int, now: datetime) -> None:
        """ENGRAIN_MAX_MEMORIES_PER_USER: refuse, inside the writing transaction, what would pass it."""
        quota = self.rt.settings.max_memories_per_user
        if quota is None or adding == 0:
            return
        await repo.lock_user_writes(s, user_id)  # the count and the insert must be one step
        live = await stats_repo.count_live(s, user_id, now, cap=quota)
        if live + adding > quota:
            raise QuotaExceeded(
                f"content: this user has {live:,} memories and the quota is {quota:,} "
                "(ENGRAIN_MAX_MEMORIES_PER_USER); forget some or raise the quota"
            )

    def _prepare(self, request: RememberRequest, now: datetime, source: str | None) -> Prepared:
        """Validate every field (naming it in the error) and enrich the text; nothing is written."""
        tz = self.rt.settings.tz
        kind, importance, event_time, category = request.kind, request.importance, request.event_time, request.category
        content = inputs.text_field("content", request.content, inputs.MAX_CONTENT_CHARS)
        # The told time: what "yesterday" and "next Friday" in the text, and a phrase in `event_time`, count from.
        told = inputs.said_at("said_at", request.said_at, now, tz) if request.said_at else now
        lang = detect(content)
        if kind is not None:
            kind = inputs.kind("kind", kind, inputs.WRITABLE_KINDS)
        if importance is not None:
            importance = inputs.int_range("importance", importance, 1, 10)
        # A given phrase points the way the text does: "Monday" is the coming one in a plan. The caller's
        # reading (the calling model's) gives the period at its own precision and wins over the text's.
        explicit = (
            inputs.period("event_time", event_time, told, tz, prefer_past=mood_of(content, lang) is Mood.PAST)
            if event_time
            else None
        )
        if category is not None:
            category = inputs.text_field("category", category, inputs.MAX_CATEGORY_CHARS)
        if source is not None:
            source = inputs.text_field("source", source, 200)
        info = enrich(
            content, told, tz, event=explicit, lang=lang, read_dates=not request.undated, retold=request.retold
        )
        role = inputs.kind("role", request.role, ROLES) if request.role is not None else spoken_by(content)
        if role == "assistant":  # what the assistant said: a reply, never the user's fact, plan or habit
            info, kind = info.as_reply(), REPLY
        if request.procedure_steps and kind != REPLY:
            info.procedure_steps, info.kind = request.procedure_steps, "procedural"
        if request.temporality is not None and kind != REPLY:  # the model's reading wins over the rules' reading
            info.temporality = inputs.kind("temporality", request.temporality, inputs.TEMPORALITIES)
            if info.temporality == "prospective":
                info.recurrence = None  # a plan, as the model read it: no habit
        own = kind != REPLY and not request.retold  # the user's own words: their facts, slots and instructions
        # A later memory of this slot with another value replaces this one; the caller's key wins.
        slot = slot_of(content, lang) if own else None
        if request.key is not None and own:
            slot = given_slot(inputs.slot_key("key", request.key), slot, content)
        read = MemoryMetadata(
            procedure_steps=info.procedure_steps or None,
            date_text=info.date_text or None,
            time_phrase=info.time_phrase or None,  # read by recall for "when did…" questions
            recurrence=info.recurrence or None,  # a habit: a rule, never an upcoming plan
            slot=slot.key if slot else None,
            slot_value=slot.normalized if slot else None,
            standing=standing_of(words_of(content)) if own else None,
        )
        extra = {**(request.metadata or {}), **read.stored()}  # the client's keys, and what the reading found
        # A one-day event is no change of value ("tea instead of coffee this morning", "I left Paris today").
        one_day = info.event is not None and info.event.grain is Grain.DAY
        change = changes.changed(content, lang) if own and not one_day else None
        if change is not None and not change.said and (slot is not None or info.temporality == "prospective"):
            change = None  # unsure, and its own key or a plan says what it is: it names no fact it may end
        return Prepared(
            content=content,
            digest=content_hash(content),
            kind=kind or info.kind,
            namespace=inputs.namespace(request.namespace) if request.namespace is not None else "default",
            importance_given=importance or (IMPORTANT if info.important else None),
            lang=lang,
            topic=slot_topic(content, lang) if slot is None and own else None,
            category=category or info.category,
            tags=inputs.tags(request.tags or []),
            temporality=info.temporality,  # judged on arrival by the caller (`on_arrival`)
            event=info.event,
            told_at=told,
            pinned=bool(request.pinned),
            source=source,
            metadata=extra,
            turn=role is not None,
            left=left_value(content, lang, one_day) if own else None,
            change=change,
        )

    def _prepare_batch(self, items: list[RememberRequest], now: datetime, source: str | None) -> list[Prepared]:
        """Every item's cheap checks first (a batch whose last item is too long is refused before any is read),
        then each item's secrets out and its reading. In a worker thread: the reading is CPU work."""
        self._check_batch(items)
        prepared: list[Prepared] = []
        for i, it in enumerate(items):
            with _item(i):
                it, kinds = redact_request(it, self.rt.settings.redact)
                item = self._prepare(it, now, source)
                item.redacted = kinds or None
                prepared.append(item)
        for before, p in itertools.pairwise(prepared):
            # A short turn of a chat ("Yes, the green one!") means what it answers: its vector reads that too, so
            # that the question it settles finds it (issue 51). Its words and full-text index stay its own.
            if p.turn and before.turn and len(p.content.split()) <= SHORT_TURN_WORDS:
                p.context = before.content[-CONTEXT_CHARS:]
        return prepared

    @staticmethod
    def _check_batch(items: list[RememberRequest]) -> None:
        """The checks that need no reading, on every item before any is read: a batch whose last item is
        too long is refused at once, not after the reading of all the others."""
        if len(items) > MAX_BATCH:
            raise InvalidInput("items", f"{len(items)} memories; the limit is {MAX_BATCH:,} per batch")
        for i, it in enumerate(items):
            with _item(i):
                inputs.text_field("content", it.content, inputs.MAX_CONTENT_CHARS)
                if it.supersedes is not None:
                    raise InvalidInput("supersedes", "is not taken in a batch; replace a memory with remember")
                if it.kind is not None:
                    inputs.kind("kind", it.kind, inputs.WRITABLE_KINDS)
                if it.importance is not None:
                    inputs.int_range("importance", it.importance, 1, 10)
                if it.namespace is not None:
                    inputs.namespace(it.namespace)
                inputs.tags(it.tags or [])

    async def remember_many(
        self, user_id: str, items: list[RememberRequest], *, source: str | None = None, then: Then | None = None
    ) -> list[RememberResult]:
        """Store a batch in a few statements: one embedding call, one insert, exact dedup (against live
        rows and within the batch). Unlike `remember`, near-duplicates are not merged: that takes one
        vector search per memory, which bulk imports cannot afford. All or nothing: `then` (given the ids
        created) writes what must stand or fall with the batch in its transaction (an import's queue row)."""
        now = self.rt.clock()
        # Enrichment is CPU work (dateparser): a thread lets it overlap the database work of another batch.
        with self.reembedding.writing():
            prepared = await anyio.to_thread.run_sync(self._prepare_batch, items, now, source)
            return await self._store_batch(await self.rt.database(), user_id, prepared, now, then)

    async def _store_batch(
        self, db: Database, user_id: str, prepared: list[Prepared], now: datetime, then: Then | None = None
    ) -> list[RememberResult]:
        async with db.sessions() as s:
            existing = await repo.live_by_hashes(s, user_id, [p.digest for p in prepared])
            await _arrive(s, user_id, now, prepared)
        fresh: dict[tuple[str, str, str], Prepared] = {}
        for p in sorted(prepared, key=lambda p: p.digest):  # one lock order for every concurrent batch
            key = (p.namespace, p.kind, p.digest)
            if key not in existing:
                fresh.setdefault(key, p)
        texts = [f"{p.context}\n{p.content}" if p.context else p.content for p in fresh.values()]
        await self.languages.before_embedding([p.lang for p in fresh.values()])
        stored_vectors = await self._embed_batch(texts)
        rows = await to_thread(lambda: {key: p.row(user_id, now) for key, p in fresh.items()}) if fresh else {}
        async with db.sessions.begin() as s:
            await self._check_quota(s, user_id, len(rows), now)
            inserted = await repo.insert_many(s, list(rows.values()), stored_vectors, now)
            if len(rows) >= STATISTICS_CHECK_ROWS:  # checked right after the commit: it must see this batch
                await analyze.count_changes_at_commit(s)
            lost = [key for key, row in rows.items() if row.id not in inserted]
            if lost:  # a concurrent batch stored these texts first: they are duplicates of its rows
                existing |= await repo.live_by_hashes(s, user_id, [digest for _, _, digest in lost])
                for key in lost:
                    del rows[key]
            dup_ids = sorted(
                {
                    existing[(p.namespace, p.kind, p.digest)]
                    for p in prepared
                    if (p.namespace, p.kind, p.digest) in existing
                }
            )
            await repo.touch(s, user_id, dup_ids, now)
            # Corrections in an imported history: each slot statement, in told order, replaces the earlier; one
            # the rules cannot settle names what it may replace, as `remember` does.
            replaced: dict[uuid.UUID, uuid.UUID] = {}
            maybe: dict[uuid.UUID, Memory] = {}
            left = await self._holders(s, user_id, [fresh[key] for key in rows], now)  # one statement for all
            for key, row in sorted(rows.items(), key=lambda kv: (kv[1].told_at, str(kv[1].id))):
                ends, unsure = await self._settle(s, user_id, row, fresh[key], left, now)
                for winner, loser in ends.items():
                    replaced.setdefault(winner, loser)
                if unsure is not None:
                    maybe[row.id] = unsure
            if then is not None:
                await then(s, [row.id for row in rows.values()])
        self.languages.stored([p.lang for p in fresh.values()])
        self._stored(db, [(user_id, row.id, row.content) for row in rows.values()])
        words_only = None
        if rows and None in stored_vectors:
            self.reembedding.embed_missing_soon()
            words_only = self._no_model()
        out: list[RememberResult] = []
        for p in prepared:
            key = (p.namespace, p.kind, p.digest)
            if key in existing:
                result = RememberResult(
                    id=str(existing[key]),
                    status="duplicate",
                    kind=p.kind,
                    temporality=p.temporality,
                    event_time=p.event_time,
                    happened=p.event.label(self.rt.settings.tz) if p.event is not None else None,
                    told_at=p.told_at,
                    importance=p.importance_given or DEFAULT_IMPORTANCE,
                )
            else:
                created = fresh[key] is p
                status = "created" if created else "duplicate"
                result = _result(
                    rows[key], status, self.rt.settings.tz, replaced.get(rows[key].id) if created else None
                )
                if created and (found := maybe.get(rows[key].id)) is not None:
                    result.may_replace = Replaceable(id=str(found.id), content=found.content)
                if created:
                    result.words_only = words_only
            out.append(_told(result, p.content, p.redacted))
        return out

    def _no_model(self) -> str | None:
        """What a memory stored with no vector says of it: why, when no model could load (one still loading
        embeds it in a moment, which is not worth a word to the caller)."""
        return self.rt.embeddings.words_only() if self.rt.embeddings.state == "failed" else None

    async def _embed_batch(self, texts: list[str]) -> list[repo.Vector | None]:
        """A batch's vectors, or none while no model is at hand (they are made once one serves)."""
        if not texts or await self.rt.embeddings.at_hand() is None:
            return [None] * len(texts)
        model, vectors = await self.rt.embeddings.embed(texts)
        return [repo.Vector(model.id, vec) for vec in vectors]

    @staticmethod
    async def _holders(s: AsyncSession, user_id: str, items: list[Prepared], now: datetime) -> dict[str, list[Memory]]:
        """The user's current facts that what the `items` say may end, in one statement: for each value they say
        the user left, the facts that name it; for each change said by the new value, the facts of its domains
        (by `Change.query`). Each is looked for as its language's index reads it and, in a language of spaced words,
        as English's: a short fact in another language is often stored as English ("Conduzco un Seat Ibiza")."""
        values = {(p.left, p.lang) for p in items if p.left is not None}
        domains = {(p.change.query, p.lang) for p in items if p.change is not None}
        wanted: dict[tuple[str, str, str], None] = {}  # (key, config, words), in a stable order
        for key, lang in sorted(values | domains):
            for code in (lang,) if has_cjk(key) else dict.fromkeys((lang, ENGLISH)):
                form = fulltext.form(key, code)
                # A value as the index reads it (Chinese segmented); the domains' words as they are ("gym or …").
                words = key if (key, lang) in domains else form.search_text or key
                wanted[(key, form.ts_config, words)] = None
        if not wanted:
            return {}
        queries = [(config, words) for _, config, words in wanted]
        found = await repo.facts_naming(s, user_id, queries, max(p.told_at for p in items), now, limit=FACTS_COMPARED)
        out: dict[str, list[Memory]] = {}
        for (key, _, _), rows in zip(wanted, found, strict=True):
            have = out.setdefault(key, [])
            have.extend(m for m in rows if all(m.id != h.id for h in have))
        return out

    async def _leave(
        self,
        s: AsyncSession,
        user_id: str,
        memory: Memory,
        item: Prepared,
        holders: dict[str, list[Memory]],
        now: datetime,
    ) -> tuple[dict[uuid.UUID, uuid.UUID], Memory | None]:
        """A statement that the user left a value ("I don't see Dr. Green anymore") replaces the user's current
        fact told before it that holds that value ("My therapist is Dr. Green"): reading/leaving.py. Failing that,
        a change said by the new value ("These days I do my workouts at The Gym Group instead") replaces the fact
        of its domain that holds another ("I train at Anytime Fitness"): reading/changes.py. `holders`: the facts
        each may end (`_holders`); one another statement replaced already is passed over. Returns {winner: what
        it replaced}, and the fact it may replace where the change does not say which of several it ends (the
        newest of them; a model settles it)."""
        replaced: dict[uuid.UUID, uuid.UUID] = {}
        unsure: Memory | None = None

        def earlier(found: list[Memory]) -> list[Memory]:
            return [m for m in found if m.id != memory.id and m.told_at <= memory.told_at]

        named = holders.get(item.left, []) if item.left is not None else []
        # Read in the statement's language, then the fact's own (a short fact's language is often misread).
        ended = [
            old
            for old in earlier(named)
            if any(holds(old.content, item.left or "", code) for code in (item.lang, old.lang))
        ]
        if not ended and item.change is not None and item.change.query in holders:
            named = holders[item.change.query]
            facts = earlier(named)
            verdict = changes.replaced(item.change, memory.content, item.lang, [(m.content, m.lang) for m in facts])
            ended = [facts[i] for i in verdict.ends]
            unsure = max((facts[i] for i in verdict.tied), key=lambda m: m.told_at, default=None)
        for old in ended:
            await self._supersede(s, user_id, old.id, memory.id, now)
            named.remove(old)  # replaced: a later statement of the batch passes it over
            replaced.setdefault(memory.id, old.id)
        return replaced, unsure

    async def _supersede(
        self, s: AsyncSession, user_id: str, old_id: uuid.UUID, new_id: uuid.UUID, now: datetime
    ) -> None:
        """The old memory's key, or all of it, is replaced (services/memories/replacing.py)."""
        await replacing.replace(s, user_id, old_id, new_id, now)

    async def _merge(
        self,
        s: AsyncSession,
        user_id: str,
        keep_id: uuid.UUID,
        content: str,
        importance: int | None,
        new_tags: list[str],
        now: datetime,
        similarity: float,
    ) -> RememberResult:
        """A near-duplicate: keep the existing row, fold in importance and tags, record the variant."""
        keep = await repo.get(s, user_id, keep_id)
        assert keep is not None
        keep.importance = max(keep.importance, importance or 0)
        keep.tags = list(dict.fromkeys([*(keep.tags or []), *new_tags]).keys())
        keep.access_count += 1
        keep.last_accessed_at = now
        keep.updated_at = now
        await repo.add_history(
            s,
            keep.id,
            user_id,
            "merge",
            old=keep.content,
            new=content,
            reason=f"near-duplicate (cosine {similarity:.3f})",
            at=now,
        )
        return _result(keep, "merged", self.rt.settings.tz)

    async def reword(self, user_id: str, memory_id: str, content: str) -> RememberResult:
        """A new wording of a memory (the page's edit): it supersedes the old one, whose history keeps the old
        words, and keeps its kind, namespace, category, tags and pin; relative dates in the new words are read
        against the time the old one was told. A trait is reworded by its review (traits/review.py)."""
        inputs.memory_ref("memory_id", memory_id)
        async with (await self.rt.database()).sessions() as s:
            mid = await ids.resolve(s, user_id, "memory_id", memory_id)
            old = await repo.get(s, user_id, mid)
        if old is None or old.kind == "trait":
            raise NotFound("memory_id", mid)
        request = RememberRequest(
            content=content,
            kind=old.kind,
            namespace=old.namespace,
            category=old.category,
            tags=old.tags or None,
            pinned=old.pinned,
            supersedes=str(old.id),
            said_at=old.told_at.isoformat(),
        )
        return await self.remember(user_id, request)

    async def pin(self, user_id: str, memory_id: str, pinned: bool = True) -> PinResult:
        """Pin a memory (it never fades, and the profile lists it) or unpin it; the change is in its
        history. Pinning a memory that is already pinned changes nothing."""
        inputs.memory_ref("memory_id", memory_id)
        now = self.rt.clock()
        async with (await self.rt.database()).sessions.begin() as s:
            mid = await ids.resolve(s, user_id, "memory_id", memory_id)
            m = await repo.get(s, user_id, mid)
            if m is None or m.kind == "trait":
                raise NotFound("memory_id", mid)
            changed = await repo.set_pinned(s, user_id, mid, pinned, now)
            if changed:
                await repo.add_history(s, mid, user_id, "pin" if pinned else "unpin", at=now)
        return PinResult(id=str(mid), pinned=pinned, changed=changed)

    async def forget(self, user_id: str, memory_id: str, reason: str | None = None) -> ForgetResult:
        """Delete a memory with its links and vector, and every copy of its words: its history, and the
        memories it replaced. History keeps only that a deletion happened, and why as one of
        inputs.FORGET_REASONS (never free text)."""
        inputs.memory_ref("memory_id", memory_id)
        reason = inputs.kind("reason", reason, inputs.FORGET_REASONS) if reason is not None else "user_request"
        now = self.rt.clock()
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            mid = await ids.resolve(s, user_id, "memory_id", memory_id)
            if await repo.get(s, user_id, mid) is None:
                raise NotFound("memory_id", mid)
            erased = await repo.erase_ids(s, user_id, [mid], now, reason)
            if not erased["deleted"]:  # a concurrent forget of the same memory deleted it first
                raise NotFound("memory_id", mid)
        return ForgetResult(id=str(mid), deleted=True, traits_dissolved=[str(t) for t in erased["traits_dissolved"]])
