"""`reflect`: digest new memories into traits now (docs/SPEC.md §7)."""

# No `from __future__ import annotations`: the SDK reads the resolvers' annotations at registration,
# and these resolvers are closures its type-hint lookup could not find by name.

from collections import OrderedDict
from typing import Annotated, Any

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample
from mcp.types import CallToolResult, CreateMessageResult, ToolAnnotations
from pydantic import Field

from engrain.providers.llm import LLMChoice, Prompt
from engrain.services.traits.answers import MainAnswer, QuestionsAnswer, parse
from engrain.services.traits.host_tasks import HostTasks
from engrain.services.traits.reflection.cycle import ReflectionService
from engrain.services.traits.reflection.planning import Plan
from engrain.services.traits.reflection.results import ReflectResult
from engrain.services.traits.review import CoreCheck, TraitReview
from engrain.tools.common import Caller, answers_a_task, plural, structured, tool_errors
from engrain.tools.sampling import SampledAnswers, client_samples, parsed, sampling_active, to_sample

DESCRIPTION = (
    "Digest the memories learned since the last reflection into traits of the user (trends, behaviors, "
    "preferences, core values), reinforcing, contradicting, upgrading and decaying what engrain believes. "
    "Runs by itself on a schedule; call it after a session rich in personal information. `force` skips the "
    "check of whether enough new information arrived. When engrain has no model of its own, the result has "
    "status 'needs_model' and a `task`: do what it says, then call reflect again with its `task_id` and your "
    "`answer` (a JSON object)."
)


PLANS_KEPT = 64  # plans of requests in flight (a request's resolvers and its body share one)


