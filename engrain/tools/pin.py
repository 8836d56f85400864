"""`pin_memory`: keep a memory in view for good, or let it go back to the ordinary ones."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from engrain.services.memories.results import PinResult
from engrain.services.memories.writing import MemoryWriter
from engrain.tools.common import Caller, structured, tool_errors

DESCRIPTION = (
    "Pin a memory the user wants kept in view (a pinned memory never fades and the profile lists it), or "
    "unpin it with pinned=false. Only on the user's say-so."
)


def register(server: MCPServer, memories: MemoryWriter, caller: Caller) -> None:
    @server.tool(
        name="pin_memory",
        title="Pin a memory",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def pin_memory(
        user: Annotated[str, Resolve(caller)],
        memory_id: Annotated[str, Field(description="The memory's id.")],
        pinned: Annotated[bool, Field(description="false to unpin.")] = True,
    ) -> Annotated[CallToolResult, PinResult]:
        result = await memories.pin(user, memory_id, pinned)
        state = "pinned" if pinned else "unpinned"
        return structured(f"{state} {result.id}" if result.changed else f"already {state}: {result.id}", result)
