"""What every tool shares: turning domain errors into MCP tool errors, and shaping results."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from engrain.errors import EngrainError

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


def tool_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Report EngrainError (bad input, unknown id, timeout) to the client as a tool error with its
    message; anything else stays an unexpected error whose details only reach the log."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except EngrainError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


def structured(summary: str, model: BaseModel) -> CallToolResult:
    """A short human-readable text plus the model as structuredContent (its schema is the outputSchema)."""
    return CallToolResult(
        content=[TextContent(type="text", text=summary)],
        structured_content=model.model_dump(mode="json"),
    )


def shorten(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"

