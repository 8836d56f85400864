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
from engrain.reading.duplicates import same_pattern
from engrain.reading.enrich import DEFAULT_IMPORTANCE, content_hash
from engrain.reading.metadata import MemoryMetadata
from engrain.rules.traits import (
    ACTIVE_STAGES,
    BEHAVIOR_CONFIDENCE,
    DISSOLVE_BELOW,
    QUALITY_FACTOR,
    TREND_CONFIDENCE,
    TREND_GRACE_DAYS,
    UPGRADE_STEP,
    UPGRADES,
    Spread,
    Stage,
    Subtype,
    clamp,
    context_of,
    contradicted,
    decayed,
    gated_stage,
    next_gate,
    reinforced,
    stage_cap,
    stage_for,
    trend_window_days,
)
from engrain.storage import memories as repo
from engrain.storage import timeline
from engrain.storage import traits as trait_repo
from engrain.storage.models import Memory


@dataclass
class Stats:
    created: list[uuid.UUID] = field(default_factory=list[uuid.UUID])
    updated: set[uuid.UUID] = field(default_factory=set[uuid.UUID])
    dissolved: set[uuid.UUID] = field(default_factory=set[uuid.UUID])
    blocked: list[str] = field(default_factory=list[str])  # dismissed texts the model proposed again


def _held(stage: str | None, confidence: float, spread: Spread, subtype: str) -> str:
    """Why a trait is at `stage` below what its confidence maps to ('' when it is not held)."""
    if stage in (Stage.DISSOLVED, stage_for(confidence)):
        return ""
    cap = stage_cap(spread.occasions, spread.span_days, subtype)
    return f"; held at {stage}: {spread.describe()}, and {next_gate(cap, subtype)}"


