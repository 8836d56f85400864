"""Reading memories back as resources show them: one memory with its links and history, the newest,
and the user's plans (upcoming and overdue)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from engrain.errors import NotFound
from engrain.reading import inputs
from engrain.storage import links as link_repo
from engrain.storage import memories as repo
from engrain.storage.models import Memory

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime


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
            id=str(m.id),
            kind=m.kind,
            content=m.content,
            namespace=m.namespace,
            importance=m.importance,
            category=m.category,
            tags=list(m.tags or []),
            temporality=m.temporality,
            event_time=m.event_time,
            created_at=m.created_at,
            valid_until=m.valid_until,
            pinned=m.pinned,
            access_count=m.access_count,
            last_accessed_at=m.last_accessed_at,
            embedder=m.embedder,
            procedure_steps=(m.metadata_ or {}).get("procedure_steps"),
            metadata=m.metadata_ or {},
            stage=m.trait_stage,
            confidence=m.trait_confidence,
        )


def split_intentions(plans: list[Memory], now: datetime) -> tuple[list[Memory], list[Memory]]:
    """Prospective memories as (upcoming or undated, overdue): a plan whose date passed stays
    overdue until the expiry job makes it historical."""
    overdue = [m for m in plans if m.event_time is not None and m.event_time < now]
    return [m for m in plans if m not in overdue], overdue


class MemoryViews:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def detail(self, user_id: str, memory_id: str) -> dict[str, Any]:
        """One memory with its links and its history (the `engrain://memories/{id}` resource)."""
        mid = inputs.memory_id("memory_id", memory_id)
        db = await self.rt.database()
        async with db.sessions() as s:
            m = await repo.get(s, user_id, mid)
            if m is None:
                raise NotFound("memory_id", mid)
            links = await link_repo.links_of(s, user_id, mid)
            hist = await repo.history(s, user_id, mid)
        return {
            **MemoryView.of(m).model_dump(mode="json"),
            "links": [
                {
                    "id": str(link["target_id"]),
                    "relation": link["relation"],
                    "created_by": link["created_by"],
                    "content": link["content"],
                }
                for link in links
            ],
            "history": [
                {
                    "action": h.action,
                    "at": h.at.isoformat(),
                    "old_content": h.old_content,
                    "new_content": h.new_content,
                    "reason": h.reason,
                }
                for h in hist
            ],
        }

    async def recent(self, user_id: str, limit: int = 20) -> list[MemoryView]:
        db = await self.rt.database()
        async with db.sessions() as s:
            return [MemoryView.of(m) for m in await repo.recent(s, user_id, self.rt.clock(), limit)]

    async def intentions(self, user_id: str) -> dict[str, list[MemoryView]]:
        """Prospective memories split into upcoming (or undated) and overdue."""
        now = self.rt.clock()
        db = await self.rt.database()
        async with db.sessions() as s:
            rows = await repo.intentions(s, user_id, now)
        upcoming, overdue = split_intentions(rows, now)
        return {"upcoming": [MemoryView.of(m) for m in upcoming], "overdue": [MemoryView.of(m) for m in overdue]}
