"""When a user's new memories call for a reflection (docs/SPEC.md §7 triggers): when enough new evidence has
arrived — memories told on several days of the user's own time, or more than a task should show at once — not after
every conversation; a day of the server's clock after the last one for the scheduler's digest alone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage import cycles as cycle_repo
from engrain.storage.cycles import Mark

IMPORTANCE_TRIGGER = 30  # enough new evidence this important: the two-stage cycle (questions first)
# Enough new evidence (issue 61: "reflection due" after 21 of 30 sessions made a trait's stage follow how often the
# model was asked): memories told on this many days of the user's time — a pattern needs several occasions, and one
# conversation's memories show at most what the traits already say — or this many memories, whatever their days
# (a long history told on one day), with at least DUE_MIN_MEMORIES in any case.
DUE_DAYS = 3
DUE_MEMORIES = 100
DUE_MIN_MEMORIES = 5
SCHEDULED_AFTER = timedelta(hours=24)


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
    days = await cycle_repo.told_days_since(session, user_id, mark, DUE_DAYS) if count else 0
    trigger = decide(mark.at if mark else None, count, importance, days, now)
    trigger.pending = count
    return Reading(mark, importance, trigger)


def enough_evidence(count: int, days: int) -> bool:
    """Has enough new evidence arrived for a reflection (the line at the end of a result says it is due)?"""
    return count >= DUE_MEMORIES or (days >= DUE_DAYS and count >= DUE_MIN_MEMORIES)


def worth_asking(trigger: Trigger) -> bool:
    """Should a tool's result ask the calling model to reflect? Only on enough evidence: the scheduled trigger
    follows the server's clock, which says nothing of what the user told, and is the scheduler's alone."""
    return trigger.triggered and trigger.type != "scheduled"


def decide(mark: datetime | None, count: int, importance: int, days: int, now: datetime) -> Trigger:
    """On the evidence the user's new memories hold (`days`: on how many days of told time they were told), never on
    how often a model is asked (issue 61) nor on the server's clock (issue 52: a history imported in minutes spans
    months). The scheduler's digest, which costs no conversation, also reflects a day after the last reflection."""
    if count == 0:
        return Trigger(False, None, None, "no new memories since the last reflection")
    if enough_evidence(count, days):
        if mark is None:
            return Trigger(True, "first_time", float(count))
        if importance >= IMPORTANCE_TRIGGER:
            return Trigger(True, "importance_accumulated", float(importance))
        return Trigger(True, "memories_accumulated", float(count))
    if mark is not None and now - mark >= SCHEDULED_AFTER:
        return Trigger(True, "scheduled", (now - mark).total_seconds() / 3600)
    return Trigger(
        False,
        None,
        float(count),
        f"{count} new memor{'y' if count == 1 else 'ies'} told on {days} day{'' if days == 1 else 's'}: a reflection "
        f"waits for memories told on {DUE_DAYS} days (at least {DUE_MIN_MEMORIES}) or {DUE_MEMORIES} memories",
    )