class TraitWriter:
    """Applies lifecycle operations for one user inside one transaction.

    Two clocks: `now` (the server's) stamps what engrain did and when (history, updated_at); the
    lifecycle itself — decay, trend windows, when a trait was observed — runs on `user_now`, the
    user's clock (storage/timeline.py), and on the told times of the evidence."""

    def __init__(
        self,
        session: AsyncSession,
        user_id: str,
        now: datetime,
        user_now: datetime,
        cycle_id: uuid.UUID | None,
        embed: dict[str, tuple[str, int, list[float]]],
    ) -> None:
        self.s = session
        self.user_id = user_id
        self.now = now
        self.user_now = user_now
        self.cycle_id = cycle_id
        self.embed = embed  # content -> (embedder id, dim, vector), computed before the transaction
        self.stats = Stats()
        self._traits: dict[uuid.UUID, Memory] | None = None

    async def _read(self) -> dict[uuid.UUID, Memory]:
        """The user's traits as read once per transaction: the writer is the only one to create or dissolve a
        trait in it, and adds what it creates."""
        if self._traits is None:
            self._traits = {t.id: t for t in await trait_repo.active_traits(self.s, self.user_id)}
        return self._traits

    async def traits(self) -> dict[uuid.UUID, Memory]:
        """The user's live traits by id, as they stand now in this transaction."""
        return {
            i: t for i, t in (await self._read()).items() if t.valid_until is None and t.trait_stage in ACTIVE_STAGES
        }

    @classmethod
    async def open(
        cls,
        session: AsyncSession,
        user_id: str,
        now: datetime,
        cycle_id: uuid.UUID | None,
        embed: dict[str, tuple[str, int, list[float]]],
    ) -> TraitWriter:
        """A writer on the user's clock as it reads in `session`."""
        return cls(session, user_id, now, await timeline.user_now(session, user_id, now), cycle_id, embed)

    async def _told(self, evidence: list[uuid.UUID]) -> tuple[datetime, datetime] | None:
        """When the evidence was told (earliest, latest); the user's clock is at least the latest."""
        told = await trait_repo.told_range(self.s, self.user_id, evidence)
        if told is not None:
            self.user_now = max(self.user_now, told[1])
        return told

    async def spread(self, trait: Memory) -> Spread:
        return (await trait_repo.spreads(self.s, self.user_id, [trait.id])).get(trait.id, Spread(0, None, None))

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
            user_at=self.user_now,
        )

    async def set_confidence(self, trait: Memory, c: float, why: str) -> None:
        """New confidence; the stage follows it, held to what the evidence's spread over the user's time
        allows (rules.traits.gated_stage). Trends keep their stage until promoted."""
        old_c, old_stage = trait.trait_confidence or 0.0, trait.trait_stage
        confidence = clamp(c)
        trait.trait_confidence = confidence
        trait.updated_at = self.now
        spread = await self.spread(trait) if old_stage != Stage.TREND else None
        if spread is not None:
            trait.trait_stage = gated_stage(confidence, spread, trait.trait_subtype or Subtype.BEHAVIOR)
        held = _held(trait.trait_stage, confidence, spread, trait.trait_subtype or "") if spread is not None else ""
        await self._history(trait, "update", f"{why}: confidence {old_c:.3f} → {confidence:.3f}{held}")
        if spread is not None and trait.trait_stage != old_stage:
            if trait.trait_stage == Stage.DISSOLVED:
                await self.dissolve(trait, f"confidence fell below {DISSOLVE_BELOW}", already_staged=True)
            else:
                await self._history(trait, "stage", f"{old_stage} → {trait.trait_stage} ({spread.describe()})")
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
        """An active trait with the same text, one close enough in meaning (the contract's cosine), or one
        naming the same pattern in other words (`same_pattern`: a model rewords what it reports again; a twin
        would split the evidence — issue 42)."""
        digest = content_hash(content)
        active = list((await self.traits()).values())
        for trait in active:
            if trait.content_hash == digest:
                return trait
        if content in self.embed:
            embedder_id, dim, vector = self.embed[content]
            near = await repo.nearest_live(self.s, self.user_id, "default", "trait", embedder_id, dim, vector, self.now)
            if near is not None and near.similarity >= NEAR_DUPLICATE:
                return await repo.get(self.s, self.user_id, near.id)
        return next((trait for trait in active if same_pattern(content, trait.content)), None)

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
        told: tuple[datetime, datetime] | None,
        note: str = "",
    ) -> Memory:
        """A new trait, observed when its evidence was told (`told`: earliest, latest; None: the user's now)."""
        first, last = told if told is not None else (self.user_now, self.user_now)
        embedder_id, _, vector = self.embed.get(content, (None, 0, None))
        trait = Memory(
            id=uuid.uuid4(),
            user_id=self.user_id,
            namespace="default",
            kind="trait",
            content=content,
            content_hash=content_hash(content),
            importance=DEFAULT_IMPORTANCE,
            category="trait",
            tags=[],
            temporality="current",
            created_at=self.now,
            told_at=last,
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
            trait_first_observed=first,
            trait_last_reinforced=last,
        )
        await repo.insert(self.s, trait, repo.Vector(embedder_id, vector) if embedder_id and vector else None)
        (await self._read())[trait.id] = trait
        await self._history(
            trait, "create", f"new {subtype} ({stage}, confidence {trait.trait_confidence:.2f}){note}", new=content
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
        told = await self._told(evidence)  # moves the user's clock up to the evidence
        trait = await self._insert(
            content,
            subtype=Subtype.BEHAVIOR,
            stage=Stage.TREND,
            confidence=TREND_CONFIDENCE,
            context=context_of(context),
            # The window runs on the user's time from the day the trend is made (the user's clock, at or after its
            # evidence), as the task says: a trend found in evidence told 35 days before, with a window of 30, had
            # closed before it was made and dissolved in the cycle that made it (issue 61).
            window_end=self.user_now + timedelta(days=days),
            reinforcements=1,
            told=told,
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
            told=await self._told(evidence),
        )
        await trait_repo.add_evidence(self.s, self.user_id, trait.id, evidence, "supporting", "C", self.cycle_id)

    def catch_up_decay(self, trait: Memory) -> None:
        """Bring a trait's confidence up to the user's clock before evidence changes it, so the time since
        its last reinforcement still counts (the cycle's decay pass would otherwise start from now)."""
        if trait.trait_stage in (Stage.TREND, Stage.DISSOLVED) or trait.trait_confidence is None:
            return
        last = trait.trait_last_reinforced or trait.created_at
        meta = MemoryMetadata.of(trait.metadata_)
        decayed_at = meta.last_decay_at
        if decayed_at:
            last = max(last, datetime.fromisoformat(decayed_at))
        days = (self.user_now - last).total_seconds() / 86400
        trait.trait_confidence = decayed(
            trait.trait_confidence, trait.trait_subtype or Subtype.BEHAVIOR, trait.trait_reinforcement_count or 0, days
        )
        trait.metadata_ = meta.with_marks(last_decay_at=max(last, self.user_now).isoformat())

    async def reinforce(self, trait: Memory, evidence: list[uuid.UUID], grade: str) -> None:
        told = await self._told(evidence)
        self.catch_up_decay(trait)
        grade = grade if grade in QUALITY_FACTOR else "D"
        await trait_repo.add_evidence(self.s, self.user_id, trait.id, evidence, "supporting", grade, self.cycle_id)
        window = trait.trait_window_end
        grace = timedelta(days=TREND_GRACE_DAYS)
        if trait.trait_stage == Stage.TREND and told is not None and window is not None and told[0] > window + grace:
            # A trend lives inside its window on the user's time, and a grace after it while no reflection
            # looked past it: evidence told later still is kept, but does not count (the expiry pass dissolves it).
            await self._history(
                trait, "update", f"evidence told {told[0].date()}, after its window closed {window.date()}: not counted"
            )
            self.stats.updated.add(trait.id)
            return
        trait.trait_reinforcement_count = (trait.trait_reinforcement_count or 0) + max(1, len(evidence))
        latest = told[1] if told is not None else self.user_now
        if trait.trait_stage == Stage.TREND and window is not None:
            # The window follows the evidence: a pattern seen again is given its time again from then.
            trait.trait_window_end = max(window, latest + timedelta(days=trend_window_days(trait.content, None)))
        # Spaced evidence counts more (rules/traits.reinforced): the told time since the last reinforcement.
        gap = (latest - (trait.trait_last_reinforced or latest)).total_seconds() / 86400
        trait.trait_last_reinforced = max(trait.trait_last_reinforced or latest, latest)
        confidence = reinforced(trait.trait_confidence or 0.0, grade, gap)
        await self.set_confidence(trait, confidence, f"reinforced ({grade}{', spaced' if gap >= 1 else ''})")

    async def contradict(self, trait: Memory, evidence: list[uuid.UUID], description: str) -> None:
        await self._told(evidence)
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
        if target is not None and (
            target.id in source_ids or source_ids & await trait_repo.ancestors(self.s, self.user_id, target.id)
        ):
            return "refused: the upgrade would make a cycle of parents"
        if target is None:
            target = await self._upgraded(sources, new_content, new_subtype)
        else:
            # The sources' evidence becomes the target's before it counts, so its stage sees that evidence.
            await trait_repo.inherit_evidence(self.s, self.user_id, target.id, list(source_ids), self.cycle_id)
            await self.reinforce(target, [], "B")
            await trait_repo.set_parent(self.s, self.user_id, list(source_ids), target.id, self.now)
        for source in sources:
            await self._history(source, "upgrade", f"upgraded into {new_subtype} {target.id}: {reasoning}"[:500])
            self.stats.updated.add(source.id)
        return None

    async def _upgraded(self, sources: list[Memory], content: str, subtype: str) -> Memory:
        """The new trait an upgrade makes: a step above its strongest source, with their evidence, its
        stage held to how that evidence lies on the user's time (one day of evidence is never core)."""
        source_ids = [t.id for t in sources]
        spread = await trait_repo.joint_spread(self.s, self.user_id, source_ids)
        start = min(1.0, max(t.trait_confidence or 0 for t in sources) + UPGRADE_STEP)
        contexts = {t.trait_context for t in sources}
        stage = gated_stage(start, spread, subtype)
        held = _held(stage, start, spread, subtype)
        target = await self._insert(
            content,
            subtype=subtype,
            stage=stage,
            confidence=start,
            context=contexts.pop() if len(contexts) == 1 else "general",
            window_end=None,
            reinforcements=sum(t.trait_reinforcement_count or 0 for t in sources),
            # Observed since its first evidence; its confidence is the sources' as caught up to the user's now.
            told=(spread.first or self.user_now, self.user_now),
            note=held,
        )
        await trait_repo.inherit_evidence(self.s, self.user_id, target.id, source_ids, self.cycle_id)
        await trait_repo.set_parent(self.s, self.user_id, source_ids, target.id, self.now)
        return target
