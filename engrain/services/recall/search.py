"""Recall (docs/SPEC.md §6): validate, embed the query, run the one scoring statement, trim to budget."""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

import anyio
from sqlalchemy.exc import DBAPIError

from engrain.errors import EngrainError, InvalidInput
from engrain.providers.embeddings import Embedder
from engrain.reading import inputs
from engrain.reading.asks import asks_in_time, asks_to_gather, asks_what_user_told
from engrain.reading.dates import QueryTime, read_query_time
from engrain.reading.metadata import MemoryMetadata
from engrain.reading.periods import happened_label
from engrain.reading.redaction import redact
from engrain.reading.slots import asked_slot
from engrain.reading.speakers import asks_about_user, asks_assistant
from engrain.rules.digests import DIGEST
from engrain.rules.gathering import GATHER_FETCH
from engrain.services.recall.focus import FocusedQuery, QueryFocus
from engrain.services.recall.gathering import gather
from engrain.services.recall.outdated import mark_outdated
from engrain.services.recall.refreshing import RefreshingCache
from engrain.services.recall.results import Breakdown, Gathering, LinkRef, RecallHit, RecallResult
from engrain.services.recall.text import TEXT_TOKENS, render
from engrain.services.wording.lines import replaced_mark
from engrain.storage import memories as repo
from engrain.storage import timeline
from engrain.storage.recall import (
    RecallFilter,
    RecallQuery,
    RecallRow,
    WordRarity,
    run_recall,
    word_rarity,
)
from engrain.text.fulltext import QueryForm, load_for, query_form

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

log = logging.getLogger(__name__)
MIN_POOL = 50
ACCESS_FLUSH_DELAY = 0.5  # seconds during which recall accesses are gathered into one update
# Word rarity (pg_stats) changes only when the table is analyzed: read again at most this often.
RARITY_SECONDS = 60.0


class RecallTimeout(EngrainError):
    pass


def estimate_tokens(content: str) -> int:
    """About four characters a token: cheap and close enough for budgeting context."""
    return max(1, math.ceil(len(content) / 4))


def _hit(row: RecallRow, tz: tzinfo | None) -> RecallHit:
    meta = MemoryMetadata.of(row.metadata)
    return RecallHit(
        id=str(row.id),
        content=row.content,
        kind=row.kind,
        score=round(float(row.score), 6),
        breakdown=Breakdown(
            vector=float(row.vector),
            text=bool(row.text),
            lexical=round(float(row.lexical), 6),
            temporal=float(row.temporal),
            slot=float(row.slot),
            standing=float(row.standing),
            bridge=float(row.bridge),
            redundancy=round(float(row.redundancy), 6),
            recency=float(row.recency),
            importance=float(row.importance),
            trait_boost=float(row.trait_boost),
            penalty=float(row.penalty),
        ),
        event_time=row.event_time,
        event_end=row.event_end,
        event_grain=row.event_grain,
        happened=happened_label(row.event_time, row.event_end, row.event_grain, tz),
        told_at=row.told_at,
        created_at=row.created_at,
        temporality=row.temporality,
        habit=meta.habit,
        was_plan=bool(meta.was_plan),
        stage=row.stage,
        replaced=next(iter(replaced_mark(meta)), None),
        namespace=row.namespace,
        category=row.category,
        importance=int(row.importance_raw),
        source=row.source,
        linked_from=str(row.linked_from) if row.linked_from else None,
        relation=row.relation,
        links=[LinkRef(id=link.id, relation=link.relation) for link in row.links],
        digest_of=len(meta.digest.evidence) if meta.digest is not None and row.kind == DIGEST else None,
    )


