"""`get_profile`: the standing picture of the user, for the start of a conversation (docs/SPEC.md §8).

The same text as engrain://profile. A tool as well, because most clients hand a model tools, not resources,
and Claude Desktop ignores the server's instructions: the model must be told, in a description it reads, to
read the picture first (issue 42)."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from engrain.services.profile.results import ProfileResult
from engrain.services.profile.sections import PROFILE_TOKENS
from engrain.services.profile.view import ProfileView
from engrain.tools.common import PROFILE_APP_META, Caller, structured, tool_errors

DESCRIPTION = (
    "Read this first, at the start of a conversation: what engrain knows about the user as it stands now — "
    "who they are, where they live and work, family and pets, health, preferences, key dates, upcoming "
    f"plans, habits and traits, one dated line each (said D · happened P), about {PROFILE_TOKENS:,} tokens. A line "
    "marked 'home replaced by <id>' is still true but for that. A line with '…' shows the part of a longer memory "
    "that says the fact: recall (or engrain://memories/<id>) gives it whole. Then use recall for anything more "
    "specific."
)


def register(server: MCPServer, profile: ProfileView, caller: Caller) -> None:
    @server.tool(
        name="get_profile",
        title="Get the user's profile",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
        meta=PROFILE_APP_META,
    )
    @tool_errors
    async def get_profile(
        user: Annotated[str, Resolve(caller)],
        as_of: Annotated[
            str | None,
            Field(description="Time travel: the profile as it stood then (ISO or a phrase like 'last month')."),
        ] = None,
    ) -> Annotated[CallToolResult, ProfileResult]:
        text, result = await profile.read(user, as_of=as_of)
        return structured(text, result)
