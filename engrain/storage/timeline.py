"""The user's clock: where "now" is on the user's own timeline.

The user's clock runs at the server's speed from the latest moment the user told engrain anything:
`user_now = t + (now - s)`, where t is the latest told time (`told_at`) of the user's memories and s
is when that memory was stored (`created_at`). For a live user t = s, so it is the server's clock.
For a history imported a minute ago it is the history's last day plus that minute: recall ranks the
history as it would have on its last day, and the trait lifecycle (trend windows, decay) runs over
its months instead of judging everything by the day it was imported. Time the user spends away
counts, as it would have then.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.rules.digests import DIGEST


def _clock_sql(user: str, extra: str = "") -> str:
    """The clock of the user `user` at the server time `:now` as a scalar subquery; NULL for a user with
    nothing told yet. One backward probe of the (user_id, told_at) index."""
    return (
        "(SELECT least(u.told_at + (CAST(:now AS timestamptz) - u.created_at), CAST(:now AS timestamptz))"
        f" FROM memories u WHERE u.user_id = {user} AND u.told_at <= :now{extra}"
        " ORDER BY u.told_at DESC LIMIT 1)"
    )


def user_now_sql(user: str, extra: str = "") -> str:
    """The clock of the user `user` (an SQL expression) at the server time `:now`, as a scalar subquery
    (:now itself for a user with nothing told yet). `extra`: a further condition on the alias `u` of their
    memories."""
    return f"coalesce({_clock_sql(user, extra)}, CAST(:now AS timestamptz))"


# A memory `u` at or before the reflection watermark of its user (`w`, their user_state row): a model has looked at
# it. The SQL of storage/cycles.Mark.after, turned round; NULL when the user has no watermark.
_SEEN = (
    "(u.created_at < w.last_reflected_at OR (u.created_at = w.last_reflected_at"
    " AND (w.last_reflected_id IS NULL OR u.id <= w.last_reflected_id)))"
)


def reflected_told_sql(user: str) -> str:
    """The latest told time among the memories of `user` a reflection has looked at (at or before the
    reflection watermark, storage/cycles.Mark); '-infinity' when none has. Unlike the user's clock it does
    not run on: it moves only when a model has seen what was told. A backward probe of the (user_id, told_at)
    index that stops at the first memory looked at (the newest told are the ones still waiting)."""
    return (
        "coalesce((SELECT u.told_at FROM memories u JOIN user_state w ON w.user_id = u.user_id"
        f" WHERE u.user_id = {user} AND {_SEEN}"
        " ORDER BY u.told_at DESC LIMIT 1), '-infinity'::timestamptz)"
    )


def waiting_since_sql(user: str, since: str) -> str:
    """Whether a memory of `user` told at or after `since` (SQL expressions) waits past the reflection watermark:
    told, and not yet shown to a model (a reflection's hand-out does not move the watermark; its answer does).
    A backward probe of the (user_id, told_at) index."""
    return (
        f"EXISTS (SELECT 1 FROM memories u LEFT JOIN user_state w ON w.user_id = u.user_id"
        f" WHERE u.user_id = {user} AND u.told_at >= {since} AND u.kind NOT IN ('trait', 'reply', '{DIGEST}')"
        f" AND u.valid_until IS NULL AND NOT coalesce({_SEEN}, false))"
    )


async def user_now(session: AsyncSession, user_id: str, now: datetime) -> datetime:
    """`user_now_sql` for one user."""
    value = await session.scalar(text(f"SELECT {user_now_sql(':user')}"), {"user": user_id, "now": now})
    assert isinstance(value, datetime)
    return value


async def write_present(session: AsyncSession, user_id: str, now: datetime, told: datetime) -> datetime:
    """The user's present for a write whose latest told time is `told` (rules/plans.on_arrival judges its plans
    there): the later of the user's clock and `told`. A fresh home has no clock yet: a conversation stored there
    is judged at its own time, as is each conversation of a history stored in order; a live user's clock is
    the server's, so a plan told long ago arrives as history. A write told now needs no reading."""
    if told >= now:
        return now
    clock = await session.scalar(text(f"SELECT {_clock_sql(':user')}"), {"user": user_id, "now": now})
    return max(clock, told) if isinstance(clock, datetime) else told
