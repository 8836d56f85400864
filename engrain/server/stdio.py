"""The stdio transport, with an answer for every line.

The SDK's stdio reader hands a line that is not a JSON-RPC message to the server as an exception,
which the server drops: a client that sent a broken request would wait for its answer forever. Here
such a line gets a JSON-RPC error — -32700 (parse error) for text that is not JSON, -32600 (invalid
request) for JSON that is no JSON-RPC message — under the request's id when one can be read from it
(null otherwise, as JSON-RPC 2.0 says).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)
_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def _request_id(line: str) -> int | str | None:
    """The id of a broken request, when it can be read: from the JSON, or from the raw text."""
    try:
        value = json.loads(line).get("id")
    except (ValueError, AttributeError):
        found = _ID.search(line)
        value = json.loads(found.group(1)) if found else None
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def error_for(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error that answers a line the transport could not read; None if it was not a line."""
    if not isinstance(exc, ValidationError) or not exc.errors():
        return None
    line = exc.errors()[0].get("input")
    line = line if isinstance(line, str) else json.dumps(line, default=str) if line is not None else ""
    not_json = any(err["type"] == "json_invalid" for err in exc.errors())
    code, message = (
        (types.PARSE_ERROR, "Parse error: the line is not valid JSON")
        if not_json
        else (types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
    )
    return types.JSONRPCError(jsonrpc="2.0", id=_request_id(line), error=types.ErrorData(code=code, message=message))


async def run_stdio(server: MCPServer[Any]) -> None:
    """Serve `server` on stdin/stdout like MCPServer.run_stdio_async, answering unreadable lines."""
    async with stdio_server() as (read_stream, write_stream):
        forward_writer, forward_reader = create_context_streams[SessionMessage | Exception](0)

        async def answer_or_forward() -> None:
            async with forward_writer:
                async for item in read_stream:
                    error = error_for(item) if isinstance(item, Exception) else None
                    if error is None:
                        await forward_writer.send(item)
                        continue
                    log.info("answered an unreadable stdio line with JSON-RPC error %d", error.error.code)
                    await write_stream.send(SessionMessage(error))

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_or_forward)
            lowlevel = server._lowlevel_server
            await lowlevel.run(forward_reader, write_stream, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
