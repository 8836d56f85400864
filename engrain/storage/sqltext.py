"""Fragments of SQL text built in Python, and why: the two places we put values into the text instead of
bind parameters, and the key look-ups of a memory that no stale statistics can turn into a scan."""

from __future__ import annotations

from collections.abc import Sequence


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form, the one form every vector is sent in (queries, probes, inserts): a string cast
    in SQL, so no driver codec is needed. Nine significant digits give back every float32 exactly (pgvector
    stores float32); pgvector's own SQLAlchemy type writes seventeen, which takes twice as long to format
    and half as long again to send and parse (docs/performance.md)."""
    return "[" + ",".join([f"{x:.9g}" for x in vector]) + "]"


def sql_literal(value: str) -> str:
    """Quote a constant we own (an embedder id), so the planner can match partial indexes on it;
    a bind parameter would hide the value from a generic plan."""
    return "'" + value.replace("'", "''") + "'"


def safe_exp(exponent: str) -> str:
    """exp() in SQL that returns 0 instead of raising: PostgreSQL reports float underflow as an error
    (exp(-746) and below), which a 60-year-old memory or a long-idle one would otherwise hit."""
    return f"exp(greatest(-700.0, {exponent}))"


def memory_behind(row: str, columns: str, where: str | None = None) -> str:
    """A LATERAL look-up of the memory row `m` that row `row` points at by its `user_id` and `id` (one
    primary-key probe a row): for statements that walk the user's vectors (in HNSW order for a large user)
    or links or candidates and keep the memories that pass `where`. Neither `where` nor `row` may give the user
    as a constant (the row's `user_id` column carries it), or the planner is back to the estimate below.

    OFFSET 0 keeps PostgreSQL from folding the look-up into a join (a subquery with OFFSET is never pulled
    up). A join is planned from the estimate of the user's rows, and a user the column statistics do not
    list (one who joined or grew since the last ANALYZE, among up to ~100 users who are all listed) is
    estimated at one row; the planner then ties a join that reads every row of the user's for each vector
    with the key look-up, and picks it: 19 to 34 times slower than by key for a user told 2,500
    memories after the last ANALYZE (bench/unknown_user.py --hold; docs/performance.md)."""
    return f" CROSS JOIN LATERAL (SELECT {columns} FROM memories m WHERE {_keyed(row, 'id', where)}) AS m"


def memory_passes(row: str, where: str, id_column: str = "id") -> str:
    """Whether the memory `m` that row `row` points at (by `user_id` and `id_column`) passes `where`: the
    test of memory_behind, as a filter (a subplan run for each row, never folded into a join, for the
    reason memory_behind gives). The planner costs it as a filter that keeps a share of the rows, so a
    small user's vectors are still read in full and sorted, where the LATERAL form made that look dear and
    sent the user to the approximate HNSW scan."""
    return f"EXISTS (SELECT FROM memories m WHERE {_keyed(row, id_column, where)})"


def _keyed(row: str, id_column: str, where: str | None) -> str:
    passes = f" AND {where}" if where else ""
    return f"m.user_id = {row}.user_id AND m.id = {row}.{id_column}{passes} OFFSET 0"
