"""The write path (SPEC §5): remember, supersede, forget, and reading one memory back."""

from __future__ import annotations

import logging
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import NotFound
from engrain.services import inputs
from engrain.services.enrich import content_hash, enrich
from engrain.storage import memories as repo
from engrain.storage.models import Memory

if TYPE_CHECKING:
    from engrain.server.state import AppState

log = logging.getLogger(__name__)

NEAR_DUPLICATE = 0.95
REEMBED_BATCH = 256


class RememberResult(BaseModel):
    id: str
    status: Literal["created", "duplicate", "merged"]
    kind: str
    temporality: str
    event_time: datetime | None
    importance: int
    category: str | None = None
    procedure_steps: list[str] | None = None
    superseded: str | None = Field(default=None, description="Id of the memory this one replaced.")


class ForgetResult(BaseModel):
    id: str
    deleted: bool
    traits_dissolved: list[str] = Field(default_factory=list)


class MemoryView(BaseModel):
    """A memory as resources show it."""

    id: str
    kind: str
    content: str
    namespace: str
    importance: int
    category: str | None
    tags: list[str]
    temporality: str
    event_time: datetime | None
    created_at: datetime
    valid_until: datetime | None
    pinned: bool
    access_count: int
    last_accessed_at: datetime | None
    embedder: str | None
    procedure_steps: list[str] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    stage: str | None = None
    confidence: float | None = None

    @classmethod
    def of(cls, m: Memory) -> MemoryView:
        return cls(
            id=str(m.id), kind=m.kind, content=m.content, namespace=m.namespace, importance=m.importance,
            category=m.category, tags=list(m.tags or []), temporality=m.temporality, event_time=m.event_time,
            created_at=m.created_at, valid_until=m.valid_until, pinned=m.pinned, access_count=m.access_count,
            last_accessed_at=m.last_accessed_at, embedder=m.embedder,
            procedure_steps=(m.metadata_ or {}).get("procedure_steps"), metadata=m.metadata_ or {},
            stage=m.trait_stage, confidence=m.trait_confidence,
        )


def _result(m: Memory, status: str, superseded: uuid.UUID | None = None) -> RememberResult:
    return RememberResult(
        id=str(m.id), status=status, kind=m.kind, temporality=m.temporality, event_time=m.event_time,
        importance=m.importance, category=m.category,
        procedure_steps=(m.metadata_ or {}).get("procedure_steps"),
        superseded=str(superseded) if superseded else None,
    )


