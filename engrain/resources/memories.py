"""Resources for memories: recent ones, one with its links and history, and intentions."""

from __future__ import annotations

import json
from urllib.parse import unquote

from mcp.server.mcpserver import MCPServer

from engrain.services.memories.views import MemoryViews
from engrain.tools.common import Caller, resource_errors

RECENT_LIMIT = 20


def register(server: MCPServer, memory_views: MemoryViews, caller: Caller) -> None:
    @server.resource(
        "engrain://memories/recent",
        name="recent-memories",
        mime_type="application/json",
        description=f"The {RECENT_LIMIT} newest live memories of the user.",
    )
    @resource_errors
    async def recent() -> str:
        views = await memory_views.recent(await caller(), RECENT_LIMIT)
        return json.dumps([v.model_dump(mode="json") for v in views], ensure_ascii=False)

    @server.resource(
        "engrain://memories/{memory_id}",
        name="memory",
        mime_type="application/json",
        description="One memory with its links and its history.",
    )
    @resource_errors
    async def memory(memory_id: str) -> str:
        detail = await memory_views.detail(await caller(), memory_id)
        return json.dumps(detail.model_dump(mode="json"), ensure_ascii=False)

    @server.resource(
        "engrain://intentions",
        name="intentions",
        mime_type="text/markdown",
        description="The user's plans and appointments, one line each with its date: upcoming (soonest first) "
        "and overdue, on the user's clock.",
    )
    @resource_errors
    async def intentions() -> str:
        return await memory_views.intentions(await caller())

    @server.resource(
        "engrain://intentions/{period}",
        name="intentions-in-period",
        mime_type="text/markdown",
        description="Plans and appointments in what is still ahead of a period, whenever they were told: "
        "engrain://intentions/this%20week, /next%20month, /%E8%BF%99%E5%91%A8 (这周), /n%C3%A4chste%20Woche.",
    )
    @resource_errors
    async def intentions_in(period: str) -> str:
        return await memory_views.intentions_in(await caller(), unquote(period))
