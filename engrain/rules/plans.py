"""When a plan stops being one (docs/SPEC.md §5, issues 41 and 52), on the user's time, never the server's.

One clock for every path: a plan is judged at the user's present — on arrival, the present of the write
(`storage/timeline.write_present`: the later of the user's clock and the write's own told time), and after it
the user's clock (`storage/timeline.user_now`), in recall's marks, the intentions, the profile, reflection's
tasks and the expiry pass alike.

A dated plan is overdue once its whole period is over ("next month" is not overdue on its 2nd), and history
once the expiry pass sees it so. An undated plan ("I plan to learn Portuguese") is upcoming for
UNDATED_PLAN_DAYS after it was told, then history: told months earlier in an imported conversation, it is no
longer what the user is about to do.
"""

from __future__ import annotations

from datetime import datetime, timedelta

UNDATED_PLAN_DAYS = 30


def on_arrival(
    temporality: str, event_time: datetime | None, event_end: datetime | None, told_at: datetime, present: datetime
) -> str:
    """A plan told before `present` whose period was over by then arrives as history, not as an overdue plan:
    "I'm going to paint the fence this weekend", told last May to a user whose clock is now at today. Told in a
    conversation whose time is the user's present (an imported history, a fresh home), it is still a plan."""
    if (
        temporality == "prospective"
        and event_time is not None
        and told_at < present
        and over(event_time, event_end, present)
    ):
        return "historical"
    return temporality


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
