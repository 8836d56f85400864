"""`engrain://status`: is everything up, which model serves, what ran, how much is stored."""

from __future__ import annotations

import json

from mcp.server.mcpserver import MCPServer

from engrain.server.state import AppState
from engrain.server.status import status


def register(server: MCPServer, app: AppState) -> None:
    @server.resource(
        "engrain://status",
        name="status",
        mime_type="application/json",
        description="Database, embedder, LLM provider, scheduler and counts.",
    )
    async def read_status() -> str:
        user = app.user()
        return json.dumps(await status(app, user, viewer=user), ensure_ascii=False, default=str)
