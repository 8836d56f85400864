"""Links between memories (docs/SPEC.md §5 `link`): bidirectional, idempotent, both ends the user's own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import InvalidInput, NotFound
from engrain.reading import inputs
from engrain.services.memories.results import LinkResult
from engrain.services.wording import short_ids as ids
from engrain.storage import links as link_repo
from engrain.storage import memories as repo

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

RELATIONS = ("elaborates", "contradicts", "same_topic", "causal", "related")


class MemoryLinks:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def link(
        self,
        user_id: str,
        source_id: str,
        target_id: str,
        relation: str = "related",
        created_by: str = "user",
        session: AsyncSession | None = None,
    ) -> LinkResult:
        """Link two of the user's memories; `session`: inside the caller's transaction."""
        inputs.memory_ref("source_id", source_id)
        inputs.memory_ref("target_id", target_id)
        relation = inputs.text_field("relation", relation, inputs.MAX_RELATION_CHARS)
        async with (await self.rt.database()).transaction(session) as s:
            a = await ids.resolve(s, user_id, "source_id", source_id)
            b = await ids.resolve(s, user_id, "target_id", target_id)
            if a == b:
                raise InvalidInput("target_id", "a memory cannot be linked to itself")
            found = await repo.hold(s, user_id, [a, b])  # a concurrent forget waits, or has already gone
            for field, mid in (("source_id", a), ("target_id", b)):
                if mid not in found:
                    raise NotFound(field, mid)
            created = await link_repo.add_link_pair(s, user_id, a, b, relation, created_by)
        return LinkResult(
            source_id=str(a), target_id=str(b), relation=relation, status="created" if created else "exists"
        )
