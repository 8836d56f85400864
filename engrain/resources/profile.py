"""engrain://profile: who the user is, meant to be attached as context (services/profile); and the same as it
stood on a past date."""

from __future__ import annotations

from urllib.parse import unquote

from mcp.server.mcpserver import MCPServer

from engrain.services.profile.view import ProfileView
from engrain.tools.common import PROFILE_APP_META, Caller, resource_errors


def register(server: MCPServer, profile_view: ProfileView, caller: Caller) -> None:
    @server.resource(
        "engrain://profile",
        name="profile",
        mime_type="text/markdown",
        description="Who the user is: their facts (home, work, people, pets, key dates), traits by stage with the "
        "forming ones apart, plans ahead in the user's time, habits, and what was told lately. Meant to be "
        "attached as context.",
        meta=PROFILE_APP_META,  # clients that render MCP Apps may show the view (resources/apps_view.py)
    )
    @resource_errors
    async def profile() -> str:
        return await profile_view.profile(await caller())

    @server.resource(
        "engrain://profile/as-of/{date}",
        name="profile-as-of",
        mime_type="text/markdown",
        description="The profile as it stood on a date (2026-03-01, or a phrase such as 'last month'): what was "
        "stored by then and still valid then, traits at their stage of then.",
    )
    @resource_errors
    async def profile_as_of(date: str) -> str:
        return await profile_view.profile(await caller(), as_of=unquote(date))
