"""Reflection cycles (docs/SPEC.md §7): when to reflect, what to ask the model, how to apply its answer.

A cycle is split into read-only preparation, prompts, and one applying transaction, so
that the same code serves a direct provider (which is simply awaited) and MCP sampling
(where the client's model is asked by resolvers before the tool body runs, and the body
then finds each answer by its prompt).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import EngrainError
from engrain.providers.llm import Ask, Prompt
from engrain.rules.traits import Stage, needs_review
from engrain.services import lifecycle
from engrain.services import reflection_prompts as prompts
from engrain.services.answers import MainAnswer, QuestionsAnswer, ReviewAnswer, parse
from engrain.services.duplicates import PARAPHRASE_THRESHOLD
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo
from engrain.storage.models import Memory

if TYPE_CHECKING:
    from engrain.services.recall import RecallService
    from engrain.services.runtime import Runtime

log = logging.getLogger(__name__)

MAX_MEMORIES, MAX_TRAITS = 200, 50
IMPORTANCE_TRIGGER = 30
SCHEDULED_AFTER = timedelta(hours=24)
IDEMPOTENCY_WINDOW = timedelta(seconds=60)
QUESTIONS, EVIDENCE_PER_QUESTION, MAX_EVIDENCE = 5, 3, 10
MAX_TRAIT_CHARS = 500

Progress = Callable[[float, str], Awaitable[None]]
HandOut = Callable[["Plan"], Awaitable["ReflectResult"]]
Finish = Callable[[AsyncSession, "ReflectResult", lifecycle.TraitWriter], Awaitable[None]]


class ReflectResult(BaseModel):
    triggered: bool
    trigger_type: str | None = None
    reason: str | None = None
    memories_scanned: int = 0
    traits_created: int = 0
    traits_updated: int = 0
    traits_dissolved: int = 0
    links_created: int = 0
    cycle_id: str | None = None
    status: str | None = None
    error: str | None = None
    llm: str = "none"
    llm_calls: int = 0
    user_confirmation: str | None = Field(
        default=None, description="What the user said (elicitation) about a trait about to become core, if asked."
    )
    memories_pending: int = Field(
        default=0, description="New memories no model has looked at yet: the next reflection with a model sees them."
    )
    task_id: str | None = Field(
        default=None, description="status needs_model: the task to answer with reflect(task_id, answer)."
    )
    task: str | None = Field(default=None, description="status needs_model: what the calling model is asked to do.")


@dataclass
class Trigger:
    triggered: bool
    type: str | None
    value: float | None
    reason: str | None = None
    pending: int = 0  # new memories since the watermark


@dataclass
class Plan:
    """What one cycle looks at. Aliases (m1, t1, e1) are what the model sees and cites."""

    user_id: str
    now: datetime
    trigger: Trigger
    memories: list[tuple[str, Memory]]
    traits: list[tuple[str, Memory]]
    evidence: list[tuple[str, Memory]] = field(default_factory=list)
    # The watermark the plan was read at: a plan made earlier (a sampling request's resolvers) is used
    # only if no other reflection moved it since.
    since: datetime | None = None
    # Where the watermark goes once a model has looked at `memories`: when they were read (a host task
    # is answered later, and what arrived meanwhile stays pending).
    mark: datetime | None = None

    def memory_ref(self, ref: Any) -> uuid.UUID | None:
        """A cited memory id, if the model was shown it (anything else is hallucinated or foreign)."""
        return _resolve(ref, [*self.memories, *self.evidence])

    def trait_ref(self, ref: Any) -> uuid.UUID | None:
        return _resolve(ref, self.traits)

    def memory_refs(self, refs: Any) -> list[uuid.UUID]:
        found = [self.memory_ref(r) for r in refs] if isinstance(refs, list) else []
        return list(dict.fromkeys(r for r in found if r is not None))

    @property
    def two_stage(self) -> bool:
        return self.trigger.type == "importance_accumulated"


def _resolve(ref: Any, shown: list[tuple[str, Memory]]) -> uuid.UUID | None:
    if not isinstance(ref, str):
        return None
    ref = ref.strip().strip("[]")
    for alias, m in shown:
        if ref == alias or ref == str(m.id):
            return m.id
    return None


def lock_name(user_id: str) -> str:
    """The name of a user's reflection lock (see Database.try_advisory_lock)."""
    return f"engrain:reflect:{user_id}"


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
    out = []
    for alias, t in plan.traits:
        if t.id in added_c and needs_review(
            (t.trait_reinforcement_count or 0) + added_r.get(t.id, 0),
            (t.trait_contradiction_count or 0) + len(added_c[t.id]),
        ):
            out.append((alias, t, added_c[t.id]))
    return out


