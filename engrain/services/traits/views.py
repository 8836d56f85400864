"""Reading traits back: get_user_traits, and one trait with its evidence ("why do you think that?")."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from engrain.errors import InvalidInput, NotFound
from engrain.reading import inputs
from engrain.rules.traits import ACTIVE_STAGES, SUBTYPES, Spread, Stage, time_gate
from engrain.services.memories.results import HistoryEntry
from engrain.services.traits.results import EvidenceView, TraitChild, TraitDetail, TraitList, TraitView
from engrain.services.wording import short_ids as ids
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime


def stages_from(min_stage: str) -> tuple[str, ...]:
    """`min_stage` and every stronger active stage."""
    if min_stage not in ACTIVE_STAGES:
        raise InvalidInput("min_stage", f"{min_stage[:40]!r} is not one of {', '.join(ACTIVE_STAGES)}")
    return ACTIVE_STAGES[ACTIVE_STAGES.index(Stage(min_stage)) :]


class TraitViews:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def list(
        self,
        user_id: str,
        *,
        min_stage: str = Stage.EMERGING,
        subtype: str | None = None,
        context: str | None = None,
        limit: int | None = None,
        include_evidence: bool = False,
        as_of: str | None = None,
    ) -> TraitList:
        stages = stages_from(min_stage)
        if subtype is not None and subtype not in SUBTYPES:
            raise InvalidInput("subtype", f"{subtype[:40]!r} is not one of {', '.join(SUBTYPES)}")
        if limit is not None:
            limit = inputs.int_range("limit", limit, 1, inputs.MAX_LIMIT)
        if as_of is not None:
            now = self.rt.clock()
            return await self._as_of(
                user_id,
                inputs.when("as_of", as_of, now, self.rt.settings.tz),
                stages,
                min_stage,
                subtype,
                context,
                limit,
                include_evidence,
            )
        db = await self.rt.database()
        async with db.sessions() as s:
            rows = await trait_repo.active_traits(s, user_id, stages=stages, subtype=subtype, context=context)
            shown = rows[:limit] if limit else rows
            ev = await trait_repo.evidence(s, user_id, [t.id for t in shown]) if include_evidence else None
        return TraitList(traits=[TraitView.of(t, ev) for t in shown], min_stage=min_stage, total=len(rows))

    async def _as_of(
        self,
        user_id: str,
        at: datetime,
        stages: tuple[str, ...],
        min_stage: str,
        subtype: str | None,
        context: str | None,
        limit: int | None,
        include_evidence: bool,
    ) -> TraitList:
        """Stages, confidence and wording as they were at `at` on the user's timeline (from history); evidence
        told by then."""
        db = await self.rt.database()
        async with db.sessions() as s:
            rows = await trait_repo.traits_as_of(s, user_id, at, stages=stages, subtype=subtype, context=context)
            shown = rows[:limit] if limit else rows
            ev = await trait_repo.evidence(s, user_id, [t.id for t, *_ in shown]) if include_evidence else None
        if ev is not None:  # what the user had told by then, on their timeline
            ev = [e for e in ev if e.told_at <= at]
        views = [
            TraitView.of(t, ev).model_copy(
                update={
                    "stage": stage,
                    "content": content,
                    "confidence": round(confidence, 6) if confidence is not None else None,
                }
            )
            for t, stage, confidence, content in shown
        ]
        return TraitList(traits=views, min_stage=min_stage, total=len(rows), as_of=at)

    async def detail(self, user_id: str, trait_id: str) -> TraitDetail:
        """A trait with the memories for and against it, its history, parent and children."""
        db = await self.rt.database()
        async with db.sessions() as s:
            tid = await ids.resolve(s, user_id, "trait_id", trait_id)
            t = await repo.get(s, user_id, tid)
            if t is None or t.kind != "trait":
                raise NotFound("trait_id", tid)
            ev = await trait_repo.evidence(s, user_id, [tid])
            hist = await repo.history(s, user_id, tid)
            kids = await trait_repo.children(s, user_id, tid)
            spread = (await trait_repo.spreads(s, user_id, [tid])).get(tid, Spread(0, None, None))

        return TraitDetail(
            **TraitView.of(t).model_dump(exclude={"supporting_ids", "contradicting_ids"}),
            supporting=[EvidenceView.of(e) for e in ev if e.polarity == "supporting"],
            contradicting=[EvidenceView.of(e) for e in ev if e.polarity == "contradicting"],
            children=[TraitChild(id=str(k.id), content=k.content, subtype=k.trait_subtype) for k in kids],
            history=[HistoryEntry.of(h) for h in hist],
            spread=time_gate(spread, t.trait_subtype or ""),
        )