class AccessTracker:
    """Counts what recall returned without a write per recall: accesses gather for a moment and are
    applied in one statement, off the answer's path."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self._pending: dict[tuple[str, uuid.UUID], tuple[int, datetime]] = {}
        self._scheduled = False

    def record(self, user_id: str, ids: list[uuid.UUID], now: datetime) -> None:
        for memory_id in ids:
            count, _ = self._pending.get((user_id, memory_id), (0, now))
            self._pending[(user_id, memory_id)] = (count + 1, now)
        if not self._scheduled:
            self._scheduled = True
            self.rt.spawn(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(ACCESS_FLUSH_DELAY)
        self._scheduled = False
        pending, self._pending = self._pending, {}
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            await repo.touch_counts(s, [(u, m, n, at) for (u, m), (n, at) in sorted(pending.items())])


@dataclass(frozen=True)
class RecallRequest:
    """One recall, as the tool and reflection's evidence look-ups ask it. Every value is checked by
    `prepare`, and an error names its field. `track_access=False` for internal look-ups (reflection
    evidence) that must not count as the user's use of a memory. `as_of` answers from what was known and
    valid at that moment (created by then, not yet superseded, forgotten or archived), scored as of then."""

    query: str
    limit: int = 10
    kinds: Sequence[str] | None = None
    namespace: str | None = None
    since: str | None = None
    until: str | None = None
    include_traits: bool = True
    include_links: bool = True
    max_tokens: int | None = None
    as_of: str | None = None
    track_access: bool = True
    gather: bool | None = None  # None: read from the question (reading/asks.asks_to_gather); the caller's wins


@dataclass(frozen=True)
class PreparedRecall:
    """A recall with its arguments checked and its query read and embedded, ready to run."""

    query: str
    statement: RecallQuery
    left_out: tuple[str, ...]
    include_links: bool
    max_tokens: int | None
    track_access: bool
    accessed_at: datetime
    as_of: datetime | None
    in_time_order: bool = False  # the question asks for an order or a summary: the text lists hits as told
    words_only: str | None = None  # why no model of meaning took part (still loading, failed to load)
    gather_limit: int | None = None  # a question that gathers: the limit asked (the statement returns more)


# A query up to this long is read on the event loop (a fraction of a millisecond); a longer one, whose date
# reading grows with it, in a worker thread (docs/performance.md).
ON_LOOP_QUERY_CHARS = 200


async def _read_query(query: str, now: datetime, tz: tzinfo | None) -> tuple[QueryForm, QueryTime]:
    """The query's words (its full-text form) and its time ("when did…", a period named)."""

    def read() -> tuple[QueryForm, QueryTime]:
        words = query_form(query)
        return words, read_query_time(query, now, tz, words.lang)

    return read() if len(query) <= ON_LOOP_QUERY_CHARS else await anyio.to_thread.run_sync(read)


