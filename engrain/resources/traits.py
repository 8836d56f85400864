"""Resources for what engrain believes: the trait list, and one trait with its evidence."""

from __future__ import annotations

import json

from mcp.server.mcpserver import MCPServer

from engrain.rules.traits import Stage
from engrain.services.traits.views import TraitViews
from engrain.tools.common import Caller, resource_errors


def register(server: MCPServer, trait_views: TraitViews, caller: Caller) -> None:
    @server.resource(
        "engrain://traits",
        name="traits",
        mime_type="application/json",
        description="Every active trait of the user (trend to core), strongest first.",
    )
    @resource_errors
    async def traits() -> str:
        result = await trait_views.list(await caller(), min_stage=Stage.TREND)
        return json.dumps([t.model_dump(mode="json") for t in result.traits], ensure_ascii=False)

    @server.resource(
        "engrain://traits/{trait_id}",
        name="trait",
        mime_type="application/json",
        description="One trait with its supporting and contradicting memories and its history: "
        "why engrain thinks this about the user.",
    )
    @resource_errors
    async def trait(trait_id: str) -> str:
        detail = await trait_views.detail(await caller(), trait_id)
        return json.dumps(detail.model_dump(mode="json"), ensure_ascii=False)