class ReflectionService:
    def __init__(self, runtime: Runtime, recall: RecallService) -> None:
        self.rt = runtime
        self.recall = recall

    # ---- when ------------------------------------------------------------------------------

    async def should_reflect(self, user_id: str) -> Trigger:
        now = self.rt.clock()
        db = await self.rt.database()
        async with db.sessions() as s:
            mark = await trait_repo.watermark(s, user_id)
            count, importance = await trait_repo.importance_since(s, user_id, mark)
        return self._classify(mark, count, importance, now)

    @staticmethod
    def _classify(mark: datetime | None, count: int, importance: int, now: datetime) -> Trigger:
        trigger = ReflectionService._decide(mark, count, importance, now)
        trigger.pending = count
        return trigger

    @staticmethod
    def _decide(mark: datetime | None, count: int, importance: int, now: datetime) -> Trigger:
        if mark is not None and now - mark < IDEMPOTENCY_WINDOW:
            return Trigger(False, None, None, "reflected less than 60 s ago")
        if count == 0:
            return Trigger(False, None, None, "no new memories since the last reflection")
        if mark is None:
            return Trigger(True, "first_time", None)
        if importance >= IMPORTANCE_TRIGGER:
            return Trigger(True, "importance_accumulated", float(importance))
        if now - mark >= SCHEDULED_AFTER:
            return Trigger(True, "scheduled", (now - mark).total_seconds() / 3600)
        return Trigger(
            False,
            None,
            float(importance),
            f"importance {importance} < {IMPORTANCE_TRIGGER} and last reflection < 24 h ago",
        )

    # ---- preparation (read-only) -------------------------------------------------------------

    async def prepare(self, user_id: str, force: bool) -> Plan | ReflectResult:
        now = self.rt.clock()
        db = await self.rt.database()
        async with db.sessions() as s:
            mark = await trait_repo.watermark(s, user_id)
            count, importance = await trait_repo.importance_since(s, user_id, mark)
            trigger = self._classify(mark, count, importance, now)
            if not trigger.triggered and not force:
                return ReflectResult(triggered=False, reason=trigger.reason)
            if not trigger.triggered:  # forced: name the trigger the checks would otherwise have given
                kind = (
                    "first_time"
                    if mark is None
                    else ("importance_accumulated" if importance >= IMPORTANCE_TRIGGER else "manual")
                )
                trigger = Trigger(True, kind, float(importance))
            memories = await trait_repo.new_memories(s, user_id, mark, now, MAX_MEMORIES)
            traits = await trait_repo.active_traits(s, user_id, limit=MAX_TRAITS)
        return Plan(
            user_id,
            now,
            trigger,
            [(f"m{i}", m) for i, m in enumerate(memories, 1)],
            [(f"t{i}", t) for i, t in enumerate(traits, 1)],
            since=mark,
        )

    def first_prompt(self, plan: Plan) -> Prompt | None:
        if not plan.memories:
            return None
        mems, trts = prompts.memory_lines(plan.memories), prompts.trait_lines(plan.traits)
        return prompts.questions_prompt(mems, trts) if plan.two_stage else prompts.main_prompt(mems, trts, None)

    async def second_prompt(self, plan: Plan, first_answer: QuestionsAnswer) -> Prompt | None:
        """Two-stage only: retrieve evidence for the model's questions, then the main prompt."""
        if not plan.two_stage:
            return None
        questions = first_answer.questions
        seen = {m.id for _, m in plan.memories}
        found: list[Memory] = []
        db = await self.rt.database()
        for question in questions[:QUESTIONS]:
            result = await self.recall.recall(
                plan.user_id,
                question[:500] or "?",
                limit=EVIDENCE_PER_QUESTION,
                kinds=["fact", "episodic", "procedural"],
                include_links=False,
                track_access=False,
            )
            ids = [uuid.UUID(h.id) for h in result.results if uuid.UUID(h.id) not in seen]
            seen.update(ids)
            async with db.sessions() as s:
                found += sorted(await repo.get_many(s, plan.user_id, ids), key=lambda m: ids.index(m.id))
        plan.evidence = [(f"e{i}", m) for i, m in enumerate(found[:MAX_EVIDENCE], 1)]
        return prompts.main_prompt(
            prompts.memory_lines(plan.memories), prompts.trait_lines(plan.traits), prompts.memory_lines(plan.evidence)
        )

    async def review_prompt(self, plan: Plan, main: MainAnswer) -> Prompt | None:
        cases = review_candidates(plan, main)
        return prompts.review_prompt(await self.review_blocks(plan, cases)) if cases else None

    async def review_blocks(self, plan: Plan, cases: list[tuple[str, Memory, list[uuid.UUID]]]) -> str:
        """Each contradicted trait with its supporting and contradicting evidence, for the review."""
        db = await self.rt.database()
        async with db.sessions() as s:
            rows = await trait_repo.evidence(s, [t.id for _, t, _ in cases])
        blocks = []
        shown = {m.id: m for _, m in [*plan.memories, *plan.evidence]}
        for alias, t, new in cases:
            support = [r["content"] for r in rows if r["trait_id"] == t.id and r["polarity"] == "supporting"]
            against = [r["content"] for r in rows if r["trait_id"] == t.id and r["polarity"] == "contradicting"]
            against += [shown[m].content for m in new if m in shown]
            blocks.append(
                f"[{alias}] {t.content}\n  supporting: "
                + " | ".join(support or ["(none)"])
                + "\n  contradicting: "
                + " | ".join(against or ["(none)"])
            )
        return "\n".join(blocks)

    # ---- the cycle ---------------------------------------------------------------------------

    async def reflect(
        self,
        user_id: str,
        *,
        force: bool,
        ask: Ask | None,
        llm_name: str,
        progress: Progress | None = None,
        host: HandOut | None = None,
        plan: Plan | None = None,
    ) -> ReflectResult:
        """Run one cycle. `ask` answers a prompt (None: no model here). `host`: the calling model is the
        model, so the plan goes to `host`, which runs the code-only steps and hands the model a task
        (services/host_tasks.py).
        `plan`: the one the client's model was asked about (sampling), used when still current.
        Concurrent calls for one user: the second returns at once, not triggered."""
        return await self.locked(
            user_id, lambda: self._cycle(user_id, force, ask, llm_name, progress, host, plan), llm_name
        )

    async def locked(self, user_id: str, work: Callable[[], Awaitable[ReflectResult]], llm_name: str) -> ReflectResult:
        """Run `work` holding the user's reflection lock; a concurrent call returns at once."""
        db = await self.rt.database()
        async with db.try_advisory_lock(lock_name(user_id)) as got:
            if not got:
                return ReflectResult(
                    triggered=False, reason="a reflection for this user is already running", llm=llm_name
                )
            return await work()

    async def _cycle(
        self,
        user_id: str,
        force: bool,
        ask: Ask | None,
        llm_name: str,
        progress: Progress | None,
        host: HandOut | None,
        planned: Plan | None,
    ) -> ReflectResult:
        async def step(fraction: float, message: str) -> None:
            if progress is not None:
                await progress(fraction, message)

        plan: Plan | ReflectResult | None = planned if planned is not None and planned.user_id == user_id else None
        if plan is not None:
            db = await self.rt.database()
            async with db.sessions() as s:
                if await trait_repo.watermark(s, user_id) != plan.since:  # another reflection ran meanwhile
                    plan = None
        if plan is None:
            plan = await self.prepare(user_id, force)
        if isinstance(plan, ReflectResult):
            plan.llm = llm_name
            return plan
        await step(0.1, f"scanning {len(plan.memories)} new memories ({plan.trigger.type})")
        calls = 0
        main: MainAnswer | None = None
        review: ReviewAnswer | None = None
        error: str | None = None
        first = self.first_prompt(plan)
        if ask is not None and first is not None:
            try:
                await step(0.2, "asking the model" + (" for key questions" if plan.two_stage else ""))
                calls += 1
                if plan.two_stage:
                    questions = await ask(first, lambda raw: parse(QuestionsAnswer, raw))
                    second = await self.second_prompt(plan, questions)
                    assert second is not None
                    await step(0.45, f"asking the model with {len(plan.evidence)} pieces of evidence")
                    calls += 1
                    main = await ask(second, lambda raw: parse(MainAnswer, raw))
                else:
                    main = await ask(first, lambda raw: parse(MainAnswer, raw))
                third = await self.review_prompt(plan, main)
                if third is not None:
                    await step(0.65, "asking the model to review contradicted traits")
                    calls += 1
                    review = await ask(third, lambda raw: parse(ReviewAnswer, raw))
            except (EngrainError, ValueError) as exc:
                error = f"{type(exc).__name__}: {exc}"
                main = review = None
                log.warning("reflection for %s: LLM step failed (%s); keeping code-only results", user_id, error)
        await step(0.8, "applying")
        if host is not None and plan.memories:
            result = await host(plan)
        else:
            result = await self.apply(plan, main, review, llm_name, error)
        result.llm_calls = calls
        await step(1.0, "done")
        return result

    async def _embed_contents(
        self, main: MainAnswer | None, review: ReviewAnswer | None
    ) -> dict[str, tuple[str, int, list[float]]]:
        """Vectors for every trait text the answer may create, in one batch, before the transaction."""
        contents = main.trait_texts() if main is not None else []
        if review is not None:
            contents += [d.new_content for d in review.decisions if d.new_content]
        contents = list(dict.fromkeys(c for c in contents if c))
        if not contents:
            return {}
        try:
            model, vectors = await self.rt.embeddings.embed(contents)
        except EngrainError as exc:
            log.warning("new traits stored without vectors: %s", exc)
            return {}
        db = await self.rt.database()
        await db.ensure_vector_index(model.id, model.dim)
        return {c: (model.id, model.dim, v) for c, v in zip(contents, vectors, strict=True)}

    async def apply(
        self,
        plan: Plan,
        main: MainAnswer | None,
        review: ReviewAnswer | None,
        llm_name: str,
        error: str | None,
        finish: Finish | None = None,
    ) -> ReflectResult:
        """One transaction: the code-only steps, the answer, decay, and the watermark — which moves only
        past memories a model has looked at (no model, a failed one, or a task not answered yet: they
        stay pending for the next reflection that has a model). `finish` runs last in the same
        transaction (a host task records its outcome there)."""
        vectors = await self._embed_contents(main, review)
        db = await self.rt.database()
        looked = error is None and (main is not None or not plan.memories)
        # The caller holds the user's reflection lock since `prepare` checked the triggers: nothing can
        # have moved the watermark in between.
        async with db.sessions.begin() as s:
            cycle_id = uuid.uuid4()
            await trait_repo.start_cycle(
                s, cycle_id, plan.user_id, plan.trigger.type or "manual", plan.trigger.value, plan.now
            )
            code = {}
            for step in (trait_repo.expire_trends, trait_repo.promote_trends, trait_repo.expire_prospective):
                code.update(await step(s, plan.user_id, plan.now))
            writer = lifecycle.TraitWriter(s, plan.user_id, plan.now, cycle_id, vectors)
            links = await self._apply_answer(s, writer, plan, main, review) if main is not None else 0
            decay = await trait_repo.decay_traits(s, plan.user_id, plan.now)
            created = set(writer.stats.created)
            status = "failed" if error else ("completed" if looked else "code_only")
            result = ReflectResult(
                triggered=True,
                trigger_type=plan.trigger.type,
                memories_scanned=len(plan.memories),
                traits_created=len(created),
                traits_updated=len(writer.stats.updated - created - writer.stats.dissolved) + code["promoted"],
                traits_dissolved=len(writer.stats.dissolved) + code["expired_trends"] + decay["dissolved"],
                links_created=links,
                cycle_id=str(cycle_id),
                status=status,
                error=error,
                llm=llm_name,
            )
            stats = result.model_dump(
                include={
                    "memories_scanned",
                    "traits_created",
                    "traits_updated",
                    "traits_dissolved",
                    "links_created",
                    "llm",
                }
            )
            stats |= {"expired_intentions": code["expired_intentions"], "decayed": decay["decayed"]}
            await trait_repo.finish_cycle(s, cycle_id, status, stats, error, plan.now)
            if looked:
                await trait_repo.set_watermark(s, plan.user_id, plan.mark or plan.now)
            result.memories_pending = (
                await trait_repo.importance_since(s, plan.user_id, await trait_repo.watermark(s, plan.user_id))
            )[0]
            if finish is not None:
                await finish(s, result, writer)
        return result

    async def apply_review(
        self, plan: Plan, review: ReviewAnswer, reviewable: set[uuid.UUID], llm_name: str, finish: Finish | None = None
    ) -> ReflectResult:
        """Apply a contradiction review that came after its cycle (a host task): only the decisions, on
        the traits that were sent for review, in a cycle of its own."""
        vectors = await self._embed_contents(None, review)
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            cycle_id = uuid.uuid4()
            await trait_repo.start_cycle(s, cycle_id, plan.user_id, "review", None, plan.now)
            writer = lifecycle.TraitWriter(s, plan.user_id, plan.now, cycle_id, vectors)
            current = {t.id: t for t in await trait_repo.active_traits(s, plan.user_id)}
            await self._apply_review(
                writer, review, reviewable, lambda ref: current.get(tid) if (tid := plan.trait_ref(ref)) else None
            )
            result = ReflectResult(
                triggered=True,
                trigger_type="review",
                traits_updated=len(writer.stats.updated),
                traits_dissolved=len(writer.stats.dissolved),
                cycle_id=str(cycle_id),
                status="completed",
                llm=llm_name,
            )
            await trait_repo.finish_cycle(
                s,
                cycle_id,
                "completed",
                result.model_dump(include={"traits_updated", "traits_dissolved", "llm"}),
                None,
                plan.now,
            )
            if finish is not None:
                await finish(s, result, writer)
        return result

    @staticmethod
    async def _apply_review(
        writer: lifecycle.TraitWriter,
        review: ReviewAnswer | None,
        reviewable: set[uuid.UUID],
        trait: Callable[[Any], Memory | None],
    ) -> None:
        """The review's decisions, for traits that were sent for review and are still active."""
        for decision in review.decisions if review is not None else []:
            t = trait(decision.trait_id)
            if t is None or t.id not in reviewable or t.trait_stage == Stage.DISSOLVED:
                continue
            if decision.action == "dissolve":
                await writer.dissolve(t, "dissolved by the contradiction review")
            elif decision.new_content:
                await writer.modify(t, decision.new_content)

    async def _apply_answer(
        self, s: AsyncSession, writer: lifecycle.TraitWriter, plan: Plan, main: MainAnswer, review: ReviewAnswer | None
    ) -> int:
        """Apply the model's answer, in this order: new traits, evidence for and against existing ones,
        the contradiction review, upgrades, then the memories' updates and links. Anything citing ids
        the model was not shown is ignored. Returns the number of links added."""
        current = {t.id: t for t in await trait_repo.active_traits(s, plan.user_id)}

        def trait(ref: Any) -> Memory | None:
            tid = plan.trait_ref(ref)
            found = current.get(tid) if tid else None
            return found if found is not None and found.trait_stage != Stage.DISSOLVED else None

        await _apply_new_traits(writer, plan, main)
        await _apply_evidence(writer, plan, main, trait)
        await self._apply_review(writer, review, {t.id for _, t, _ in review_candidates(plan, main)}, trait)
        await _apply_upgrades(writer, main, trait)
        return await _apply_memory_changes(s, plan, main)


