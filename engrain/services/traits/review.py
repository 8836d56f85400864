"""The user's word on a trait (`review_trait`): endorse, dismiss or edit what engrain believes.

- endorse: a memory "The user confirmed: …" becomes grade-B supporting evidence (the same
  reinforcement formula as reflection uses);
- dismiss: the trait dissolves and is marked `metadata.dismissed_at`; reflection never creates a
  trait with that text again;
- edit: new words, same evidence, confidence and stage.
Each is one transaction with its history rows.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, cast

from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import InvalidInput, NotFound
from engrain.reading import inputs
from engrain.reading.enrich import content_hash
from engrain.reading.metadata import MemoryMetadata
from engrain.reading.redaction import redact
from engrain.rules.traits import Stage
from engrain.services.traits.results import Action, ReviewResult
from engrain.services.traits.trait_writer import TraitWriter
from engrain.services.wording import short_ids as ids
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo
from engrain.storage.models import Memory

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

NEAR_CORE_MARGIN = 0.1  # an established trait this close to core is worth the user's confirmation


class CoreCheck(BaseModel):
    """What reflect asks through elicitation before a trait becomes core."""

    confirm: bool = Field(description="Yes, this is true about me (no removes it).")


class TraitReview:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def review(self, user_id: str, trait_id: str, action: str, content: str | None = None) -> ReviewResult:
        inputs.memory_ref("trait_id", trait_id)
        action = inputs.kind("action", action, ("endorse", "dismiss", "edit"))
        if action == "edit":
            if content is None:
                raise InvalidInput("content", "edit needs the new wording")
            content = inputs.text_field("content", content, inputs.MAX_CONTENT_CHARS)
            content = redact(content, self.rt.settings.redact).text  # a trait's words are stored like a memory's
        elif content is not None:
            raise InvalidInput("content", f"only edit takes content, not {action}")
        now = self.rt.clock()
        db = await self.rt.database()
        async with db.sessions() as s:
            tid = await ids.resolve(s, user_id, "trait_id", trait_id)
            current = await repo.get(s, user_id, tid)
        if current is None or current.kind != "trait":
            raise NotFound("trait_id", trait_id)
        if current.trait_stage == Stage.DISSOLVED:
            raise InvalidInput("trait_id", f"trait {trait_id} is dissolved; there is nothing to review")
        # Vectors first (outside the transaction), as every write path does; a dismissal writes no text.
        text = {"edit": content, "endorse": f"The user confirmed: {current.content}"}.get(action)
        embedded: dict[str, tuple[str, int, list[float]]] = {}
        if text is not None:
            model, vector = await self.rt.embeddings.embed_one(text)
            embedded[text] = (model.id, model.dim, vector)
        evidence_id = None
        async with db.sessions.begin() as s:
            trait = await repo.get(s, user_id, tid, for_update=True)
            if trait is None or trait.kind != "trait" or trait.trait_stage == Stage.DISSOLVED:
                raise NotFound("trait_id", trait_id)
            writer = await TraitWriter.open(s, user_id, now, None, embedded)
            if action == "endorse":
                assert text is not None  # endorse and edit have a text (above)
                evidence = await self._confirmation(s, user_id, text, embedded[text], now)
                await writer.reinforce(trait, [evidence.id], "B")
                evidence_id = str(evidence.id)
            elif action == "dismiss":
                await writer.dissolve(trait, "dismissed by the user")
                trait.metadata_ = MemoryMetadata.of(trait.metadata_).with_marks(dismissed_at=now.isoformat())
            else:
                assert text is not None
                await writer.modify(trait, text, "edited by the user")
            result = ReviewResult(
                id=str(trait.id),
                action=cast(Action, action),
                content=trait.content,
                stage=trait.trait_stage or Stage.DISSOLVED,
                confidence=round(trait.trait_confidence or 0.0, 6),
                evidence_id=evidence_id,
            )
        return result

    async def near_core(self, user_id: str) -> Memory | None:
        db = await self.rt.database()
        async with db.sessions() as s:
            return await trait_repo.near_core(s, user_id, NEAR_CORE_MARGIN)

    def core_question(self, trait: Memory) -> str:
        return (
            f"engrain is close to counting this as a core part of who you are: “{trait.content}”. "
            "Is it true about you? (No removes it.)"
        )

    async def answer_core_question(self, user_id: str, trait: Memory, confirm: bool | None) -> str:
        """Apply the user's answer (None: declined or cancelled) and never ask about this trait again."""
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            row = await repo.get(s, user_id, trait.id, for_update=True)
            if row is not None:
                row.metadata_ = MemoryMetadata.of(row.metadata_).with_marks(core_asked_at=self.rt.clock().isoformat())
        if confirm is None:
            return f"not answered: {trait.content}"
        await self.review(user_id, str(trait.id), "endorse" if confirm else "dismiss")
        return f"{'confirmed' if confirm else 'rejected'}: {trait.content}"

    async def _confirmation(
        self, s: AsyncSession, user_id: str, text: str, embedding: tuple[str, int, list[float]], now: datetime
    ) -> Memory:
        """The user's confirmation as a memory (reused when the same trait is endorsed again)."""
        digest = content_hash(text)
        existing = await repo.find_live_duplicate(s, user_id, "default", "fact", digest)
        if existing is not None:
            return existing
        embedder_id, _, vector = embedding
        memory = Memory(
            id=uuid.uuid4(),
            user_id=user_id,
            namespace="default",
            kind="fact",
            content=text,
            content_hash=digest,
            importance=7,
            category="trait",
            tags=["review"],
            temporality="current",
            created_at=now,
            told_at=now,
            updated_at=now,
            pinned=False,
            source="review_trait",
            metadata_={},
            access_count=0,
        )
        await repo.insert(s, memory, repo.Vector(embedder_id, vector))
        await repo.add_history(s, memory.id, user_id, "create", new=text, reason="trait endorsed by the user", at=now)
        return memory
