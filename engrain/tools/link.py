"""`link`: connect two of the user's memories (docs/SPEC.md §5)."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from engrain.reading import inputs
from engrain.services.memories.links import RELATIONS, MemoryLinks
from engrain.services.memories.results import LinkResult
from engrain.tools.common import Caller, structured, tool_errors

DESCRIPTION = (
    "Link two memories so that recalling one brings the other along. Links are bidirectional and "
    f"idempotent. Relations: {', '.join(RELATIONS)}, or a short free-text label."
)


def register(server: MCPServer, links: MemoryLinks, caller: Caller) -> None:
    @server.tool(
        name="link",
        title="Link memories",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def link(
        user: Annotated[str, Resolve(caller)],
        source_id: Annotated[str, Field(description="A memory id.")],
        target_id: Annotated[str, Field(description="Another memory id.")],
        relation: Annotated[str, Field(description=f"≤ {inputs.MAX_RELATION_CHARS} characters.")] = "related",
    ) -> Annotated[CallToolResult, LinkResult]:
        result = await links.link(user, source_id, target_id, relation)
        return structured(f"link {result.status}: {result.source_id} <-{result.relation}-> {result.target_id}", result)
