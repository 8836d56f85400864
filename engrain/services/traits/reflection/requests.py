"""`ReflectRequests`: one client's `reflect` call, from the resolvers that ask the client to the body
that applies what it answered.

MCP lets a server ask the client (sampling, elicitation) only while one of its requests is served, so
the SDK runs the tool's resolvers before its body. Here every step of one request sees the same plan
(the same memories under the same aliases) and the same trait asked about, whatever arrives in between:
they are kept per request, for the requests in flight. The tool names a request and hands over what the
client answered; the route (services/prompting) decides who the model is.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import anyio
from pydantic import BaseModel

from engrain.providers.llm import Prompt, extract_json
from engrain.services.traits.answers import MainAnswer, QuestionsAnswer, parse
from engrain.services.traits.results import NotTriggered, Outcome, Reflected

if TYPE_CHECKING:
    from engrain.services.prompting.routes import Route
    from engrain.services.traits.host_tasks import HostTasks
    from engrain.services.traits.reflection.cycle import Progress, Reflection
    from engrain.services.traits.reflection.due import ReflectionDue
    from engrain.services.traits.reflection.planning import Plan
    from engrain.services.traits.review import TraitReview
    from engrain.storage.models import Memory

KEPT = 64  # requests in flight whose plans are kept (a request's resolvers and its body share one)
STEPS = 3  # the sampled prompts of a cycle: questions (two-stage only), main, review


@dataclass
class _Request:
    imports_first: bool | None = None  # the imported history's turn: nothing is sampled, a piece is handed out
    planned: bool = False
    plan: Plan | None = None
    prompts: dict[int, Prompt] = field(default_factory=dict[int, Prompt])  # by step: what the client's model was asked
    asked_about: Memory | None = None  # the trait the user was asked to confirm


A = TypeVar("A", bound=BaseModel)


async def _read(model: type[A], answer: str) -> A:
    """A client's sampled answer as `model`, parsed in a worker thread (the client decides its length)."""
    return await anyio.to_thread.run_sync(lambda: parse(model, extract_json(answer)))


class ReflectRequests:
    def __init__(self, reflection: Reflection, review: TraitReview, host_tasks: HostTasks, due: ReflectionDue) -> None:
        self.reflection, self.review, self.host_tasks, self.due = reflection, review, host_tasks, due
        self._requests: OrderedDict[str, _Request] = OrderedDict()

    def _request(self, key: str) -> _Request:
        if key not in self._requests:
            self._requests[key] = _Request()
            while len(self._requests) > KEPT:
                self._requests.popitem(last=False)
        return self._requests[key]

    async def _plan(self, key: str, user_id: str, force: bool) -> Plan | None:
        request = self._request(key)
        if not request.planned:
            plan = await self.reflection.planner.prepare(user_id, force)
            request.planned, request.plan = True, None if isinstance(plan, NotTriggered) else plan
        return request.plan

    async def sampled_prompt(self, key: str, user_id: str, force: bool, answers: Sequence[str | None]) -> Prompt | None:
        """The prompt of step `len(answers)` for the client's model, given its answers to the steps before
        (None: not asked or not answered); None when this step asks nothing."""
        if await self._turn(self._request(key), user_id, force):
            return None
        plan = await self._plan(key, user_id, force)
        step = len(answers)
        if plan is None or step >= STEPS or any(a is None for a in answers[:1]):
            return None
        try:
            prompt = await self._prompt(plan, step, answers)
        except ValueError:  # an answer that is no JSON of the right shape: the body keeps the code-only results
            return None
        if prompt is not None:
            self._request(key).prompts[step] = prompt
        return prompt

    async def _turn(self, request: _Request, user_id: str, force: bool) -> bool:
        """Is it the imported history's turn? Decided once a request: its resolvers and its body must agree."""
        if request.imports_first is None:
            request.imports_first = await self.host_tasks.imports_first(user_id, force)
        return request.imports_first

    async def _prompt(self, plan: Plan, step: int, answers: Sequence[str | None]) -> Prompt | None:
        planner = self.reflection.planner
        if step == 0:
            return planner.first_prompt(plan)
        first = answers[0] or ""
        if step == 1:
            return await planner.second_prompt(plan, await _read(QuestionsAnswer, first)) if plan.two_stage else None
        main = answers[1] if plan.two_stage else first
        if main is None:
            return None
        if plan.two_stage and not plan.evidence:  # a plan of an earlier round: fetch the evidence the model saw
            await planner.second_prompt(plan, await _read(QuestionsAnswer, first))
        return await planner.review_prompt(plan, await _read(MainAnswer, main))

    async def core_question(self, key: str, user_id: str) -> str | None:
        """The question for the user (elicitation) when a trait is about to become core, else None."""
        trait = await self.review.near_core(user_id)
        self._request(key).asked_about = trait
        return self.review.core_question(trait) if trait is not None else None

    async def reflect(
        self,
        key: str,
        user_id: str,
        *,
        force: bool,
        route: Route,
        answers: Sequence[str | None] = (),
        confirm: bool | None = None,
        progress: Progress | None = None,
    ) -> tuple[Outcome, str | None]:
        """Run the cycle on `route` with the client's `answers` to the sampled prompts, then apply the
        user's answer to the core question, if one was asked (`confirm` None: declined or cancelled); returns
        the cycle's outcome and what the user was asked, if anything.
        The answer is applied after the cycle: it writes a memory (an endorsement), and the cycle must see
        the memories the sampled prompts showed the client's model."""
        request = self._requests.pop(key, None) or _Request()
        sampled = [(request.prompts[step], answers[step]) for step in request.prompts if step < len(answers)]
        outcome: Outcome
        if route.kind == "host":  # the calling model answers in a later call
            outcome = await self.host_tasks.reflect(user_id, force, request.plan)
        elif (
            route.kind == "sampling"
            and await self._turn(request, user_id, force)
            and (handed := await self.host_tasks.import_task(user_id))
        ):
            # The client's model reads the imported history as the calling model does: a task, one piece a call.
            outcome = handed
        else:
            outcome = await self.reflection.reflect(
                user_id, force=force, route=route.sampled(sampled), progress=progress, plan=request.plan
            )
            if route.kind == "sampling":
                outcome = await self.host_tasks.or_import(user_id, outcome)
        if route.missing and isinstance(outcome, Reflected) and outcome.status == "code_only":
            outcome.error = route.missing
        asked = None
        if request.asked_about is not None:
            asked = await self.review.answer_core_question(user_id, request.asked_about, confirm)
        self.due.settled()
        return outcome, asked

    async def answer_task(self, user_id: str, task_id: str, answer: object) -> Outcome:
        """The calling model's answer to a host task this user was given."""
        outcome = await self.host_tasks.answer(user_id, task_id, answer)
        self.due.settled()
        return outcome