# C901: the resolvers below are closures over one request's plan (the SDK resolves them by signature);
# mccabe counts each of them into `register`, though each is a few lines.
def register(  # noqa: C901
    server: MCPServer,
    reflection: ReflectionService,
    trait_review: TraitReview,
    host_tasks: HostTasks,
    llm: LLMChoice,
    caller: Caller,
) -> None:
    # One plan per request: the resolvers that ask the client's model and the body that applies its
    # answers look at the same memories under the same aliases, whatever arrives in between.
    plans: OrderedDict[str, Plan | None] = OrderedDict()

    def plan_key(ctx: Context) -> str:
        """A request of one connection of one user: JSON-RPC ids restart with every connection."""
        return f"{caller()}\x00{id(ctx.session)}\x00{ctx.request_id}"

    async def plan_for(force: bool, ctx: Context, task_id: str | None) -> Plan | None:
        if task_id is not None or not sampling_active(llm, ctx):  # answering a host task asks nobody
            return None
        key = plan_key(ctx)
        if key not in plans:
            plan = await reflection.planner.prepare(caller(), force)
            plans[key] = None if isinstance(plan, ReflectResult) else plan
            while len(plans) > PLANS_KEPT:
                plans.popitem(last=False)
        return plans[key]

    async def prompt_1(force: bool, ctx: Context, task_id: str | None = None) -> Prompt | None:
        plan = await plan_for(force, ctx, task_id)
        return reflection.planner.first_prompt(plan) if plan else None

    async def answer_1(prompt: Annotated[Prompt | None, Resolve(prompt_1)]) -> Sample | None:
        return to_sample(prompt)

    async def prompt_2(
        force: bool,
        ctx: Context,
        first: Annotated[CreateMessageResult | None, Resolve(answer_1)],
        task_id: str | None = None,
    ) -> Prompt | None:
        plan = await plan_for(force, ctx, task_id)
        if plan is None or first is None or not plan.two_stage:
            return None
        try:
            return await reflection.planner.second_prompt(plan, parse(QuestionsAnswer, parsed(first)))
        except ValueError:
            return None

    async def answer_2(prompt: Annotated[Prompt | None, Resolve(prompt_2)]) -> Sample | None:
        return to_sample(prompt)

    async def prompt_3(
        force: bool,
        ctx: Context,
        first: Annotated[CreateMessageResult | None, Resolve(answer_1)],
        second: Annotated[CreateMessageResult | None, Resolve(answer_2)],
        task_id: str | None = None,
    ) -> Prompt | None:
        plan = await plan_for(force, ctx, task_id)
        if plan is None or first is None:
            return None
        try:
            if plan.two_stage:
                if second is None:
                    return None
                if not plan.evidence:  # a plan of an earlier round: fetch the evidence the model was shown
                    await reflection.planner.second_prompt(plan, parse(QuestionsAnswer, parsed(first)))
            return await reflection.planner.review_prompt(
                plan, parse(MainAnswer, parsed(second if plan.two_stage else first))
            )
        except ValueError:
            return None

    async def answer_3(prompt: Annotated[Prompt | None, Resolve(prompt_3)]) -> Sample | None:
        return to_sample(prompt)

    async def ask_core(ctx: Context, task_id: str | None = None) -> Elicit[CoreCheck] | None:
        """A trait about to become core is worth the user's word, when the client can ask them."""
        caps = ctx.client_capabilities
        if caps is None or caps.elicitation is None or task_id is not None:
            return None
        trait = await trait_review.near_core(caller())
        return Elicit(trait_review.core_question(trait), CoreCheck) if trait is not None else None

    @server.tool(
        name="reflect",
        title="Reflect",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
    @tool_errors
    async def reflect(
        user: Annotated[str, Resolve(caller)],
        ctx: Context,
        p1: Annotated[Prompt | None, Resolve(prompt_1)],
        a1: Annotated[CreateMessageResult | None, Resolve(answer_1)],
        p2: Annotated[Prompt | None, Resolve(prompt_2)],
        a2: Annotated[CreateMessageResult | None, Resolve(answer_2)],
        p3: Annotated[Prompt | None, Resolve(prompt_3)],
        a3: Annotated[CreateMessageResult | None, Resolve(answer_3)],
        core: Annotated[ElicitationResult[CoreCheck], Resolve(ask_core)],
        force: Annotated[bool, Field(description="Reflect even if the triggers say it is not needed.")] = False,
        task_id: Annotated[
            str | None, Field(description="The task_id of a needs_model result you are answering.")
        ] = None,
        answer: Annotated[
            dict[str, Any] | str | None,
            Field(description="Your answer to that task: the JSON object it describes (or a string holding it)."),
        ] = None,
    ) -> Annotated[CallToolResult, ReflectResult]:
        if answers_a_task(task_id, answer):
            return summarize(await host_tasks.answer(user, task_id, answer))
        asked_about = None
        if not (isinstance(core, AcceptedElicitation) and core.data is None):  # None: nothing was asked
            # A resolver hands over only the answer, so the trait it asked about is looked up again. The
            # answer is applied after the cycle: it writes a memory (an endorsement), and the cycle must
            # see the memories its sampled prompts showed the client's model.
            asked_about = await trait_review.near_core(user)
        route = llm.route(client_samples=client_samples(ctx))
        ask, name = llm.direct_ask(), llm.name
        if route == "sampling":
            ask, name = SampledAnswers([(p1, a1), (p2, a2), (p3, a3)]), "sampling"
        elif route in ("host", "none"):
            name = route

        async def progress(fraction: float, message: str) -> None:
            await ctx.report_progress(fraction, 1.0, message)

        result = await reflection.reflect(
            user,
            force=force,
            ask=ask,
            llm_name=name,
            progress=progress,
            host=host_tasks.issue_reflection if route == "host" else None,
            plan=plans.pop(plan_key(ctx), None),
        )
        if route == "none" and llm.kind == "sampling" and result.status == "code_only":
            result.error = (
                "ENGRAIN_LLM=sampling, but this client declared no sampling capability: no model "
                "looked at the new memories, which stay pending"
            )
        if asked_about is not None:
            confirm = core.data.confirm if isinstance(core, AcceptedElicitation) else None
            asked = await trait_review.answer_core_question(user, asked_about, confirm)
            result = result.model_copy(update={"user_confirmation": asked})
        return summarize(result)


def summarize(result: ReflectResult) -> CallToolResult:
    """The short text of a reflect result: a needs_model result's text is its task, whole."""
    if result.task is not None:
        return structured(result.task, result)
    if not result.triggered:
        summary = f"not reflected: {result.reason}"
    else:
        summary = (
            f"reflected ({result.trigger_type}, {result.status}, llm {result.llm}): "
            f"{plural(result.memories_scanned, 'memory')}, "
            f"{plural(result.traits_created, 'trait')} created, "
            f"{result.traits_updated} updated, {result.traits_dissolved} dissolved, "
            f"{plural(result.links_created, 'link')}" + (f"; {result.error}" if result.error else "")
        )
        if result.memories_pending:
            summary += f"; {plural(result.memories_pending, 'memory')} waiting for a model"
    if result.user_confirmation:
        summary += f"; the user was asked: {result.user_confirmation}"
    return structured(summary, result)
