"""The MCP application: one MCPServer wired to one AppState."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import psutil
from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Tool
from pydantic import ValidationError

from engrain import __version__
from engrain.resources import memories as memory_resources
from engrain.resources import profile as profile_resource
from engrain.resources import status as status_resource
from engrain.resources import traits as trait_resources
from engrain.resources.apps_view import profile_app
from engrain.server import guide, schemas
from engrain.server.state import AppState
from engrain.tools import forget, ingest, link, pin, recall, reflect, remember, review, traits
from engrain.tools import profile as profile_tool
from engrain.tools.common import describe_invalid_arguments

log = logging.getLogger(__name__)
INITIALIZE_DEADLINE = 0.9  # seconds from the process's start by which `initialize` is answered


def process_age() -> float:
    """Seconds since this process started."""
    return time.time() - psutil.Process().create_time()


class EngrainServer(MCPServer[AppState]):
    """MCPServer whose argument errors are one line that names the field and what it accepts, and
    whose output schemas are written in the form clients validate fastest (server/schemas.py)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._plain_schemas: dict[str, dict[str, Any] | None] = {}  # by tool name, made once

    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        for tool in tools:
            if tool.name not in self._plain_schemas:
                self._plain_schemas[tool.name] = schemas.plain(tool.output_schema) if tool.output_schema else None
        return [tool.model_copy(update={"output_schema": self._plain_schemas[tool.name]}) for tool in tools]

    @property
    def lowlevel(self) -> Server[AppState]:
        """The SDK's low-level server: server/stdio.py runs it on its own streams."""
        return self._lowlevel_server

    def set_instructions(self, text: str) -> None:
        """Replace the instructions (MCPServer exposes them read-only): the stdio user's profile arrives
        after the server is built."""
        self._lowlevel_server.instructions = text

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """A call whose arguments name one the tool does not take is refused, naming it: the SDK dropped it
        silently, so a typo (`limt`) gave an answer to a question the client did not ask."""
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            taken: dict[str, Any] = tool.parameters.get("properties", {})
            if unknown := [key for key in arguments if key not in taken]:
                raise ToolError(
                    f"Error executing tool {name}: {str(unknown[0])[:60]}: is not an argument of {name}; "
                    f"it takes {', '.join(taken)}"
                )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(
                    f"Error executing tool {name}: {describe_invalid_arguments(exc.__cause__)}"
                ) from exc.__cause__
            raise


def create_server(app: AppState, *, one_user: bool = True, **options: Any) -> EngrainServer:
    """Build the server. Nothing slow happens here: the lifespan starts the database and the model in
    the background, and waits for the user's profile only as long as `initialize` can still be
    answered within INITIALIZE_DEADLINE of the process's start.

    `one_user`: the server speaks for ENGRAIN_USER alone (stdio). Only then does the profile go into
    the instructions, which every session of a server shares, and are the user's new memories digested
    when the session ends. Over HTTP and SSE (False) each caller is named by a token, so the
    instructions carry no profile at all (one user's words must never reach another's session) and
    the job loop digests every user. `options` go to MCPServer (the token verifier and auth settings
    of the HTTP transports)."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[AppState]) -> AsyncGenerator[AppState, None]:
        # SSE enters the lifespan once per connection, stdio and streamable HTTP once per process.
        app.acquire()
        profile: asyncio.Future[None] | None = None
        if one_user:
            profile = asyncio.ensure_future(_instructions_with_profile())
            app.track(profile)
            # Clients read the instructions once, at initialize: wait for the profile while the process is
            # still young enough to answer initialize within INITIALIZE_DEADLINE of its start (an embedded
            # Postgres that exists starts in a few hundred ms); a first start (initdb) answers with the guide.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(profile), max(0.0, INITIALIZE_DEADLINE - process_age()))
        try:
            yield app
        finally:
            if profile is not None:  # a session that closes before its profile was read needs it no more
                profile.cancel()
            # A session that ended before the database opened (a client that closed at once) wrote nothing:
            # there is nothing to digest, and waiting for the database would only delay the exit.
            if one_user and app.settings.scheduler == "on" and app.database_if_open() is not None:
                if app.holders == 1:
                    await app.stop_scheduler_loop()  # so the session's digest does not race a catch-up run
                await app.scheduler.session_end(await app.user())  # bounded by ENGRAIN_SESSION_END_TIMEOUT
            await app.release()

    async def _instructions_with_profile() -> None:
        """Add the stdio user's profile summary to the instructions once the database is up.
        Clients that fetch instructions later (server/discover, a reconnect) get it."""
        try:
            summary = await app.profile.summary(await app.user())
        except Exception as exc:  # the guide alone is still useful
            log.info("instructions without profile: %s", exc)
            return
        if summary:
            server.set_instructions(guide.with_profile(summary))

    server = EngrainServer(
        "engrain",
        title="engrain memory",
        version=__version__,
        instructions=guide.INSTRUCTIONS,
        lifespan=lifespan,
        extensions=[profile_app()],
        **options,
    )
    # Each tool and resource receives the services it uses and who is calling, never the application state.
    caller = app.user
    remember.register(server, app.memories, app.reflection_due, caller)
    recall.register(server, app.recall, app.reflection_due, caller, app.local_notice)
    reflect.register(server, app.reflect_requests, app.routes, caller)
    traits.register(server, app.traits, caller)
    profile_tool.register(server, app.profile, caller)
    review.register(server, app.trait_review, caller)
    link.register(server, app.links, caller)
    forget.register(server, app.memories, caller)
    pin.register(server, app.memories, caller)
    ingest.register(server, app.ingest, app.host_tasks, app.routes, app.reflection_due, caller)
    memory_resources.register(server, app.memory_views, caller)
    trait_resources.register(server, app.traits, caller)
    profile_resource.register(server, app.profile, caller)
    status_resource.register(server, app.status, caller)
    guide.register(server)
    return server