async def _apply_new_traits(writer: lifecycle.TraitWriter, plan: Plan, main: MainAnswer) -> None:
    for trend in main.new_trends:
        if ev := plan.memory_refs(trend.evidence_ids):
            await writer.create_trend(trend.content, ev, trend.window_days, trend.context)
    for behavior in main.new_behaviors:
        if ev := plan.memory_refs(behavior.evidence_ids):
            await writer.create_behavior(behavior.content, ev, behavior.confidence, behavior.context)


async def _apply_evidence(
    writer: lifecycle.TraitWriter, plan: Plan, main: MainAnswer, trait: Callable[[Any], Memory | None]
) -> None:
    for r in main.reinforcements:
        if (t := trait(r.trait_id)) is not None and (ev := plan.memory_refs(r.new_evidence_ids)):
            await writer.reinforce(t, ev, r.quality_grade)
    for c in main.contradictions:
        if (t := trait(c.trait_id)) is not None and (ev := plan.memory_refs(c.contradicting_evidence_ids)):
            await writer.contradict(t, ev, c.description)


async def _apply_upgrades(
    writer: lifecycle.TraitWriter, main: MainAnswer, trait: Callable[[Any], Memory | None]
) -> None:
    for upgrade in main.upgrades:
        sources = [t for r in upgrade.from_trait_ids if (t := trait(r)) is not None]
        if sources and len(sources) == len(upgrade.from_trait_ids):
            refused = await writer.upgrade(sources, upgrade.new_content, upgrade.new_subtype, upgrade.reasoning)
            if refused:
                log.debug("an upgrade of %d traits was refused: %s", len(sources), refused)


async def _apply_memory_changes(s: AsyncSession, plan: Plan, main: MainAnswer) -> int:
    """Updates supersede the old memory; links are added both ways. Returns the links added."""
    for u in main.updates:
        old, new = plan.memory_ref(u.old_id), plan.memory_ref(u.new_id)
        if old and new and old != new:
            await repo.supersede(s, plan.user_id, old, new, plan.now, PARAPHRASE_THRESHOLD)
    links = 0
    for link in main.links:
        a, b = plan.memory_ref(link.source_id), plan.memory_ref(link.target_id)
        if a and b and a != b:
            links += await repo.add_link_pair(
                s, plan.user_id, a, b, " ".join(link.relation.split()) or "related", "reflection"
            )
    return links
