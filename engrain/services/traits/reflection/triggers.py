"""When a user's new memories call for a reflection (docs/SPEC.md §7 triggers): the first time, once their importance
adds up or enough of them wait, or a day after the last one; never twice within a minute over fewer than that. And
when the calling model is asked to (the line at the end of a result): only when enough new evidence has arrived —
memories told on several days of the user's own time, or more than a task should show at once."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage import cycles as cycle_repo
from engrain.storage.cycles import Mark

IMPORTANCE_TRIGGER = 30
# Enough new evidence (issue 61: "reflection due" after 21 of 30 sessions made a trait's stage follow how often the
# model was asked): memories told on this many days of the user's time — a pattern needs several occasions, and one
# conversation's memories show at most what the traits already say — or this many memories, whatever their days
# (a long history told on one day), with at least DUE_MIN_MEMORIES in any case.
DUE_DAYS = 3
DUE_MEMORIES = 100
DUE_MIN_MEMORIES = 5
SCHEDULED_AFTER = timedelta(hours=24)
IDEMPOTENCY_WINDOW = timedelta(seconds=60)


@dataclass
class Trigger:
    triggered: bool
    type: str | None
    value: float | None
    reason: str | None = None
    pending: int = 0  # new memories since the watermark


@dataclass
class Reading:
    """A user's reflection state: the watermark, the importance learned since, and the trigger."""

    mark: Mark | None
    importance: int
    trigger: Trigger

    def forced(self) -> Trigger:
        """A reflection asked for although nothing triggered it, named as the checks would have named it."""
        if self.mark is None:
            kind = "first_time"
        elif self.importance >= IMPORTANCE_TRIGGER:
            kind = "importance_accumulated"
        else:
            kind = "manual"
        return Trigger(True, kind, float(self.importance), pending=self.trigger.pending)


async def read(session: AsyncSession, user_id: str, now: datetime) -> Reading:
    mark = await cycle_repo.watermark(session, user_id)
    count, importance = await cycle_repo.importance_since(session, user_id, mark)
    trigger = decide(mark.at if mark else None, count, importance, now)
    trigger.pending = count
    return Reading(mark, importance, trigger)


def enough_evidence(count: int, days: int) -> bool:
    """Has enough new evidence arrived to ask the calling model to reflect (the line at the end of a result)?"""
    return count >= DUE_MEMORIES or (days >= DUE_DAYS and count >= DUE_MIN_MEMORIES)


def worth_asking(trigger: Trigger, count: int, days: int) -> bool:
    """Should a tool's result ask the calling model to reflect? Only on enough evidence, never on how often it is
    asked (issue 61: "reflection due" after 21 of 30 sessions). `reflect` itself (and the scheduler's digest, which
    costs no conversation) follows the triggers, which enough evidence always meets: a model told it is due finds
    `reflect` agreeing."""
    return trigger.triggered and enough_evidence(count, days)


def decide(mark: datetime | None, count: int, importance: int, now: datetime) -> Trigger:
    """On the user's activity first (issue 52): enough new memories call for a reflection however little wall
    time passed — a history imported in minutes spans months, and a minute's or a day's rule of the server's
    clock left 87 days of the user's time unreflected. The 60-second window only keeps a reflection from
    running twice over the same few memories."""
    if count == 0:
        return Trigger(False, None, None, "no new memories since the last reflection")
    if mark is None:
        return Trigger(True, "first_time", None)
    if importance >= IMPORTANCE_TRIGGER:
        return Trigger(True, "importance_accumulated", float(importance))
    if count >= DUE_MIN_MEMORIES:
        return Trigger(True, "memories_accumulated", float(count))
    if now - mark < IDEMPOTENCY_WINDOW:
        return Trigger(False, None, None, "reflected less than 60 s ago")
    if now - mark >= SCHEDULED_AFTER:
        return Trigger(True, "scheduled", (now - mark).total_seconds() / 3600)
    return Trigger(
        False,
        None,
        float(importance),
        f"importance {importance} < {IMPORTANCE_TRIGGER} and last reflection < 24 h ago",
    )
