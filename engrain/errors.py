"""Failures a client can act on. Their text is shown to the client as is, so it names the
field or the component and says what to do; anything else is logged and reported generically."""

from __future__ import annotations

from pydantic import ValidationError


class EngrainError(Exception):
    """Base of every error whose message is meant for the client."""


class InvalidInput(EngrainError):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


class NotFound(EngrainError):
    def __init__(self, field: str, value: object, what: str = "memory") -> None:
        super().__init__(f"{field}: no {what} with id {value}")
        self.field = field


class Unavailable(EngrainError):
    """A component (database, embedding model) is down; the message says which and why."""


class QuotaExceeded(EngrainError):
    """The user has as many live memories as ENGRAIN_MAX_MEMORIES_PER_USER allows."""


def describe_validation(error: ValidationError) -> str:
    """A pydantic error as one line that names each bad field and what it accepts, for a client or a
    model to act on: "kind: 'bogus' is not one of 'fact', 'episodic' or 'procedural'; importance: must
    be a valid integer (got 'high')"."""
    parts: dict[str, str] = {}
    for err in error.errors():
        path = (
            "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(err["loc"]))
            or "value"
        )
        given = repr(err.get("input"))[:60]
        if err["type"] == "literal_error":
            text = f"{given} is not one of {err.get('ctx', {}).get('expected')}"
        elif err["type"] == "missing":
            text = "is required"
        else:
            text = err["msg"].removeprefix("Input ").replace("should be", "must be", 1) + f" (got {given})"
        parts.setdefault(path, f"{path}: {text}")
    return "; ".join(parts.values())
