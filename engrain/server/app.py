"""The MCP application: one MCPServer wired to one AppState."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer

from engrain import __version__
from engrain.resources import memories as memory_resources
from engrain.resources import status as status_resource
from engrain.server import guide
from engrain.server.state import AppState
from engrain.tools import forget, link, recall, remember


def create_server(app: AppState) -> MCPServer[AppState]:
    """Build the server. Nothing slow happens here or at `initialize`: the lifespan only
    starts the database and the model in the background."""
    users = 0

    @asynccontextmanager
    async def lifespan(_: MCPServer[AppState]) -> AsyncIterator[AppState]:
        # Reference-counted: SSE enters the lifespan once per connection, stdio/HTTP once per process.
        nonlocal users
        users += 1
        app.start()
        try:
            yield app
        finally:
            users -= 1
            if users == 0:
                await app.close()

    server: MCPServer[AppState] = MCPServer(
        "engrain", title="engrain memory", version=__version__, instructions=guide.INSTRUCTIONS, lifespan=lifespan
    )
    for module in (remember, recall, link, forget):
        module.register(server, app)
    memory_resources.register(server, app)
    status_resource.register(server, app)
    guide.register(server)
    return server
