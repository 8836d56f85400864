"""`engrain://status`: is everything up, which model serves, what ran, how much is stored."""

from __future__ import annotations

import json

from mcp.server.mcpserver import MCPServer

from engrain.services.status.report import StatusReport
from engrain.tools.common import Caller, resource_errors


def register(server: MCPServer, status: StatusReport, caller: Caller) -> None:
    @server.resource(
        "engrain://status",
        name="status",
        mime_type="application/json",
        description="Database, embedder, LLM provider, scheduler and counts.",
    )
    @resource_errors
    async def read_status() -> str:
        user = await caller()
        return json.dumps(await status.report(user, viewer=user), ensure_ascii=False, default=str)
