"""What a reflection shows the model and asks it (read-only): the plan of memories and traits with the
aliases the model cites, the prompts, the evidence a two-stage cycle retrieves, and which contradicted
traits go to the review."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.providers.llm import Prompt
from engrain.reading.metadata import MemoryMetadata
from engrain.rules.digests import SHOWN_DIGESTS
from engrain.rules.traits import needs_review
from engrain.services.recall.search import RecallRequest
from engrain.services.traits import prompts
from engrain.services.traits.answers import MainAnswer, QuestionsAnswer
from engrain.services.traits.reflection import triggers
from engrain.services.traits.reflection.triggers import Trigger
from engrain.services.traits.results import NotTriggered
from engrain.services.wording.lines import Shown, when_text
from engrain.storage import cycles as cycle_repo
from engrain.storage import digests as digest_repo
from engrain.storage import memories as repo
from engrain.storage import timeline
from engrain.storage import traits as trait_repo
from engrain.storage.cycles import Mark
from engrain.storage.models import Memory
from engrain.text.quoting import quoted

if TYPE_CHECKING:
    from engrain.services.recall.search import RecallSearch
    from engrain.services.runtime import Runtime

MAX_MEMORIES, MAX_TRAITS = 200, 50
# The characters of new memory lines one cycle shows (issue 61: with a reflection due on evidence, one task covered
# three sessions of a real chat, ~75 memories in ~19,000 characters): what does not fit waits for the next cycle.
MEMORY_CHARS = 6_000
QUESTIONS, EVIDENCE_PER_QUESTION, MAX_EVIDENCE = 5, 3, 10


@dataclass
class Plan:
    """What one cycle looks at. Aliases (m1, t1, e1, d1) are what the model sees and cites."""

    user_id: str
    now: datetime
    trigger: Trigger
    memories: list[tuple[str, Memory]]
    traits: list[tuple[str, Memory]]
    evidence: list[tuple[str, Memory]] = field(default_factory=list[tuple[str, Memory]])
    # The live memories that new ones may replace (`metadata.may_replace`): the first of the evidence.
    replaceable: list[Memory] = field(default_factory=list[Memory])
    # Which memory each new one may replace (new memory id → older memory id), read once from their metadata.
    may_replace: dict[uuid.UUID, uuid.UUID] = field(default_factory=dict[uuid.UUID, uuid.UUID])
    # The watermark the plan was read at: a plan made earlier (a sampling request's resolvers) is used
    # only if no other reflection moved it since.
    since: Mark | None = None
    # Where the watermark goes once a model has looked at `memories`: when they were read (a host task
    # is answered later, and what arrived meanwhile stays pending), or, when there were more new memories
    # than one cycle shows, just past the last one shown (the rest stay pending for the next cycle).
    mark: Mark | None = None
    # The user's live digests, newest first (d1, d2…): a rewrite names the one it replaces.
    digests: list[tuple[str, Memory]] = field(default_factory=list[tuple[str, Memory]])
    tz: tzinfo | None = None  # the user's zone, for the dates the prompts show
    user_now: datetime | None = None  # the user's clock when read: the prompts judge plans there (else `now`)

    @property
    def plans_at(self) -> datetime:
        """Where the prompts judge a plan upcoming or overdue: the user's clock, else the server's time."""
        return self.user_now or self.now

    def memory_ref(self, ref: Any) -> uuid.UUID | None:
        """A cited memory id, if the model was shown it (anything else is hallucinated or foreign)."""
        return _resolve(ref, [*self.memories, *self.evidence])

    def trait_ref(self, ref: Any) -> uuid.UUID | None:
        return _resolve(ref, self.traits)

    def digest_ref(self, ref: Any) -> Memory | None:
        """The current digest an answer rewrites, if the model was shown it."""
        found = _resolve(ref, self.digests)
        return next((d for _, d in self.digests if d.id == found), None) if found else None

    def memory_refs(self, refs: Any) -> list[uuid.UUID]:
        found = [self.memory_ref(r) for r in cast(list[Any], refs)] if isinstance(refs, list) else []
        return list(dict.fromkeys(r for r in found if r is not None))

    @property
    def two_stage(self) -> bool:
        return self.trigger.type == "importance_accumulated"


async def _replaceable(s: AsyncSession, user_id: str, targets: list[uuid.UUID], now: datetime) -> list[Memory]:
    """The live memories that new ones may replace (`metadata.may_replace`, set where the slot rules were
    unsure): shown beside them, so that the model can settle it with an update."""
    rows = await repo.get_many(s, user_id, list(dict.fromkeys(targets)))
    return [m for m in rows if m.valid_until is None or m.valid_until > now]


def memory_lines(plan: Plan) -> str:
    """The plan's new memories, each that may replace an older fact pointing at it ("may replace [e1]")."""
    alias_of = {m.id: alias for alias, m in plan.evidence}
    hints = {new: alias_of[old] for new, old in plan.may_replace.items() if old in alias_of}
    return prompts.memory_lines(plan.memories, plan.plans_at, plan.tz, hints)


