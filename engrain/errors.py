"""Failures a client can act on. Their text is shown to the client as is, so it names the
field or the component and says what to do; anything else is logged and reported generically."""

from __future__ import annotations


class EngrainError(Exception):
    """Base of every error whose message is meant for the client."""


class InvalidInput(EngrainError):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


class NotFound(EngrainError):
    def __init__(self, field: str, value: object) -> None:
        super().__init__(f"{field}: no memory with id {value}")
        self.field = field


class Unavailable(EngrainError):
    """A component (database, embedding model) is down; the message says which and why."""


class QuotaExceeded(EngrainError):
    """The user has as many live memories as ENGRAIN_MAX_MEMORIES_PER_USER allows."""
