"""When a plan stops being one (docs/SPEC.md §5, issue 41), on the user's time, never the server's.

A dated plan is overdue once its whole period is over ("next month" is not overdue on its 2nd), and history
once the expiry pass sees it so. An undated plan ("I plan to learn Portuguese") is upcoming for
UNDATED_PLAN_DAYS after it was told, then history: told months earlier in an imported conversation, it is no
longer what the user is about to do.
"""

from __future__ import annotations

from datetime import datetime, timedelta

UNDATED_PLAN_DAYS = 30


def lapsed(event_time: datetime | None, told_at: datetime, at: datetime) -> bool:
    """An undated plan told more than UNDATED_PLAN_DAYS before the user's moment `at`."""
    return event_time is None and told_at < at - timedelta(days=UNDATED_PLAN_DAYS)


def over(event_time: datetime | None, event_end: datetime | None, at: datetime) -> bool:
    """A dated plan whose period (its end, else its start for rows without one) is over at `at`."""
    end = event_end or event_time
    return end is not None and end <= at


# The same rules as SQL over a memories row (`row`: its alias), at the moment `at` (an SQL expression): the
# expiry pass (storage/traits.py) and the profile's plans (storage/memories.plans_around).
def lapsed_sql(at: str, row: str = "m") -> str:
    return f"({row}.event_time IS NULL AND {row}.told_at < {at} - interval '{UNDATED_PLAN_DAYS} days')"


def over_sql(at: str, row: str = "m") -> str:
    return f"(coalesce({row}.event_end, {row}.event_time) <= {at})"
