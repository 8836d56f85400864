"""The trait lifecycle engine (docs/SPEC.md §7.4–7.6): create, reinforce, contradict, upgrade, decay, stage.

Pure formulas are module functions (tested constant by constant); `TraitWriter` applies
them to rows inside one reflection transaction and writes a `memory_history` row for
every change it makes.
"""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.services.duplicates import TRAIT_THRESHOLD as NEAR_DUPLICATE
from engrain.services.enrich import content_hash
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo
from engrain.storage.models import Memory
from engrain.storage.traits import DECAY_LAMBDA, STAGE_BOUNDS

QUALITY_FACTOR = {"A": 0.25, "B": 0.20, "C": 0.15, "D": 0.05}
CONTRADICT_ONE, CONTRADICT_SEVERAL = 0.8, 0.6
BEHAVIOR_CONFIDENCE = (0.3, 0.5)
TREND_WINDOW_DAYS, MOOD_WINDOW_DAYS = 30, 14
UPGRADES = {"preference": ("behavior", 0.5), "core": ("preference", 0.6)}  # new subtype: (source subtype, gate)
REVIEW_RATIO, REVIEW_MIN_CONTRADICTIONS = 0.3, 2
CONTEXTS = ("work", "personal", "social", "learning", "general")
_MOOD = re.compile(
    r"\b(?:mood|feel(?:s|ing)?|stress\w*|anxi\w+|tired|exhaust\w*|happ\w+|sad\w*|energ\w+|"
    r"motivat\w+|overwhelm\w*|calm|frustrat\w+|lonel\w+)\b",
    re.IGNORECASE,
)


def clamp(c: float) -> float:
    return min(1.0, max(0.0, c))


def stage_for(confidence: float) -> str:
    for bound, stage in STAGE_BOUNDS:
        if confidence < bound:
            return stage
    return "core"


def reinforced(c: float, grade: str) -> float:
    return clamp(c + (1 - c) * QUALITY_FACTOR[grade])


def contradicted(c: float, pieces: int) -> float:
    return clamp(c * (CONTRADICT_ONE if pieces == 1 else CONTRADICT_SEVERAL))


def decayed(c: float, subtype: str, reinforcements: int, days: float) -> float:
    lam = DECAY_LAMBDA.get(subtype, DECAY_LAMBDA["behavior"]) / (1 + 0.1 * reinforcements)
    return clamp(c * math.exp(-lam * max(0.0, days)))


def needs_review(reinforcements: int, contradictions: int) -> bool:
    """Enough contradiction to ask the model whether the trait should be modified or dissolved."""
    total = reinforcements + contradictions
    return contradictions >= REVIEW_MIN_CONTRADICTIONS and total > 0 and contradictions / total > REVIEW_RATIO


def trend_window_days(content: str, requested: Any) -> int:
    if isinstance(requested, int) and not isinstance(requested, bool) and 1 <= requested <= 90:
        return requested
    return MOOD_WINDOW_DAYS if _MOOD.search(content) else TREND_WINDOW_DAYS


def context_of(value: Any) -> str:
    return value if value in CONTEXTS else "general"


@dataclass
class Stats:
    created: list[uuid.UUID] = field(default_factory=list)
    updated: set[uuid.UUID] = field(default_factory=set)
    dissolved: set[uuid.UUID] = field(default_factory=set)
    blocked: list[str] = field(default_factory=list)  # dismissed texts the model proposed again


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
        if old_stage != "trend":
            trait.trait_stage = stage_for(confidence)
        await self._history(trait, "update", f"{why}: confidence {old_c:.3f} → {confidence:.3f}")
        if trait.trait_stage != old_stage:
            if trait.trait_stage == "dissolved":
                await self.dissolve(trait, f"confidence fell below {STAGE_BOUNDS[0][0]}", already_staged=True)
            else:
                await self._history(trait, "stage", f"{old_stage} → {trait.trait_stage}")
        self.stats.updated.add(trait.id)

    async def dissolve(self, trait: Memory, reason: str, already_staged: bool = False) -> None:
        if not already_staged and trait.trait_stage == "dissolved":
            return
        trait.trait_stage = "dissolved"
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
            subtype="behavior",
            stage="trend",
            confidence=0.2,
            context=context_of(context),
            window_end=self.now + timedelta(days=days),
            reinforcements=1,
        )
        await trait_repo.add_evidence(self.s, trait.id, evidence, "supporting", "D", self.cycle_id)

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
            subtype="behavior",
            stage="candidate",
            confidence=min(high, max(low, c)),
            context=context_of(context),
            window_end=None,
            reinforcements=1,
        )
        await trait_repo.add_evidence(self.s, trait.id, evidence, "supporting", "C", self.cycle_id)

    def catch_up_decay(self, trait: Memory) -> None:
        """Bring a trait's confidence up to date before evidence changes it, so the time since its
        last reinforcement still counts (the cycle's decay pass would otherwise start from now)."""
        if trait.trait_stage in ("trend", "dissolved") or trait.trait_confidence is None:
            return
        last = trait.trait_last_reinforced or trait.created_at
        decayed_at = (trait.metadata_ or {}).get("last_decay_at")
        if decayed_at:
            last = max(last, datetime.fromisoformat(decayed_at))
        days = (self.now - last).total_seconds() / 86400
        trait.trait_confidence = decayed(
            trait.trait_confidence, trait.trait_subtype or "behavior", trait.trait_reinforcement_count or 0, days
        )
        trait.metadata_ = {**(trait.metadata_ or {}), "last_decay_at": self.now.isoformat()}

    async def reinforce(self, trait: Memory, evidence: list[uuid.UUID], grade: str) -> None:
        self.catch_up_decay(trait)
        grade = grade if grade in QUALITY_FACTOR else "D"
        await trait_repo.add_evidence(self.s, trait.id, evidence, "supporting", grade, self.cycle_id)
        trait.trait_reinforcement_count = (trait.trait_reinforcement_count or 0) + max(1, len(evidence))
        trait.trait_last_reinforced = self.now
        await self.set_confidence(trait, reinforced(trait.trait_confidence or 0.0, grade), f"reinforced ({grade})")

    async def contradict(self, trait: Memory, evidence: list[uuid.UUID], description: str) -> None:
        self.catch_up_decay(trait)
        await trait_repo.add_evidence(self.s, trait.id, evidence, "contradicting", None, self.cycle_id)
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
            await repo.set_embeddings(self.s, embedder_id, [trait.id], [vector])
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
        if any(t.trait_stage == "trend" or (t.trait_confidence or 0) < gate for t in sources):
            return f"every source needs confidence ≥ {gate}"
        source_ids = {t.id for t in sources}
        if await self.dismissed(new_content):
            return "refused: the user dismissed this trait"
        target = await self.find_existing(new_content)
        if target is not None:
            if target.id in source_ids or source_ids & await trait_repo.ancestors(self.s, target.id):
                return "refused: the upgrade would make a cycle of parents"
            await self.reinforce(target, [], "B")
        else:
            start = min(1.0, max(t.trait_confidence or 0 for t in sources) + 0.1)
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
        await trait_repo.inherit_evidence(self.s, target.id, list(source_ids), self.cycle_id)
        for source in sources:
            await self._history(source, "upgrade", f"upgraded into {new_subtype} {target.id}: {reasoning}"[:500])
            self.stats.updated.add(source.id)
        return None
