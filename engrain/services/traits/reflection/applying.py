"""Applying a reflection: the code-only steps (plans whose date passed, trend promotion and expiry), the model's
answer (new traits, evidence for and against, the contradiction review, upgrades, memory updates and links, topic
digests), decay, and the watermark, in the caller's transaction — which may also open the next host task or close the
one answered (services/traits/host_tasks.py), all or nothing. What needs no transaction (the answer's secrets
taken out, its new texts embedded) is done before, by `ready`."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import EngrainError
from engrain.rules.traits import Stage
from engrain.services.memories import replacing
from engrain.services.traits import digests, upkeep
from engrain.services.traits.answers import MainAnswer, ReviewAnswer, without_secrets
from engrain.services.traits.reflection.planning import Plan, review_candidates
from engrain.services.traits.results import Reflected
from engrain.services.traits.trait_writer import Stats, TraitWriter
from engrain.storage import cycles as cycle_repo
from engrain.storage import links as link_repo
from engrain.storage import traits as trait_repo
from engrain.storage.cycles import Mark
from engrain.storage.models import Memory

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReadyAnswer:
    """A model's answer ready to apply: its secrets taken out, the vectors of the trait texts it may create."""

    main: MainAnswer | None = None
    review: ReviewAnswer | None = None
    vectors: dict[str, tuple[str, int, list[float]]] = field(default_factory=dict[str, tuple[str, int, list[float]]])


NO_ANSWER = ReadyAnswer()  # the code-only steps alone


class ReflectionApplier:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def ready(self, main: MainAnswer | None, review: ReviewAnswer | None = None) -> ReadyAnswer:
        """The answer with its secrets taken out and every trait and digest text it may create embedded, in one batch:
        the work that must not hold the applying transaction open."""
        main = without_secrets(main, self.rt.settings.redact) if main is not None else None
        review = without_secrets(review, self.rt.settings.redact) if review is not None else None
        contents = [*main.trait_texts(), *main.digest_texts()] if main is not None else []
        if review is not None:
            contents += [d.new_content for d in review.decisions if d.new_content]
        contents = list(dict.fromkeys(c for c in contents if c))
        if not contents:
            return ReadyAnswer(main, review)
        try:
            model, vectors = await self.rt.embeddings.embed(contents)
        except EngrainError as exc:
            log.warning("new traits and digests stored without vectors: %s", exc)
            return ReadyAnswer(main, review)
        return ReadyAnswer(main, review, {c: (model.id, model.dim, v) for c, v in zip(contents, vectors, strict=True)})

    async def apply(
        self,
        s: AsyncSession,
        plan: Plan,
        answer: ReadyAnswer,
        llm_name: str,
        error: str | None,
        *,
        decay_now: bool = True,
    ) -> Reflected:
        """The cycle in `s`: the answer, the watermark, the code-only steps, and decay. The watermark moves only past
        memories a model has looked at (no model, a failed one, or a task not answered yet: they stay pending
        for the next reflection that has a model). The caller holds the user's reflection lock since `prepare`
        checked the triggers: nothing can have moved the watermark in between. `decay_now` False: the cycle
        that hands out a task — decay waits for the answer, to run after its reinforcements (issue 42: stages
        fell at the hand-out and rose again with the answer)."""
        main, review = answer.main, answer.review
        looked = error is None and (main is not None or not plan.memories)
        cycle_id = uuid.uuid4()
        changed, links, digested = Stats(), 0, 0
        if main is not None:
            writer = await TraitWriter.open(s, plan.user_id, plan.now, cycle_id, answer.vectors)
            links = await self._apply_answer(s, writer, plan, main, review)
            digested = await digests.write(s, plan, main.digests, answer.vectors)
            changed = writer.stats
        mark = plan.mark or Mark(plan.now)
        if looked:  # before the passes: a trend expires once a model has looked past its window
            await cycle_repo.set_watermark(s, plan.user_id, mark, plan.now)
        # After the answer, as the scheduler's expiry job runs them: a trend the answer reinforced twice is
        # promoted in this cycle, and one it did not is judged on what the model has now seen (issue 42).
        code = await upkeep.run_passes(s, plan.user_id, plan.now)
        decay = await trait_repo.decay_traits(s, plan.user_id, plan.now) if decay_now else trait_repo.NO_DECAY
        created = set(changed.created)
        status: Literal["completed", "code_only", "failed"] = (
            "failed" if error else ("completed" if looked else "code_only")
        )
        result = Reflected(
            trigger_type=plan.trigger.type,
            memories_scanned=len(plan.memories),
            traits_created=len(created),
            traits_updated=len(changed.updated - created - changed.dissolved) + code["promoted"],
            traits_dissolved=len(changed.dissolved) + code["expired_trends"] + decay["dissolved"],
            links_created=links,
            digests_written=digested,
            cycle_id=str(cycle_id),
            status=status,
            error=error,
            llm=llm_name,
        )
        counted = (
            "memories_scanned",
            "traits_created",
            "traits_updated",
            "traits_dissolved",
            "links_created",
            "digests_written",
            "llm",
        )
        stats: dict[str, Any] = {key: getattr(result, key) for key in counted}
        stats |= {"expired_intentions": code["expired_intentions"], "decayed": decay["decayed"]}
        trigger = plan.trigger.type or "manual"
        await cycle_repo.record_cycle(
            s, cycle_id, plan.user_id, trigger, plan.trigger.value, status, stats, error, plan.now
        )
        if looked:
            result.memories_pending = (await cycle_repo.importance_since(s, plan.user_id, mark))[0]
        else:  # the watermark stayed where the plan's trigger check counted what waits
            result.memories_pending = plan.trigger.pending
        return result

    async def apply_review(
        self, s: AsyncSession, plan: Plan, answer: ReadyAnswer, reviewable: set[uuid.UUID], llm_name: str
    ) -> Reflected:
        """A contradiction review that came after its cycle (a host task), in `s`: only the decisions, on the
        traits that were sent for review, in a cycle of its own."""
        review = answer.review
        assert review is not None
        cycle_id = uuid.uuid4()
        writer = await TraitWriter.open(s, plan.user_id, plan.now, cycle_id, answer.vectors)
        current = await writer.traits()
        await self._apply_review(
            writer, review, reviewable, lambda ref: current.get(tid) if (tid := plan.trait_ref(ref)) else None
        )
        result = Reflected(
            trigger_type="review",
            traits_updated=len(writer.stats.updated),
            traits_dissolved=len(writer.stats.dissolved),
            cycle_id=str(cycle_id),
            status="completed",
            llm=llm_name,
        )
        stats = {"traits_updated": result.traits_updated, "traits_dissolved": result.traits_dissolved, "llm": llm_name}
        await cycle_repo.record_cycle(s, cycle_id, plan.user_id, "review", None, "completed", stats, None, plan.now)
        return result

    @staticmethod
    async def _apply_review(
        writer: TraitWriter,
        review: ReviewAnswer,
        reviewable: set[uuid.UUID],
        trait: Callable[[Any], Memory | None],
    ) -> None:
        """The review's decisions, for traits that were sent for review and are still active."""
        for decision in review.decisions:
            t = trait(decision.trait_id)
            if t is None or t.id not in reviewable or t.trait_stage == Stage.DISSOLVED:
                continue
            if decision.action == "dissolve":
                await writer.dissolve(t, "dissolved by the contradiction review")
            elif decision.new_content:
                await writer.modify(t, decision.new_content)

    async def _apply_answer(
        self, s: AsyncSession, writer: TraitWriter, plan: Plan, main: MainAnswer, review: ReviewAnswer | None
    ) -> int:
        """Apply the model's answer, in this order: new traits, evidence for and against existing ones,
        rewordings, the contradiction review, upgrades, then the memories' updates and links. Anything citing ids
        the model was not shown is ignored. Returns the number of links added."""
        current = await writer.traits()

        def trait(ref: Any) -> Memory | None:
            tid = plan.trait_ref(ref)
            found = current.get(tid) if tid else None
            return found if found is not None and found.trait_stage != Stage.DISSOLVED else None

        await _apply_new_traits(writer, plan, main)
        await _apply_evidence(writer, plan, main, trait)
        await _apply_rewords(writer, main, trait)
        if review is not None:  # asked in the same cycle (a server's model or sampling)
            await self._apply_review(writer, review, {t.id for _, t, _ in review_candidates(plan, main)}, trait)
        await _apply_upgrades(writer, main, trait)
        return await _apply_memory_changes(s, plan, main)


