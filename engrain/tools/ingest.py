"""`ingest_conversation`: extract memories from a whole conversation at once."""

# No `from __future__ import annotations`: the SDK reads the resolvers' annotations at registration,
# and these resolvers are closures its type-hint lookup could not find by name.

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Resolve, Sample
from mcp.types import CallToolResult, CreateMessageResult, ToolAnnotations
from pydantic import Field

from engrain.errors import InvalidInput
from engrain.services.memories.ingest import MAX_MESSAGES, ConversationIngest, IngestRequest, Message
from engrain.services.memories.results import IngestResult
from engrain.services.prompting.routes import ModelRoutes
from engrain.services.traits.host_tasks import HostTasks
from engrain.services.traits.reflection.due import ReflectionDue
from engrain.tools.common import (
    Caller,
    answers_a_task,
    may_replace_lines,
    plural,
    redaction_line,
    structured,
    tool_errors,
    with_note,
)
from engrain.tools.sampling import client_samples, result_text, to_sample

DESCRIPTION = (
    "Store what a conversation taught about the user: facts, events (with dates), plans and workflows, plus "
    "a short linked summary when a model is available. Without a model, the user's own first-person "
    "statements are kept. Pass the turns as {role, content}; returns the ids stored. When engrain has no "
    "model of its own, the result has status 'needs_model' and a `task`: do it, then call "
    "ingest_conversation with its `task_id` and your `answer`. Give an item a `key` when it states the one current "
    "value of something. The result names memories that may replace an older fact: if one does, call remember "
    "with its words and `supersedes`."
)


def register(
    server: MCPServer,
    ingest: ConversationIngest,
    host_tasks: HostTasks,
    routes: ModelRoutes,
    due: ReflectionDue,
    caller: Caller,
) -> None:
    async def answered(user: str, result: IngestResult) -> CallToolResult:
        """The result, ending with the reflection-due line once memories are stored (not with a task pending:
        the task is what to do first)."""
        text = summary_text(result)
        if result.task is None:
            text = with_note(text, await due.note(user, stored=len(result.created), told=None))
        return structured(text, result)

    async def extraction(
        ctx: Context, messages: list[Message] | None = None, session_id: str | None = None, said_at: str | None = None
    ) -> Sample | None:
        if messages is None or not routes.samples(client_samples(ctx)):
            return None
        return to_sample(
            ingest.sampling_prompt(IngestRequest(messages=messages, session_id=session_id, said_at=said_at))
        )

    @server.tool(
        name="ingest_conversation",
        title="Ingest a conversation",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def ingest_conversation(
        user: Annotated[str, Resolve(caller)],
        ctx: Context,
        sampled: Annotated[CreateMessageResult | None, Resolve(extraction)],
        messages: Annotated[
            list[Message] | None, Field(description=f"The turns, oldest first (≤ {MAX_MESSAGES}).")
        ] = None,
        session_id: Annotated[str | None, Field(description="Conversation id, kept as each memory's source.")] = None,
        said_at: Annotated[
            str | None,
            Field(
                description="When the conversation took place (ISO), for imported history: the told time of "
                "messages without their own said_at. Relative dates are read against it."
            ),
        ] = None,
        task_id: Annotated[
            str | None, Field(description="The task_id of a needs_model result you are answering.")
        ] = None,
        answer: Annotated[
            dict[str, Any] | str | None, Field(description="Your answer to that task: the JSON object it describes.")
        ] = None,
    ) -> Annotated[CallToolResult, IngestResult]:
        if answers_a_task(task_id, answer):
            return await answered(user, await host_tasks.answer_extraction(user, task_id, answer))
        if messages is None:
            raise InvalidInput("messages", "is required (or task_id and answer, to answer an extraction task)")
        request = IngestRequest(messages=messages, session_id=session_id, said_at=said_at)
        route = routes.for_request(client_samples(ctx))
        if route.kind == "host":  # the calling model extracts in a later call
            return await answered(user, await host_tasks.extract(user, request))
        return await answered(user, await ingest.ingest_conversation(user, request, route, result_text(sampled)))


def summary_text(result: IngestResult) -> str:
    """What was stored, and the task when the calling model has one to do."""
    text = (
        f"ingested {plural(len(result.created), 'new memory')} ({result.method}), "
        f"{len(result.duplicates)} already known" + (", with a summary" if result.summary_id else "")
    ) + redaction_line(result.redacted)
    if result.imports_waiting and not result.task:
        text += (
            f"; the user's imported chat history waiting for a model: {plural(result.imports_waiting, 'piece')} (the "
            "next reflect call hands you one)"
        )
    text += may_replace_lines([(u.id, u.content, u.may_replace.id, u.may_replace.content) for u in result.may_replace])
    return f"{text}\n\n{result.task}" if result.task else text