def main_prompt(plan: Plan) -> Prompt:
    """The main reflection prompt: new memories, older ones shown as evidence (if any), current traits."""
    evidence = prompts.memory_lines(plan.evidence, plan.plans_at, plan.tz) if plan.evidence else None
    digests = prompts.digest_lines(plan.digests, plan.plans_at, plan.tz)
    today = plan.plans_at.astimezone(plan.tz).date().isoformat() if plan.tz else plan.plans_at.date().isoformat()
    return prompts.main_prompt(memory_lines(plan), prompts.trait_lines(plan.traits), evidence, digests, today)


def within_budget(memories: list[Memory], now: datetime, tz: tzinfo | None, budget: int = MEMORY_CHARS) -> list[Memory]:
    """The longest prefix of `memories` (stored order) whose lines fit `budget` characters, never none. A prefix in
    stored order, not the most important: the watermark is a point in that order (storage/cycles.Mark), so only a
    prefix lets it move past what was shown without passing over a memory no model saw — and the rest, whatever
    their importance, are the first of the next cycle instead of waiting behind every newer important one."""
    total = 0
    for n, m in enumerate(memories):
        total += len(prompts.memory_lines([(f"m{n + 1}", m)], now, tz)) + 1
        if total > budget and n:
            return memories[:n]
    return memories


def _may_replace(m: Memory) -> uuid.UUID | None:
    value = MemoryMetadata.of(m.metadata_).may_replace
    try:
        return uuid.UUID(value) if value is not None else None
    except ValueError:  # an imported row may hold anything there
        return None


def _resolve(ref: Any, shown: list[tuple[str, Memory]]) -> uuid.UUID | None:
    if not isinstance(ref, str):
        return None
    ref = ref.strip().strip("[]")
    for alias, m in shown:
        if ref == alias or ref == str(m.id):
            return m.id
    return None


def review_candidates(plan: Plan, main: MainAnswer) -> list[tuple[str, Memory, list[uuid.UUID]]]:
    """Traits that, once this answer's contradictions and reinforcements are applied, are contradicted
    often enough for the dedicated review (ratio > 0.3 and at least 2). Pure, so every route that asks
    the review and the applying transaction agree on it."""
    added_r: dict[uuid.UUID, int] = {}
    added_c: dict[uuid.UUID, list[uuid.UUID]] = {}
    for r in main.reinforcements:
        tid, ev = plan.trait_ref(r.trait_id), plan.memory_refs(r.new_evidence_ids)
        if tid and ev:
            added_r[tid] = added_r.get(tid, 0) + len(ev)
    for c in main.contradictions:
        tid, ev = plan.trait_ref(c.trait_id), plan.memory_refs(c.contradicting_evidence_ids)
        if tid and ev:
            added_c.setdefault(tid, []).extend(ev)
    out: list[tuple[str, Memory, list[uuid.UUID]]] = []
    for alias, t in plan.traits:
        if t.id in added_c and needs_review(
            (t.trait_reinforcement_count or 0) + added_r.get(t.id, 0),
            (t.trait_contradiction_count or 0) + len(added_c[t.id]),
        ):
            out.append((alias, t, added_c[t.id]))
    return out


