"""`Reflection`: one reflection cycle, run under the user's lock: plan, ask the model that answers in the same
call (a direct provider, or the client's through MCP sampling), apply. The host route (the calling model answers
in a later call) composes the same parts — `plan`, `lock`, `apply` — in services/traits/host_tasks.py."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engrain.errors import EngrainError
from engrain.providers.llm import Ask
from engrain.services.prompting.routes import Route
from engrain.services.traits.answers import MainAnswer, QuestionsAnswer, ReviewAnswer, parse
from engrain.services.traits.reflection import triggers
from engrain.services.traits.reflection.applying import ReflectionApplier
from engrain.services.traits.reflection.planning import Plan, ReflectionPlanner
from engrain.services.traits.reflection.triggers import Trigger
from engrain.services.traits.results import Busy, NotTriggered, Reflected

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

log = logging.getLogger(__name__)

Progress = Callable[[float, str], Awaitable[None]]


@dataclass
class Asked:
    """What the model answered in one cycle (None: not asked, or a step failed: `error`)."""

    main: MainAnswer | None = None
    review: ReviewAnswer | None = None
    error: str | None = None
    calls: int = 0


def lock_name(user_id: str) -> str:
    """The name of a user's reflection lock (see Database.try_advisory_lock)."""
    return f"engrain:reflect:{user_id}"


class Reflection:
    def __init__(self, runtime: Runtime, planner: ReflectionPlanner, applier: ReflectionApplier) -> None:
        self.rt = runtime
        self.planner = planner
        self.applier = applier

    async def should_reflect(self, user_id: str) -> Trigger:
        db = await self.rt.database()
        async with db.sessions() as s:
            return (await triggers.read(s, user_id, self.rt.clock())).trigger

    async def reflect(
        self,
        user_id: str,
        *,
        force: bool,
        route: Route,
        progress: Progress | None = None,
        plan: Plan | None = None,
    ) -> Reflected | NotTriggered | Busy:
        """Run one cycle, asking the model of `route` (services/prompting).
        `plan`: the one the client's model was asked about (sampling), used when still current.
        Concurrent calls for one user: the second returns at once, not triggered."""
        async with self.lock(user_id) as held:
            if not held:
                return Busy(route.name)
            return await self._cycle(user_id, force, route.ask, route.name, progress, plan)

    async def plan(self, user_id: str, force: bool, planned: Plan | None, llm_name: str) -> Plan | NotTriggered:
        """What a cycle would look at now (`planned`, when still current), or why there is no cycle."""
        plan = planned if planned is not None and await self.planner.still_current(planned, user_id) else None
        if plan is None:
            plan = await self.planner.prepare(user_id, force)
        if isinstance(plan, NotTriggered):
            return NotTriggered(plan.reason, llm_name, plan.pending)
        return plan

    async def apply(
        self,
        plan: Plan,
        llm_name: str,
        main: MainAnswer | None = None,
        review: ReviewAnswer | None = None,
        error: str | None = None,
    ) -> Reflected:
        """The cycle's writes in a transaction of their own (the code-only steps alone without an answer)."""
        answer = await self.applier.ready(main, review)
        async with (await self.rt.database()).sessions.begin() as s:
            return await self.applier.apply(s, plan, answer, llm_name, error)

    @asynccontextmanager
    async def lock(self, user_id: str) -> AsyncGenerator[bool]:
        """The user's reflection lock for the block, if it is free: False when another reflection holds it (the
        caller answers Busy at once; nothing waits)."""
        db = await self.rt.database()
        async with db.try_advisory_lock(lock_name(user_id)) as got:
            yield got

    async def _cycle(
        self,
        user_id: str,
        force: bool,
        ask: Ask | None,
        llm_name: str,
        progress: Progress | None,
        planned: Plan | None,
    ) -> Reflected | NotTriggered:
        async def step(fraction: float, message: str) -> None:
            if progress is not None:
                await progress(fraction, message)

        plan = await self.plan(user_id, force, planned, llm_name)
        if isinstance(plan, NotTriggered):
            return plan
        await step(0.1, f"scanning {len(plan.memories)} new memories ({plan.trigger.type})")
        asked = await self._ask(plan, ask, step) if ask is not None else Asked()
        await step(0.8, "applying")
        result = await self.apply(plan, llm_name, asked.main, asked.review, asked.error)
        result.llm_calls = asked.calls
        await step(1.0, "done")
        return result

    async def _ask(self, plan: Plan, ask: Ask, step: Progress) -> Asked:
        """Ask the model the cycle's questions in turn; a failed step keeps the code-only results."""
        asked = Asked()
        first = self.planner.first_prompt(plan)
        if first is None:
            return asked
        try:
            await step(0.2, "asking the model" + (" for key questions" if plan.two_stage else ""))
            asked.calls += 1
            if plan.two_stage:
                questions = await ask(first, lambda raw: parse(QuestionsAnswer, raw))
                second = await self.planner.second_prompt(plan, questions)
                assert second is not None
                await step(0.45, f"asking the model with {len(plan.evidence)} pieces of evidence")
                asked.calls += 1
                main = await ask(second, lambda raw: parse(MainAnswer, raw))
            else:
                main = await ask(first, lambda raw: parse(MainAnswer, raw))
            third = await self.planner.review_prompt(plan, main)
            if third is not None:
                await step(0.65, "asking the model to review contradicted traits")
                asked.calls += 1
                asked.review = await ask(third, lambda raw: parse(ReviewAnswer, raw))
            asked.main = main
        except (EngrainError, ValueError) as exc:
            asked.error = f"{type(exc).__name__}: {exc}"
            asked.main = asked.review = None
            log.warning("reflection for %s: LLM step failed (%s); keeping code-only results", plan.user_id, asked.error)
        return asked
