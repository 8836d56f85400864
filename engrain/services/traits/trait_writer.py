"""The trait lifecycle engine (docs/SPEC.md §7.4–7.6): create, reinforce, contradict, upgrade, decay, stage.

`TraitWriter` applies the rules of `engrain/rules/traits.py` to rows inside one reflection
transaction and writes a `memory_history` row for every change it makes.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading.duplicates import TRAIT_THRESHOLD as NEAR_DUPLICATE
from engrain.reading.enrich import content_hash
from engrain.rules.traits import (
    BEHAVIOR_CONFIDENCE,
    DISSOLVE_BELOW,
    QUALITY_FACTOR,
    TREND_CONFIDENCE,
    UPGRADE_STEP,
    UPGRADES,
    Stage,
    Subtype,
    clamp,
    context_of,
    contradicted,
    decayed,
    reinforced,
    stage_for,
    trend_window_days,
)
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo
from engrain.storage.models import Memory


@dataclass
class Stats:
    created: list[uuid.UUID] = field(default_factory=list[uuid.UUID])
    updated: set[uuid.UUID] = field(default_factory=set[uuid.UUID])
    dissolved: set[uuid.UUID] = field(default_factory=set[uuid.UUID])
    blocked: list[str] = field(default_factory=list[str])  # dismissed texts the model proposed again


class TraitWriter:
    """Applies lifecycle operations for one user inside one transaction."""

    def __init__(
        self,
        session: AsyncSession,
        user_id: str,
        now: datetime,
        cycle_id: uuid.UUID | None,
        embed: dict[str, tuple[str, int, list[float]]],
    ) -> None:
        self.s = session
        self.user_id = user_id
        self.now = now
        self.cycle_id = cycle_id
        self.embed = embed  # content -> (embedder id, dim, vector), computed before the transaction
        self.stats = Stats()

    async def _history(
        self, trait: Memory, action: str, reason: str, old: str | None = None, new: str | None = None
    ) -> None:
        await repo.add_history(
            self.s,
            trait.id,
            self.user_id,
            action,
            old=old,
            new=new,
            reason=reason,
            at=self.now,
            stage=trait.trait_stage,
            confidence=trait.trait_confidence,
        )

    async def set_confidence(self, trait: Memory, c: float, why: str) -> None:
        """New confidence; the stage follows it (trends keep their stage until promoted)."""
        old_c, old_stage = trait.trait_confidence or 0.0, trait.trait_stage
        confidence = clamp(c)
        trait.trait_confidence = confidence
        trait.updated_at = self.now
        if old_stage != Stage.TREND:
            trait.trait_stage = stage_for(confidence)
        await self._history(trait, "update", f"{why}: confidence {old_c:.3f} → {confidence:.3f}")
        if trait.trait_stage != old_stage:
            if trait.trait_stage == Stage.DISSOLVED:
                await self.dissolve(trait, f"confidence fell below {DISSOLVE_BELOW}", already_staged=True)
            else:
                await self._history(trait, "stage", f"{old_stage} → {trait.trait_stage}")
        self.stats.updated.add(trait.id)

    async def dissolve(self, trait: Memory, reason: str, already_staged: bool = False) -> None:
        if not already_staged and trait.trait_stage == Stage.DISSOLVED:
            return
        trait.trait_stage = Stage.DISSOLVED
        trait.valid_until = self.now
        trait.updated_at = self.now
        await self._history(trait, "dissolve", reason)
        self.stats.dissolved.add(trait.id)

    async def find_existing(self, content: str) -> Memory | None:
        """An active trait with the same text, or one close enough to count as the same trait."""
        digest = content_hash(content)
        for trait in await trait_repo.active_traits(self.s, self.user_id):
            if trait.content_hash == digest:
                return trait
        if content in self.embed:
            embedder_id, dim, vector = self.embed[content]
            near = await repo.nearest_live(self.s, self.user_id, "default", "trait", embedder_id, dim, vector, self.now)
            if near is not None and near.similarity >= NEAR_DUPLICATE:
                return await repo.get(self.s, self.user_id, near.id)
        return None

    async def _insert(
        self,
        content: str,
        *,
        subtype: str,
        stage: str,
        confidence: float,
        context: str | None,
        window_end: datetime | None,
        reinforcements: int,
    ) -> Memory:
        embedder_id, _, vector = self.embed.get(content, (None, 0, None))
        trait = Memory(
            id=uuid.uuid4(),
            user_id=self.user_id,
            namespace="default",
            kind="trait",
            content=content,
            content_hash=content_hash(content),
            embedder=embedder_id,
            importance=5,
            category="trait",
            tags=[],
            temporality="current",
            created_at=self.now,
            told_at=self.now,
            updated_at=self.now,
            pinned=False,
            metadata_={},
            trait_subtype=subtype,
            trait_stage=stage,
            trait_confidence=clamp(confidence),
            trait_context=context,
            trait_window_end=window_end,
            trait_reinforcement_count=reinforcements,
            trait_contradiction_count=0,
            trait_first_observed=self.now,
            trait_last_reinforced=self.now,
        )
        await repo.insert(self.s, trait, vector)
        await self._history(
            trait, "create", f"new {subtype} ({stage}, confidence {trait.trait_confidence:.2f})", new=content
        )
        self.stats.created.append(trait.id)
        return trait

    async def dismissed(self, content: str) -> bool:
        """The user dismissed a trait with this text (review_trait): it is never created again."""
        if await trait_repo.is_dismissed(self.s, self.user_id, content_hash(content)):
            self.stats.blocked.append(content)
            return True
        return False

    async def create_trend(self, content: str, evidence: list[uuid.UUID], window_days: Any, context: Any) -> None:
        if await self.dismissed(content):
            return
        existing = await self.find_existing(content)
        if existing is not None:
            await self.reinforce(existing, evidence, "D")
            return
        days = trend_window_days(content, window_days)
        trait = await self._insert(
            content,
            subtype=Subtype.BEHAVIOR,
            stage=Stage.TREND,
            confidence=TREND_CONFIDENCE,
            context=context_of(context),
            window_end=self.now + timedelta(days=days),
            reinforcements=1,
        )
        await trait_repo.add_evidence(self.s, self.user_id, trait.id, evidence, "supporting", "D", self.cycle_id)

    async def create_behavior(self, content: str, evidence: list[uuid.UUID], confidence: Any, context: Any) -> None:
        if await self.dismissed(content):
            return
        existing = await self.find_existing(content)
        if existing is not None:
            await self.reinforce(existing, evidence, "C")
            return
        low, high = BEHAVIOR_CONFIDENCE
        c = float(confidence) if isinstance(confidence, int | float) and not isinstance(confidence, bool) else low
        trait = await self._insert(
            content,
            subtype=Subtype.BEHAVIOR,
            stage=Stage.CANDIDATE,
            confidence=min(high, max(low, c)),
            context=context_of(context),
            window_end=None,
            reinforcements=1,
        )
        await trait_repo.add_evidence(self.s, self.user_id, trait.id, evidence, "supporting", "C", self.cycle_id)

    def catch_up_decay(self, trait: Memory) -> None:
        """Bring a trait's confidence up to date before evidence changes it, so the time since its
        last reinforcement still counts (the cycle's decay pass would otherwise start from now)."""
        if trait.trait_stage in (Stage.TREND, Stage.DISSOLVED) or trait.trait_confidence is None:
            return
        last = trait.trait_last_reinforced or trait.created_at
        decayed_at = (trait.metadata_ or {}).get("last_decay_at")
        if decayed_at:
            last = max(last, datetime.fromisoformat(decayed_at))
        days = (self.now - last).total_seconds() / 86400
        trait.trait_confidence = decayed(
            trait.trait_confidence, trait.trait_subtype or Subtype.BEHAVIOR, trait.trait_reinforcement_count or 0, days
        )
        trait.metadata_ = {**(trait.metadata_ or {}), "last_decay_at": self.now.isoformat()}

    async def reinforce(self, trait: Memory, evidence: list[uuid.UUID], grade: str) -> None:
        self.catch_up_decay(trait)
        grade = grade if grade in QUALITY_FACTOR else "D"
        await trait_repo.add_evidence(self.s, self.user_id, trait.id, evidence, "supporting", grade, self.cycle_id)
        trait.trait_reinforcement_count = (trait.trait_reinforcement_count or 0) + max(1, len(evidence))
        trait.trait_last_reinforced = self.now
        await self.set_confidence(trait, reinforced(trait.trait_confidence or 0.0, grade), f"reinforced ({grade})")

    async def contradict(self, trait: Memory, evidence: list[uuid.UUID], description: str) -> None:
        self.catch_up_decay(trait)
        await trait_repo.add_evidence(self.s, self.user_id, trait.id, evidence, "contradicting", None, self.cycle_id)
        trait.trait_contradiction_count = (trait.trait_contradiction_count or 0) + len(evidence)
        why = f"contradicted by {len(evidence)} memor{'y' if len(evidence) == 1 else 'ies'}"
        await self.set_confidence(
            trait,
            contradicted(trait.trait_confidence or 0.0, len(evidence)),
            f"{why}: {description}"[:500] if description else why,
        )

    async def modify(self, trait: Memory, new_content: str, reason: str = "reworded after contradictions") -> None:
        """The trait keeps its evidence under new words (the contradiction review, or the user's edit)."""
        old = trait.content
        trait.content, trait.content_hash, trait.updated_at = new_content, content_hash(new_content), self.now
        if new_content in self.embed:
            embedder_id, _, vector = self.embed[new_content]
            await repo.set_embeddings(self.s, embedder_id, [(self.user_id, trait.id)], [vector])
            trait.embedder = embedder_id
        await self._history(trait, "modify", reason, old=old, new=new_content)
        self.stats.updated.add(trait.id)

    async def upgrade(self, sources: list[Memory], new_content: str, new_subtype: str, reasoning: str) -> str | None:
        """behavior→preference (every source ≥ 0.5) or preference→core (≥ 0.6). Returns why it was
        refused, or None when it was applied."""
        if new_subtype not in UPGRADES:
            return f"unknown target subtype {new_subtype!r}"
        source_subtype, gate = UPGRADES[new_subtype]
        if not sources:
            return "no valid source traits"
        for source in sources:
            self.catch_up_decay(source)
        if any(t.trait_subtype != source_subtype for t in sources):
            return f"{new_subtype} upgrades need {source_subtype} sources"
        if any(t.trait_stage == Stage.TREND or (t.trait_confidence or 0) < gate for t in sources):
            return f"every source needs confidence ≥ {gate}"
        source_ids = {t.id for t in sources}
        if await self.dismissed(new_content):
            return "refused: the user dismissed this trait"
        target = await self.find_existing(new_content)
        if target is not None:
            if target.id in source_ids or source_ids & await trait_repo.ancestors(self.s, self.user_id, target.id):
                return "refused: the upgrade would make a cycle of parents"
            await self.reinforce(target, [], "B")
        else:
            start = min(1.0, max(t.trait_confidence or 0 for t in sources) + UPGRADE_STEP)
            contexts = {t.trait_context for t in sources}
            target = await self._insert(
                new_content,
                subtype=new_subtype,
                stage=stage_for(start),
                confidence=start,
                context=contexts.pop() if len(contexts) == 1 else "general",
                window_end=None,
                reinforcements=sum(t.trait_reinforcement_count or 0 for t in sources),
            )
        await trait_repo.set_parent(self.s, self.user_id, list(source_ids), target.id, self.now)
        await trait_repo.inherit_evidence(self.s, self.user_id, target.id, list(source_ids), self.cycle_id)
        for source in sources:
            await self._history(source, "upgrade", f"upgraded into {new_subtype} {target.id}: {reasoning}"[:500])
            self.stats.updated.add(source.id)
        return None