class ReflectionPlanner:
    def __init__(self, runtime: Runtime, recall: RecallSearch) -> None:
        self.rt = runtime
        self.recall = recall  # evidence for a two-stage cycle's questions

    async def prepare(self, user_id: str, force: bool) -> Plan | NotTriggered:
        """What this cycle looks at, or why there is no cycle (nothing triggered and not forced)."""
        now = self.rt.clock()
        db = await self.rt.database()
        async with db.sessions() as s:
            reading = await triggers.read(s, user_id, now)
            trigger = reading.trigger
            if not trigger.triggered and not force:
                return NotTriggered(trigger.reason or "not due", pending=trigger.pending)
            if not trigger.triggered:
                trigger = reading.forced()
            memories = await cycle_repo.new_memories(s, user_id, reading.mark, now, MAX_MEMORIES + 1)
            traits = await trait_repo.active_traits(s, user_id, limit=MAX_TRAITS)
            digests = await digest_repo.live_digests(s, user_id, now, SHOWN_DIGESTS)
            clock = await timeline.user_now(s, user_id, now)
            shown = within_budget(memories[:MAX_MEMORIES], clock, self.rt.settings.tz)
            may_replace = {m.id: target for m in shown if (target := _may_replace(m)) is not None}
            replaceable = await _replaceable(s, user_id, list(may_replace.values()), now)
        mark = Mark(shown[-1].created_at, shown[-1].id) if len(shown) < len(memories) else Mark(now)
        # The model reads the most important first; which memories it is shown is decided by age above.
        shown = sorted(shown, key=lambda m: (-m.importance, -m.created_at.timestamp(), str(m.id)))
        return Plan(
            user_id,
            now,
            trigger,
            [(f"m{i}", m) for i, m in enumerate(shown, 1)],
            [(f"t{i}", t) for i, t in enumerate(traits, 1)],
            digests=[(f"d{i}", d) for i, d in enumerate(digests, 1)],
            evidence=[(f"e{i}", m) for i, m in enumerate(replaceable, 1)],
            replaceable=replaceable,
            may_replace=may_replace,
            since=reading.mark,
            mark=mark,
            tz=self.rt.settings.tz,
            user_now=clock,
        )

    async def still_current(self, plan: Plan, user_id: str) -> bool:
        """A plan made earlier (a sampling request's resolvers) serves only if it is this user's and no
        other reflection moved the watermark since."""
        if plan.user_id != user_id:
            return False
        db = await self.rt.database()
        async with db.sessions() as s:
            return await cycle_repo.watermark(s, user_id) == plan.since

    def first_prompt(self, plan: Plan) -> Prompt | None:
        if not plan.memories:
            return None
        if plan.two_stage:
            return prompts.questions_prompt(memory_lines(plan), prompts.trait_lines(plan.traits))
        return main_prompt(plan)

    async def second_prompt(self, plan: Plan, first_answer: QuestionsAnswer) -> Prompt | None:
        """Two-stage only: retrieve evidence for the model's questions, then the main prompt."""
        if not plan.two_stage:
            return None
        questions = first_answer.questions
        seen = {m.id for _, m in plan.memories} | {m.id for m in plan.replaceable}
        found: list[Memory] = []
        db = await self.rt.database()
        for question in questions[:QUESTIONS]:
            request = RecallRequest(
                question[:500] or "?",
                limit=EVIDENCE_PER_QUESTION,
                kinds=("fact", "episodic", "procedural"),
                include_links=False,
                track_access=False,
            )
            result = await self.recall.recall(plan.user_id, request)
            ids = [uuid.UUID(h.id) for h in result.results if uuid.UUID(h.id) not in seen]
            seen.update(ids)
            async with db.sessions() as s:
                found += sorted(await repo.get_many(s, plan.user_id, ids), key=lambda m: ids.index(m.id))
        # After the older facts a new memory may replace; set, not added to, so asking twice asks the same.
        plan.evidence = [(f"e{i}", m) for i, m in enumerate([*plan.replaceable, *found[:MAX_EVIDENCE]], 1)]
        return main_prompt(plan)

    async def review_prompt(self, plan: Plan, main: MainAnswer) -> Prompt | None:
        cases = review_candidates(plan, main)
        return prompts.review_prompt(await self.review_blocks(plan, cases)) if cases else None

    async def review_blocks(self, plan: Plan, cases: list[tuple[str, Memory, list[uuid.UUID]]]) -> str:
        """Each contradicted trait with its supporting and contradicting evidence, for the review."""
        db = await self.rt.database()
        async with db.sessions() as s:
            rows = await trait_repo.evidence(s, plan.user_id, [t.id for _, t, _ in cases])
        blocks: list[str] = []
        shown = {m.id: m for _, m in [*plan.memories, *plan.evidence]}
        tz = self.rt.settings.tz

        def said(content: str, told_at: datetime) -> str:
            """Evidence with the day the user said it: "I used to run" of 2019 is no case against 2026's runs."""
            when = when_text(Shown(told_at), tz)
            return f"[{when}] {quoted(content)}" if when else quoted(content)

        for alias, t, new in cases:
            mine = [r for r in rows if r.trait_id == t.id]
            support = [said(r.content, r.told_at) for r in mine if r.polarity == "supporting"]
            against = [said(r.content, r.told_at) for r in mine if r.polarity == "contradicting"]
            against += [said(shown[m].content, shown[m].told_at) for m in new if m in shown]
            blocks.append(
                f"[{alias}] {quoted(t.content)}\n  supporting: "
                + " | ".join(support or ["(none)"])
                + "\n  contradicting: "
                + " | ".join(against or ["(none)"])
            )
        return "\n".join(blocks)
