"""engrain://profile: who the user is, meant to be attached as context (services/profile)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from engrain.services.profile.view import ProfileView
from engrain.tools.common import Caller


def register(server: MCPServer, profile_view: ProfileView, caller: Caller) -> None:
    @server.resource(
        "engrain://profile",
        name="profile",
        mime_type="text/markdown",
        description="Who the user is: their facts (home, work, people, pets, key dates), traits by stage with the "
        "forming ones apart, plans ahead in the user's time, habits, and what was told lately. Meant to be "
        "attached as context.",
    )
    async def profile() -> str:
        return await profile_view.profile(caller())