class MemoryService:
    def __init__(self, app: AppState) -> None:
        self.app = app

    async def remember(
        self,
        user_id: str,
        content: str,
        *,
        kind: str | None = None,
        importance: int | None = None,
        event_time: str | None = None,
        category: str | None = None,
        tags: list[str] | None = None,
        namespace: str | None = None,
        pinned: bool = False,
        supersedes: str | None = None,
        source: str | None = None,
        temporality: str | None = None,
        procedure_steps: list[str] | None = None,
    ) -> RememberResult:
        """Store one memory, or recognise it as a duplicate / near-duplicate of a live one.

        `temporality` and `procedure_steps` are not tool arguments: conversation ingestion passes
        what the model extracted, which wins over the rule-based inference like any given value."""
        settings, now = self.app.settings, self.app.clock()
        content = inputs.text_field("content", content, inputs.MAX_CONTENT_CHARS)
        if kind is not None:
            kind = inputs.kind("kind", kind, inputs.WRITABLE_KINDS)
        if importance is not None:
            importance = inputs.int_range("importance", importance, 1, 10)
        explicit_time = inputs.when("event_time", event_time, now, settings.tz) if event_time else None
        if category is not None:
            category = inputs.text_field("category", category, inputs.MAX_CATEGORY_CHARS)
        clean_tags = inputs.tags(tags or [])
        ns = inputs.namespace(namespace) if namespace is not None else "default"
        old_id = inputs.memory_id("supersedes", supersedes) if supersedes else None
        if source is not None:
            source = inputs.text_field("source", source, 200)

        info = enrich(content, now, settings.tz, event_time=explicit_time)
        if procedure_steps:
            info.procedure_steps, info.kind = procedure_steps, "procedural"
        if temporality is not None:
            info.temporality = inputs.kind("temporality", temporality, ("current", "historical", "prospective"))
        kind = kind or info.kind
        digest = content_hash(content)
        db = await self.app.database()

        async with db.sessions.begin() as s:
            if old_id is not None and await repo.get(s, user_id, old_id) is None:
                raise NotFound("supersedes", old_id)
            dup = await repo.find_live_duplicate(s, user_id, ns, kind, digest)
            if dup is not None:
                await repo.touch(s, user_id, [dup.id], now)
                replaced = old_id if old_id not in (None, dup.id) else None
                if replaced is not None:  # the replacement already exists: still retire the old memory
                    await self._supersede(s, user_id, replaced, dup.id, dup.content, now)
                return _result(dup, "duplicate", replaced)

        model, vector = await self.app.embeddings.embed_one(content)
        await db.ensure_vector_index(model.id, model.dim)
        metadata: dict[str, Any] = {}
        if info.procedure_steps:
            metadata["procedure_steps"] = info.procedure_steps
        if info.date_text:
            metadata["date_text"] = info.date_text
        try:
            async with db.sessions.begin() as s:
                near = await repo.nearest_live(s, user_id, ns, kind, model.id, model.dim, vector, now)
                # An explicit `supersedes` asks for a new row: never fold it into a look-alike.
                if old_id is None and near is not None and near[1] >= NEAR_DUPLICATE:
                    return await self._merge(s, user_id, near[0], content, importance, clean_tags, now, near[1])
                memory = Memory(
                    id=uuid.uuid4(), user_id=user_id, namespace=ns, kind=kind, content=content,
                    content_hash=digest, embedder=model.id, importance=importance or 5,
                    category=category or info.category, tags=clean_tags, temporality=info.temporality,
                    event_time=info.event_time, created_at=now, updated_at=now, pinned=bool(pinned),
                    source=source, metadata_=metadata,
                )
                await repo.insert(s, memory, vector)
                await repo.add_history(s, memory.id, user_id, "create", new=content, at=now)
                if old_id is not None:
                    await self._supersede(s, user_id, old_id, memory.id, content, now)
                return _result(memory, "created", old_id)
        except IntegrityError:
            # A concurrent remember of the same text won the unique index: report its row.
            async with db.sessions.begin() as s:
                dup = await repo.find_live_duplicate(s, user_id, ns, kind, digest)
                if dup is None:
                    raise
                return _result(dup, "duplicate")

    async def _supersede(
        self, s: AsyncSession, user_id: str, old_id: uuid.UUID, new_id: uuid.UUID, new_content: str, now: datetime
    ) -> None:
        """End the old memory's validity (it leaves recall) and say by what it was replaced."""
        await repo.end_validity(s, user_id, old_id, now)
        await repo.add_history(s, old_id, user_id, "supersede", reason=f"superseded by {new_id}", new=new_content,
                               at=now)

    async def _merge(
        self, s: AsyncSession, user_id: str, keep_id: uuid.UUID, content: str, importance: int | None,
        new_tags: list[str], now: datetime, similarity: float,
    ) -> RememberResult:
        """A near-duplicate: keep the existing row, fold in importance and tags, record the variant."""
        keep = await repo.get(s, user_id, keep_id)
        assert keep is not None
        keep.importance = max(keep.importance, importance or 0)
        keep.tags = list(dict.fromkeys([*(keep.tags or []), *new_tags]))
        keep.access_count += 1
        keep.last_accessed_at = now
        keep.updated_at = now
        await repo.add_history(s, keep.id, user_id, "merge", old=keep.content, new=content,
                               reason=f"near-duplicate (cosine {similarity:.3f})", at=now)
        return _result(keep, "merged")

    async def forget(self, user_id: str, memory_id: str, reason: str | None = None) -> ForgetResult:
        """Delete a memory with its links and vector; history keeps only that it happened."""
        mid = inputs.memory_id("memory_id", memory_id)
        if reason is not None:
            reason = inputs.text_field("reason", reason, inputs.MAX_REASON_CHARS, allow_empty=True) or None
        now = self.app.clock()
        db = await self.app.database()
        async with db.sessions.begin() as s:
            if await repo.get(s, user_id, mid) is None:
                raise NotFound("memory_id", mid)
            orphaned = await repo.traits_losing_last_support(s, user_id, mid)
            await repo.delete_memory(s, user_id, mid)
            await repo.add_history(s, mid, user_id, "forget", reason=reason, at=now)
            await repo.dissolve_traits(s, user_id, orphaned, now, f"lost its last supporting evidence ({mid})")
        return ForgetResult(id=str(mid), deleted=True, traits_dissolved=[str(t) for t in orphaned])

    async def detail(self, user_id: str, memory_id: str) -> dict[str, Any]:
        """One memory with its links and its history (the `engrain://memories/{id}` resource)."""
        mid = inputs.memory_id("memory_id", memory_id)
        db = await self.app.database()
        async with db.sessions() as s:
            m = await repo.get(s, user_id, mid)
            if m is None:
                raise NotFound("memory_id", mid)
            links = await repo.links_of(s, user_id, mid)
            hist = await repo.history(s, user_id, mid)
        return {
            **MemoryView.of(m).model_dump(mode="json"),
            "links": [
                {"id": str(link["target_id"]), "relation": link["relation"], "created_by": link["created_by"],
                 "content": link["content"]}
                for link in links
            ],
            "history": [
                {"action": h.action, "at": h.at.isoformat(), "old_content": h.old_content,
                 "new_content": h.new_content, "reason": h.reason}
                for h in hist
            ],
        }

    async def recent(self, user_id: str, limit: int = 20) -> list[MemoryView]:
        db = await self.app.database()
        async with db.sessions() as s:
            return [MemoryView.of(m) for m in await repo.recent(s, user_id, self.app.clock(), limit)]

    async def intentions(self, user_id: str) -> dict[str, list[MemoryView]]:
        """Prospective memories split into upcoming (or undated) and overdue."""
        now = self.app.clock()
        db = await self.app.database()
        async with db.sessions() as s:
            rows = await repo.intentions(s, user_id, now)
        overdue = [MemoryView.of(m) for m in rows if m.event_time is not None and m.event_time < now]
        upcoming = [MemoryView.of(m) for m in rows if m.event_time is None or m.event_time >= now]
        return {"upcoming": upcoming, "overdue": overdue}

    async def reembed_stale(self) -> int:
        """Re-embed, in batches, every row not embedded by the current model (all users)."""
        db = await self.app.database()
        total = 0
        while True:
            model = await self.app.embeddings.ready()
            await db.ensure_vector_index(model.id, model.dim)
            async with db.sessions() as s:
                rows = await repo.stale_embeddings(s, model.id, REEMBED_BATCH)
            if not rows:
                return total
            used, vectors = await self.app.embeddings.embed([content for _, content in rows])
            async with db.sessions.begin() as s:
                await repo.set_embeddings(s, used.id, [mid for mid, _ in rows], vectors)
            total += len(rows)
