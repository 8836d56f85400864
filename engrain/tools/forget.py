"""`forget`: delete a memory for good (docs/SPEC.md §5)."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from engrain.reading import inputs
from engrain.services.memories.results import ForgetResult
from engrain.services.memories.writing import MemoryWriter
from engrain.tools.common import Caller, plural, structured, tool_errors

DESCRIPTION = (
    "Delete a memory for good: its links, its vector, its history, and the older memories it replaced "
    "(earlier wordings of the same fact). Only the fact that a deletion happened is kept, never the "
    "content. Traits left without any supporting memory are dissolved. `reason` is a category, never "
    "the user's words: the history keeps no text of what was forgotten."
)


def register(server: MCPServer, memories: MemoryWriter, caller: Caller) -> None:
    @server.tool(
        name="forget",
        title="Forget",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False),
    )
    @tool_errors
    async def forget(
        user: Annotated[str, Resolve(caller)],
        memory_id: Annotated[str, Field(description="Id of the memory to delete.")],
        reason: Annotated[
            inputs.ForgetReason | None,
            Field(description="Why, as a category (default user_request); kept in the history."),
        ] = None,
    ) -> Annotated[CallToolResult, ForgetResult]:
        result = await memories.forget(user, memory_id, reason)
        extra = f"; dissolved {plural(len(result.traits_dissolved), 'trait')}" if result.traits_dissolved else ""
        return structured(f"forgot {result.id}{extra}", result)
