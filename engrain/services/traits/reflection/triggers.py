"""When a user's new memories call for a reflection (docs/SPEC.md §7 triggers): the first time, once
their importance adds up or enough of them wait, or a day after the last one; never twice within a minute over
fewer than that."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage import cycles as cycle_repo
from engrain.storage.cycles import Mark

IMPORTANCE_TRIGGER = 30
# A model is asked to reflect (the line at the end of a result, reflection/due.py) only when the new memories
# are worth its time: this many, or their importance past IMPORTANCE_TRIGGER. The scheduler's digest, which
# costs no conversation, follows the triggers alone.
WORTH_ASKING_MEMORIES = 5
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


def worth_asking(trigger: Trigger, pending: int, importance: int) -> bool:
    """Should a tool's result ask the calling model to reflect? Only when a reflection is due and has enough to
    read: one memory is no pattern, and the first one a user tells is not worth a turn of the conversation."""
    return trigger.triggered and (pending >= WORTH_ASKING_MEMORIES or importance >= IMPORTANCE_TRIGGER)


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
    if count >= WORTH_ASKING_MEMORIES:
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
