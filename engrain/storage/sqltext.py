"""The two places we put values into SQL text instead of bind parameters, and why."""

from __future__ import annotations

from collections.abc import Sequence


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form; sent as a string and cast in SQL, so no driver codec is needed."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def sql_literal(value: str) -> str:
    """Quote a constant we own (an embedder id), so the planner can match partial indexes on it;
    a bind parameter would hide the value from a generic plan."""
    return "'" + value.replace("'", "''") + "'"


def safe_exp(exponent: str) -> str:
    """exp() in SQL that returns 0 instead of raising: PostgreSQL reports float underflow as an error
    (exp(-746) and below), which a 60-year-old memory or a long-idle one would otherwise hit."""
    return f"exp(greatest(-700.0, {exponent}))"