async def _apply_new_traits(writer: TraitWriter, plan: Plan, main: MainAnswer) -> None:
    for trend in main.new_trends:
        if ev := plan.memory_refs(trend.evidence_ids):
            await writer.create_trend(trend.content, ev, trend.window_days, trend.context)
    for behavior in main.new_behaviors:
        if ev := plan.memory_refs(behavior.evidence_ids):
            await writer.create_behavior(behavior.content, ev, behavior.confidence, behavior.context)


async def _apply_evidence(
    writer: TraitWriter, plan: Plan, main: MainAnswer, trait: Callable[[Any], Memory | None]
) -> None:
    for r in main.reinforcements:
        if (t := trait(r.trait_id)) is not None and (ev := plan.memory_refs(r.new_evidence_ids)):
            await writer.reinforce(t, ev, r.quality_grade)
    for c in main.contradictions:
        if (t := trait(c.trait_id)) is not None and (ev := plan.memory_refs(c.contradicting_evidence_ids)):
            await writer.contradict(t, ev, c.description)


async def _apply_rewords(writer: TraitWriter, main: MainAnswer, trait: Callable[[Any], Memory | None]) -> None:
    for r in main.rewords:
        if (t := trait(r.trait_id)) is not None and r.new_content != t.content:
            await writer.modify(
                t, r.new_content, f"reworded by reflection: {r.reason}"[:500] if r.reason else "reworded by reflection"
            )


async def _apply_upgrades(writer: TraitWriter, main: MainAnswer, trait: Callable[[Any], Memory | None]) -> None:
    for upgrade in main.upgrades:
        sources = [t for r in upgrade.from_trait_ids if (t := trait(r)) is not None]
        if sources and len(sources) == len(upgrade.from_trait_ids):
            refused = await writer.upgrade(sources, upgrade.new_content, upgrade.new_subtype, upgrade.reasoning)
            if refused:
                log.debug("an upgrade of %d traits was refused: %s", len(sources), refused)


async def _apply_memory_changes(s: AsyncSession, plan: Plan, main: MainAnswer) -> int:
    """Updates supersede the old memory; keys mark what a later value replaces; links are added both ways.
    Returns the links added."""
    for u in main.updates:
        old, new = plan.memory_ref(u.old_id), plan.memory_ref(u.new_id)
        if old and new and old != new:
            await replacing.replace(s, plan.user_id, old, new, plan.now, u.key)
            if u.key is not None:
                await replacing.give_key(s, plan.user_id, new, u.key)
    for k in main.keys:
        if (memory := plan.memory_ref(k.memory_id)) is not None:
            await replacing.give_key(s, plan.user_id, memory, k.key)
    links = 0
    for link in main.links:
        a, b = plan.memory_ref(link.source_id), plan.memory_ref(link.target_id)
        if a and b and a != b:
            links += await link_repo.add_link_pair(
                s, plan.user_id, a, b, " ".join(link.relation.split()) or "related", "reflection"
            )
    return links
