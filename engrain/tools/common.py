"""What every tool and resource shares: turning failures into MCP tool or resource errors, metrics and a log
line per call; and shaping tool results."""

from __future__ import annotations

import functools
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeGuard, TypeVar

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import DBAPIError

from engrain import metrics
from engrain.errors import EngrainError, InvalidInput, NotFound, QuotaExceeded, Unavailable, describe_validation
from engrain.logs import request_id
from engrain.reading.inputs import short_id
from engrain.text.quoting import quoted

log = logging.getLogger(__name__)
P = ParamSpec("P")
# Who is calling: the bearer token's user over HTTP/SSE, the local user on stdio (services/memories/local_user.py).
# Tools and resources are handed this at registration, never the application state (the server decides identity).
# Async: the local default is read from the home once, and the SDK runs a sync resolver in a worker thread.
Caller = Callable[[], Awaitable[str]]
# What the first recall of a local session says about where the person's memories are (None: nothing).
Notice = Callable[[], Awaitable[str | None]]
R = TypeVar("R")
# The MCP App view of the traits and profile (resources/apps_view.py): the tools and resources that show it name it.
PROFILE_APP_URI = "ui://engrain/profile"
PROFILE_APP_META = {"ui": {"resourceUri": PROFILE_APP_URI}}
_ERROR_KINDS: dict[type[EngrainError], str] = {
    InvalidInput: "invalid",
    NotFound: "not_found",
    QuotaExceeded: "quota",
    Unavailable: "unavailable",
    EngrainError: "error",
}


def _answered(
    fn: Callable[P, Awaitable[R]], failure: Callable[[str, str], Exception], counted: metrics.Surface
) -> Callable[P, Awaitable[R]]:
    """`fn` with its failures as the client should see them (`failure(message, kind)`), and every call counted,
    timed and logged under a request id: EngrainError (bad input, unknown id, timeout, quota) with its message;
    a lost database connection as "database unavailable" (the pool reconnects on the next call); anything else
    as an internal error whose details only reach the log, under the request id the client is given."""
    name = fn.__name__

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        rid = uuid.uuid4().hex[:12]
        token = request_id.set(rid)
        started = time.perf_counter()
        kind = "ok"
        try:
            return await fn(*args, **kwargs)
        except EngrainError as exc:
            kind = next(_ERROR_KINDS[c] for c in type(exc).__mro__ if c in _ERROR_KINDS)
            raise failure(str(exc), kind) from exc
        except (DBAPIError, OSError) as exc:
            kind = "unavailable"
            log.warning("%s: database error: %s", name, exc.__class__.__name__)
            message = (
                f"database unavailable ({exc.__class__.__name__}); the server reconnects on its own, "
                f"retry shortly (request {rid})"
            )
            raise failure(message, kind) from exc
        except Exception as exc:
            kind = "internal"
            log.exception("%s failed", name)
            raise failure(f"internal error (request {rid}); details are in the server log", kind) from exc
        finally:
            elapsed = time.perf_counter() - started
            counted.observe(name, kind, elapsed)
            log.info("%s %s in %.1f ms", name, kind, elapsed * 1000)
            request_id.reset(token)

    return wrapper


def tool_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A tool's failures as tool errors the model reads (`is_error` with the message), counted in /metrics."""
    return _answered(fn, lambda message, _kind: ToolError(message), metrics.TOOLS)


def resource_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A resource's failures as protocol errors with the message (an unknown id as "not found", -32602),
    counted in /metrics as the tools' are."""

    def failure(message: str, kind: str) -> Exception:
        return ResourceNotFoundError(message) if kind == "not_found" else ResourceError(message)

    return _answered(fn, failure, metrics.RESOURCES)


def describe_invalid_arguments(error: ValidationError) -> str:
    """One line naming each rejected argument and what it accepts, instead of pydantic's dump
    ("kind: 'bogus' is not one of 'fact', 'episodic' or 'procedural')."""
    return "invalid arguments: " + describe_validation(error)


def answers_a_task(task_id: str | None, answer: object) -> TypeGuard[str]:
    """Is this call the answer to a host task (`task_id` and `answer` given together)?"""
    if task_id is None and answer is None:
        return False
    if task_id is None or answer is None:
        raise InvalidInput(
            "task_id" if task_id is None else "answer",
            "task_id and answer go together: answer the task a needs_model result gave",
        )
    return True


def structured(summary: str, model: BaseModel) -> CallToolResult:
    """A short human-readable text plus the model as structuredContent (its schema is the outputSchema)."""
    return CallToolResult(
        content=[TextContent(type="text", text=summary)],
        structured_content=model.model_dump(mode="json"),
    )


def with_note(text: str, note: str | None) -> str:
    """A result's text with the one line engrain has for the model at its end (a reflection is due)."""
    return f"{text}\n{note}" if note else text


def plural(count: int, noun: str) -> str:
    """ "1 memory", "2 memories", "0 traits": counts in tool texts read as English."""
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun[:-1] + 'ies' if noun.endswith('y') and noun[-2:-1] not in 'aeiou' else noun + 's'}"


def redaction_line(kinds: dict[str, int] | None) -> str:
    """The line that says which secrets were replaced before storing ("" when none were)."""
    if not kinds:
        return ""
    named = ", ".join(f"{n} × {kind}" if n > 1 else kind for kind, n in kinds.items())
    return f"\nSecrets are never stored: replaced by placeholders ({named})."


def words_only_line(reason: str | None) -> str:
    """The line that says a write was stored by its words only, and why ("" when it was embedded)."""
    return f"\nStored by its words only: {reason}; engrain://status says why." if reason else ""


def may_replace_lines(pairs: list[tuple[str, str, str, str]]) -> str:
    """The lines that name, for each memory just stored (id, words), an older fact it may end (id, words), which the
    rules could not settle: the calling model knows what the user meant ("" when there is none)."""
    if not pairs:
        return ""
    lines = [
        f"- {short_id(new_id)} {quoted(new, 80)} may replace {short_id(old_id)} {quoted(old, 100)}"
        for new_id, new, old_id, old in pairs
    ]
    return (
        "\nMay end an older fact (if it does, call remember with the new memory's words and supersedes=<the older "
        "id>; otherwise nothing to do):\n" + "\n".join(lines)
    )


def shorten(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
