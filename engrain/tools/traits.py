"""`get_user_traits`: what engrain believes about the user (docs/SPEC.md §7)."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field, StrictInt

from engrain.reading import inputs
from engrain.rules.traits import FORMING_STAGES, ActiveStageName, ContextName, SubtypeName
from engrain.services.traits.results import TraitList
from engrain.services.traits.views import TraitViews
from engrain.services.wording.lines import NOT_SHOWN, memory_line, trait_tag
from engrain.text.quoting import DATA_NOTICE
from engrain.tools.common import PROFILE_APP_META, Caller, plural, structured, tool_errors

DESCRIPTION = (
    "List the traits engrain has learned about the user (behaviors, preferences, core values), strongest "
    "first: one line each, [stage, confidence] «the trait» (a short id review_trait accepts). Traits still "
    "forming (candidate, emerging) are listed and marked 'forming': treat them as tentative. Use it to adapt "
    "answers to the user; read engrain://traits/{id} to see the evidence for one. get_profile shows the traits "
    "with the user's facts, plans and habits: read it first."
)


def register(server: MCPServer, traits: TraitViews, caller: Caller) -> None:
    @server.tool(
        name="get_user_traits",
        title="Get user traits",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
        meta=PROFILE_APP_META,
    )
    @tool_errors
    async def get_user_traits(
        user: Annotated[str, Resolve(caller)],
        min_stage: Annotated[
            ActiveStageName, Field(description="Weakest stage to include ('trend': also what was seen once).")
        ] = "candidate",
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
        forming = sum(t.stage in FORMING_STAGES for t in result.traits)
        head = f"{len(result.traits)} of {plural(result.total, 'trait')} at or above {min_stage}"
        lines = [head + (f", {forming} of them still forming" if forming else "") + f" ({DATA_NOTICE})"]
        lines += [
            memory_line(t.content, t.id, shown=NOT_SHOWN, tz=None, tags=[trait_tag(t.stage, t.confidence)])
            for t in result.traits
        ]
        return structured("\n".join(lines), result)
