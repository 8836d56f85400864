"""The stdio transport: an answer for every line, bounded lines, and backpressure.

- The SDK's stdio reader hands a line that is not a JSON-RPC message to the server as an exception,
  which the server drops: a client that sent a broken request would wait for its answer forever. Here
  such a line gets a JSON-RPC error — -32700 (parse error) for text that is not JSON, -32600 (invalid
  request) for JSON that is no JSON-RPC message — under the request's id when one can be read from it
  (null otherwise, as JSON-RPC 2.0 says). Nesting of any depth is answered, never a crash.
- A line longer than MAX_LINE_BYTES is read past, not kept, and answered with -32600.
- A client that writes requests without reading the answers must not make the server grow without
  bound: once MAX_PENDING requests wait for their answer to be written, no more lines are read, so the
  client's own writes block (the pipe fills) until it reads.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, BinaryIO

import anyio
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

if TYPE_CHECKING:
    from engrain.server.app import EngrainServer

log = logging.getLogger(__name__)
MAX_LINE_BYTES = 64 * 1024 * 1024  # a remember_many of 5,000 long memories fits; README states it
MAX_PENDING = 32  # requests read whose answer is not written yet
_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
_TOO_LONG = "\x00engrain:line-too-long\x00"  # what the reader yields in place of an over-long line


def _request_id(line: str) -> int | str | None:
    """The id of a broken request, when it can be read: from the JSON, or from the raw text. Deep nesting
    is not JSON a request can be (json.loads would raise RecursionError on it): the raw text decides."""
    try:
        value = json.loads(line).get("id")
    except (ValueError, AttributeError, RecursionError):
        found = _ID.search(line[:4096])
        value = json.loads(found.group(1)) if found else None
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def error_for(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error that answers a line the transport could not read; None if it was not a line."""
    if not isinstance(exc, ValidationError) or not exc.errors():
        return None
    line = exc.errors()[0].get("input")
    line = line if isinstance(line, str) else json.dumps(line, default=str) if line is not None else ""
    if line.startswith(_TOO_LONG):
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=_request_id(line[len(_TOO_LONG) :]),
            error=types.ErrorData(
                code=types.INVALID_REQUEST, message=f"Invalid request: the line exceeds {MAX_LINE_BYTES:,} bytes"
            ),
        )
    not_json = any(err["type"] == "json_invalid" for err in exc.errors())
    code, message = (
        (types.PARSE_ERROR, "Parse error: the line is not valid JSON")
        if not_json
        else (types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
    )
    return types.JSONRPCError(jsonrpc="2.0", id=_request_id(line), error=types.ErrorData(code=code, message=message))


def _read_line(source: BinaryIO) -> bytes:
    """One line of at most MAX_LINE_BYTES (b"" at the end); a longer one is read to its end and dropped,
    and comes back as the marker plus its first kilobytes (where its id is)."""
    line = source.readline(MAX_LINE_BYTES + 1)
    if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
        return line
    head = line[:4096]
    while (rest := source.readline(1 << 20)) and not rest.endswith(b"\n"):
        pass
    return _TOO_LONG.encode() + head + b"\n"


async def _lines(source: BinaryIO) -> AsyncIterator[str]:
    """stdin's lines, each read in a worker thread (a read blocks until the client writes)."""
    while line := await anyio.to_thread.run_sync(_read_line, source, abandon_on_cancel=True):
        yield line.decode("utf-8", errors="replace")


class _Pending:
    """The requests read whose answer is not written yet: reading waits while there are MAX_PENDING."""

    def __init__(self) -> None:
        self.ids: set[int | str] = set()
        self._changed = anyio.Event()

    async def admit(self, request_id: int | str) -> None:
        while len(self.ids) >= MAX_PENDING:
            await self._changed.wait()
        self.ids.add(request_id)

    def done(self, request_id: Any) -> None:
        if request_id in self.ids:
            self.ids.discard(request_id)
            self._changed.set()
            self._changed = anyio.Event()


async def run_stdio(server: EngrainServer, stdin: BinaryIO | None = None) -> None:
    """Serve `server` on stdin/stdout like MCPServer.run_stdio_async, answering unreadable lines, bounding
    line length and the answers waiting to be written."""
    source = stdin or sys.stdin.buffer
    async with stdio_server(stdin=_lines(source)) as (read_stream, write_stream):  # type: ignore[arg-type]
        forward_writer, forward_reader = create_context_streams[SessionMessage | Exception](0)
        answer_writer, answer_reader = create_context_streams[SessionMessage](0)
        pending = _Pending()

        async def answer_or_forward() -> None:
            async with forward_writer:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        error = error_for(item)
                        if error is not None:
                            log.info("answered an unreadable stdio line with JSON-RPC error %d", error.error.code)
                            await write_stream.send(SessionMessage(error))
                            continue
                    elif isinstance(item.message, types.JSONRPCRequest):
                        await pending.admit(item.message.id)
                    elif isinstance(item.message, types.JSONRPCNotification) and (
                        item.message.method == "notifications/cancelled"
                    ):
                        pending.done((item.message.params or {}).get("requestId"))  # no answer will come
                    await forward_writer.send(item)

        async def write_answers() -> None:
            async with answer_reader:
                async for item in answer_reader:
                    await write_stream.send(item)
                    if isinstance(item.message, types.JSONRPCResponse | types.JSONRPCError):
                        pending.done(item.message.id)

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_or_forward)
            tg.start_soon(write_answers)
            lowlevel = server.lowlevel
            async with answer_writer:
                await lowlevel.run(forward_reader, answer_writer, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
        await write_stream.aclose()  # ends the SDK's stdout writer
