"""`reflect`: digest new memories into traits now (docs/SPEC.md §7)."""

# No `from __future__ import annotations`: the SDK reads the resolvers' annotations at registration,
# and these resolvers are closures its type-hint lookup could not find by name.

from typing import Annotated, Any

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample
from mcp.types import CallToolResult, CreateMessageResult, ToolAnnotations
from pydantic import Field

from engrain.services.prompting.routes import ModelRoutes
from engrain.services.traits.reflection.requests import ReflectRequests
from engrain.services.traits.results import ReflectResult, reflect_result
from engrain.services.traits.review import CoreCheck
from engrain.tools.common import Caller, answers_a_task, plural, structured, tool_errors
from engrain.tools.sampling import client_samples, result_text, to_sample

DESCRIPTION = (
    "Digest the memories learned since the last reflection into traits of the user (trends, behaviors, "
    "preferences, core values), reinforcing, contradicting, upgrading and decaying what engrain believes. "
    "Runs by itself on a schedule; call it when a remember or recall result says a reflection is due, or "
    "after a session rich in personal information. `force` skips the "
    "check of whether enough new information arrived. When engrain has no model of its own, the result has "
    "status 'needs_model' and a `task`: do what it says, then call reflect again with its `task_id` and your "
    "`answer` (a JSON object). While the user's imported chat history waits for a model, the task may instead be "
    "a piece of it to read, answered with ingest_conversation as the task says."
)


def register(server: MCPServer, requests: ReflectRequests, routes: ModelRoutes, caller: Caller) -> None:
    def request_key(ctx: Context, user: str) -> str:
        """A request of one connection of one user: JSON-RPC ids restart with every connection."""
        return f"{user}\x00{id(ctx.session)}\x00{ctx.request_id}"

    async def ask_client(
        ctx: Context, force: bool, task_id: str | None, *answers: CreateMessageResult | None
    ) -> Sample | None:
        """The next sampled prompt of this request, when its model is the client's (answering a host task
        asks nobody)."""
        if task_id is not None or not routes.samples(client_samples(ctx)):
            return None
        texts = [result_text(a) for a in answers]
        user = await caller()
        return to_sample(await requests.sampled_prompt(request_key(ctx, user), user, force, texts))

    async def sample_1(ctx: Context, force: bool = False, task_id: str | None = None) -> Sample | None:
        return await ask_client(ctx, force, task_id)

    async def sample_2(
        ctx: Context,
        a1: Annotated[CreateMessageResult | None, Resolve(sample_1)],
        force: bool = False,
        task_id: str | None = None,
    ) -> Sample | None:
        return await ask_client(ctx, force, task_id, a1)

    async def sample_3(
        ctx: Context,
        a1: Annotated[CreateMessageResult | None, Resolve(sample_1)],
        a2: Annotated[CreateMessageResult | None, Resolve(sample_2)],
        force: bool = False,
        task_id: str | None = None,
    ) -> Sample | None:
        return await ask_client(ctx, force, task_id, a1, a2)

    async def ask_core(ctx: Context, task_id: str | None = None) -> Elicit[CoreCheck] | None:
        """A trait about to become core is worth the user's word, when the client can ask them."""
        caps = ctx.client_capabilities
        if caps is None or caps.elicitation is None or task_id is not None:
            return None
        user = await caller()
        question = await requests.core_question(request_key(ctx, user), user)
        return Elicit(question, CoreCheck) if question is not None else None

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
        a1: Annotated[CreateMessageResult | None, Resolve(sample_1)],
        a2: Annotated[CreateMessageResult | None, Resolve(sample_2)],
        a3: Annotated[CreateMessageResult | None, Resolve(sample_3)],
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
            return summarize(reflect_result(await requests.answer_task(user, task_id, answer)))

        async def progress(fraction: float, message: str) -> None:
            await ctx.report_progress(fraction, 1.0, message)

        accepted = core.data if isinstance(core, AcceptedElicitation) else None
        outcome, asked = await requests.reflect(
            request_key(ctx, user),
            user,
            force=force,
            route=routes.for_request(client_samples(ctx)),
            answers=[result_text(a) for a in (a1, a2, a3)],
            confirm=accepted.confirm if accepted is not None else None,
            progress=progress,
        )
        return summarize(reflect_result(outcome, asked))


def summarize(result: ReflectResult) -> CallToolResult:
    """The short text of a reflect result: a needs_model result's text is its task, whole."""
    if result.task is not None:
        return structured(result.task, result)
    if not result.triggered:
        summary = f"not reflected: {result.reason}"
        if result.memories_pending:
            summary += f"; {plural(result.memories_pending, 'memory')} waiting (force=true reflects now)"
    else:
        summary = (
            f"reflected ({result.trigger_type}, {result.status}, llm {result.llm}): "
            f"{plural(result.memories_scanned, 'memory')}, "
            f"{plural(result.traits_created, 'trait')} created, "
            f"{result.traits_updated} updated, {result.traits_dissolved} dissolved, "
            f"{plural(result.links_created, 'link')}"
            + (f", {plural(result.digests_written, 'digest')} written" if result.digests_written else "")
            + (f"; {result.error}" if result.error else "")
        )
        if result.memories_pending:
            summary += f"; {plural(result.memories_pending, 'memory')} waiting for a model"
    if result.user_confirmation:
        summary += f"; the user was asked: {result.user_confirmation}"
    return structured(summary, result)
