"""`get_user_traits`: what engrain believes about the user (docs/SPEC.md §7)."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field, StrictInt

from engrain.reading import inputs
from engrain.rules.traits import ActiveStageName, ContextName, SubtypeName
from engrain.services.traits.results import TraitList
from engrain.services.traits.views import TraitViews
from engrain.tools.common import Caller, plural, shorten, structured, tool_errors

DESCRIPTION = (
    "List the traits engrain has learned about the user (behaviors, preferences, core values), strongest "
    "first, with confidence and how often they were confirmed or contradicted. Use it to adapt answers to "
    "the user; read engrain://traits/{id} to see the evidence for one."
)


def register(server: MCPServer, traits: TraitViews, caller: Caller) -> None:
    @server.tool(
        name="get_user_traits",
        title="Get user traits",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def get_user_traits(
        user: Annotated[str, Resolve(caller)],
        min_stage: Annotated[ActiveStageName, Field(description="Weakest stage to include.")] = "emerging",
        subtype: Annotated[SubtypeName | None, Field(description="Only this kind.")] = None,
        context: Annotated[ContextName | None, Field(description="Only this context.")] = None,
        limit: Annotated[StrictInt | None, Field(description=f"At most this many (1–{inputs.MAX_LIMIT}).")] = None,
        include_evidence: Annotated[bool, Field(description="Add supporting/contradicting memory ids.")] = False,
        as_of: Annotated[
            str | None,
            Field(
                description="Time travel: the traits and stages as they were at this "
                "moment (ISO or a phrase like 'last month')."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, TraitList]:
        result = await traits.list(
            user,
            min_stage=min_stage,
            subtype=subtype,
            context=context,
            limit=limit,
            include_evidence=include_evidence,
            as_of=as_of,
        )
        lines = [f"{len(result.traits)} of {plural(result.total, 'trait')} at or above {min_stage}:"]
        lines += [f"- [{t.stage} {t.confidence:.2f}] {shorten(t.content, 120)} ({t.id})" for t in result.traits]
        return structured("\n".join(lines), result)