class RecallSearch:
    """`screen`: what a hit's text passes through on its way out — the redaction of secrets while rows stored
    before it may hold some (services/memories/redacting.StoredSecrets.screen; the text as it is once they are
    rewritten). Without one, every hit is screened."""

    def __init__(self, runtime: Runtime, screen: Callable[[str], str] | None = None) -> None:
        self.rt = runtime
        self.screen: Callable[[str], str] = screen or self._redacted
        self.accesses = AccessTracker(runtime)
        self.focus = QueryFocus(runtime)
        self.rarity = RefreshingCache(self._read_rarity, runtime.spawn, ttl=RARITY_SECONDS, max_entries=1)

    def _redacted(self, text: str) -> str:
        return redact(text, self.rt.settings.redact).text

    def text_of(self, result: RecallResult, explain: bool, budget: int | None) -> str:
        """The result as the model reads it (services/recall/text.py), in the user's zone; without
        `explain` the structured result drops the score's terms too."""
        if not explain:
            for hit in result.results:
                hit.breakdown = None
        now = result.user_now or self.rt.clock()  # plans marked on the user's clock, as the statement judged them
        return render(result, now=now, tz=self.rt.settings.tz, explain=explain, budget=budget)

    async def _read_rarity(self, _: str) -> WordRarity:
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            return await word_rarity(s)

    async def _embed_cached(
        self, user_id: str, query: str, lang: str
    ) -> tuple[FocusedQuery, Embedder | None, list[float] | None]:
        """The query's vector (of its focused text, for a semantic model); without a model (one still loading is
        not waited for), none: full text still answers. A model that does not know the query's language (an
        English-only model and a Chinese question) gives none either: its cosines would be noise that outvotes
        the words the query shares with a memory."""
        focused = FocusedQuery(query, ())
        model = await self.rt.embeddings.at_hand()
        if model is None or not model.covers(lang):
            return focused, None, None
        if model.semantic:
            focused = await self.focus.focus(user_id, query)
        try:
            model, vector = await self.rt.embeddings.embed_cached(focused.text)
        except Exception as exc:  # a model that fails now (a remote one, say) leaves full text to answer
            log.warning("recall without vectors: %s", exc)
            return focused, None, None
        return focused, model, vector

    async def recall(self, user_id: str, request: RecallRequest) -> RecallResult:
        """Hybrid recall: `prepare` then `execute`."""
        return await self.execute(await self.prepare(user_id, request))

    async def _user_clock(self, user_id: str, now: datetime) -> datetime:
        """The user's clock (storage/timeline.py): one probe of the (user_id, told_at) index."""
        async with (await self.rt.database()).sessions() as s:
            return await timeline.user_now(s, user_id, now)

    async def prepare(self, user_id: str, request: RecallRequest) -> PreparedRecall:
        """The first half of a recall: check the arguments, read the query (its words, its dates) and
        embed it. No statement runs yet but, for a question that names a period, the user's clock
        (bench/latency.py times the two halves apart)."""
        settings, now = self.rt.settings, self.rt.clock()
        as_of, kinds, max_tokens = request.as_of, request.kinds, request.max_tokens
        accessed_at = now
        if as_of is not None:
            now = inputs.when("as_of", as_of, now, settings.tz)
        query = inputs.text_field("query", request.query, inputs.MAX_QUERY_CHARS)
        limit = inputs.int_range("limit", request.limit, 1, inputs.MAX_LIMIT)
        kind_filter = tuple(inputs.kind("kinds", k, inputs.ALL_KINDS) for k in kinds) if kinds else None
        flt = RecallFilter(
            kinds=kind_filter,
            namespace=inputs.namespace(request.namespace) if request.namespace is not None else None,
            since=inputs.when("since", request.since, now, settings.tz) if request.since else None,
            until=inputs.when("until", request.until, now, settings.tz) if request.until else None,
            include_traits=request.include_traits,
            as_of=as_of is not None,
        )
        if flt.since is not None and flt.until is not None and flt.since > flt.until:
            raise InvalidInput(
                "since",
                f"{flt.since.isoformat()} is later than until ({flt.until.isoformat()}): "
                "nothing can be dated between them",
            )
        if max_tokens is not None:
            max_tokens = inputs.int_range("max_tokens", max_tokens, 1, 1_000_000)

        await load_for(query)
        words, when = await _read_query(query, now, settings.tz)
        if as_of is None and when.window is not None:
            # A period the question names ("next month", "last week") is read on the user's clock, where recall
            # judges their plans: an imported history's "next month" is the month after its last day.
            present = await self._user_clock(user_id, now)
            if present != now:
                words, when = await _read_query(query, present, settings.tz)
        gathers = asks_to_gather(query) if request.gather is None else request.gather
        focused, model, vector = await self._embed_cached(user_id, query, words.lang)
        words_only = self.rt.embeddings.words_only() if model is None else None
        embedder_id, dim = (model.id, model.dim) if model is not None else ("", 0)
        statement = RecallQuery(
            user_id=user_id,
            query=words,
            vector=vector,
            embedder_id=embedder_id,
            dim=dim,
            flt=flt,
            now=now,
            decay_seconds=settings.decay_rate_days * 86400,
            limit=min(inputs.MAX_LIMIT, limit * GATHER_FETCH) if gathers else limit,
            pool=max(MIN_POOL, limit * 5),
            ranked_for=limit,
            asks_when=when.asks_when,
            window=when.window,
            ahead=when.ahead,
            slot=asked_slot(query, words.lang),
            rarity=await self.rarity.get("memories"),
            asks_assistant=asks_assistant(query),
            about_user=asks_about_user(query),
            asks_what_user_told=asks_what_user_told(query),
        )
        return PreparedRecall(
            query=query,
            statement=statement,
            left_out=focused.left_out,
            include_links=request.include_links,
            max_tokens=max_tokens,
            track_access=request.track_access,
            accessed_at=accessed_at,
            as_of=now if as_of is not None else None,
            in_time_order=gathers or asks_in_time(query),
            words_only=words_only,
            gather_limit=limit if gathers else None,
        )

    async def execute(self, prepared: PreparedRecall) -> RecallResult:
        """The second half: the one scoring statement, then the result trimmed to its token budget."""
        settings, statement = self.rt.settings, prepared.statement
        db = await self.rt.database()
        try:
            async with db.reader.connect() as conn:
                recalled = await run_recall(conn, statement)
        except DBAPIError as exc:
            if "statement timeout" in str(exc.orig) or "canceling statement" in str(exc.orig):
                raise RecallTimeout(
                    f"query: recall took longer than ENGRAIN_RECALL_TIMEOUT_MS={settings.recall_timeout_ms} ms"
                ) from None
            raise
        rows = recalled.rows if prepared.include_links else [r for r in recalled.rows if r.source == "search"]
        hits = mark_outdated([_hit(r, self.rt.settings.tz) for r in rows], recalled.corrections, settings.tz)
        truncated, gathered = False, None
        if prepared.gather_limit is not None:  # the pieces first: only they are screened (3 × limit rows came)
            budget = 4 * (prepared.max_tokens or TEXT_TOKENS)
            limit, tz = prepared.gather_limit, settings.tz  # reading passages is text work: off the event loop
            pieces = await anyio.to_thread.run_sync(lambda: gather(hits, limit, budget, tz, prepared.query))
            hits, gathered = pieces.hits, Gathering(found=pieces.found, occasions=pieces.occasions)
            truncated = len(hits) < pieces.found
        for hit in hits:  # a row stored before its secrets were redacted is screened on the way out
            hit.content = self.screen(hit.content)
            hit.excerpt = self.screen(hit.excerpt) if hit.excerpt else None
        if prepared.gather_limit is None and prepared.max_tokens is not None:
            kept: list[RecallHit] = []
            used = 0
            for hit in hits:
                cost = estimate_tokens(hit.content)
                if used + cost <= prepared.max_tokens:
                    kept.append(hit)
                    used += cost
                else:
                    truncated = True
            hits = kept
        if hits and prepared.track_access:
            self.accesses.record(statement.user_id, [uuid.UUID(h.id) for h in hits], prepared.accessed_at)
        return RecallResult(
            query=prepared.query,
            results=hits,
            embedder=statement.embedder_id or None,
            truncated_by_tokens=truncated,
            words_not_embedded=list(prepared.left_out),
            as_of=prepared.as_of,
            in_time_order=prepared.in_time_order,
            words_only=prepared.words_only,
            user_now=rows[0].user_now if rows else None,
            gathered=gathered,
        )
