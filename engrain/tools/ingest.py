"""`ingest_conversation`: extract memories from a whole conversation at once."""

# No `from __future__ import annotations`: the SDK reads the resolvers' annotations at registration,
# and these resolvers are closures its type-hint lookup could not find by name.

from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Resolve, Sample
from mcp.types import CallToolResult, CreateMessageResult, ToolAnnotations
from pydantic import Field

from engrain.errors import EngrainError
from engrain.server.state import AppState
from engrain.services.ingest import MAX_MESSAGES, IngestResult, Message, validate_messages
from engrain.tools.common import plural, structured, tool_errors
from engrain.tools.sampling import parsed, sampling_active, to_sample

DESCRIPTION = (
    "Store what a conversation taught about the user: facts, events (with dates), plans and workflows, plus "
    "a short linked summary when a model is available. Without a model, the user's own first-person "
    "statements are kept. Pass the turns as {role, content}; returns the ids stored."
)


def register(server: MCPServer, app: AppState) -> None:
    async def extraction(messages: list[Message], ctx: Context) -> Sample | None:
        if not sampling_active(app, ctx):
            return None
        try:
            validate_messages(messages)
        except EngrainError:
            return None  # the body reports the error
        return to_sample(app.ingest.prompt(messages))

    @server.tool(name="ingest_conversation", title="Ingest a conversation", description=DESCRIPTION,
                 annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True))
    @tool_errors
    async def ingest_conversation(
        ctx: Context,
        sampled: Annotated[CreateMessageResult | None, Resolve(extraction)],
        messages: Annotated[list[Message], Field(description=f"The turns, oldest first (≤ {MAX_MESSAGES}).")],
        session_id: Annotated[str | None, Field(description="Conversation id, kept as each memory's source.")] = None,
    ) -> Annotated[CallToolResult, IngestResult]:
        validate_messages(messages)
        extracted, name = None, "none"
        ask = app.llm.direct_ask()
        if ask is not None:
            name = app.llm.name
            try:
                extracted = await ask(app.ingest.prompt(messages), lambda raw: raw)
            except (EngrainError, ValueError):
                extracted = None  # fall back to the rules rather than lose the conversation
        elif sampled is not None:
            extracted, name = parsed(sampled), "sampling"
        result = await app.ingest.ingest(app.user(), messages, session_id, extracted, name)
        summary = (f"ingested {plural(len(result.created), 'new memory')} ({result.method}), "
                   f"{len(result.duplicates)} already known" + (", with a summary" if result.summary_id else ""))
        return structured(summary, result)
