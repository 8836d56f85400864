"""Whether a reflection is due, said where every client passes it on: at the end of a remember or recall
result. Claude Desktop and others do not read the server's instructions, so a model learns that memories
wait to be digested (or that a task waits for it) only from a tool's result.

The line is said only when enough new evidence has arrived (`triggers.enough_evidence`: memories told on several
days of the user's time), never after every conversation (issue 61). A user's reflection state is read at most every
DUE_SECONDS, in the background once read (services/recall/refreshing.py), so recall never waits for it after the
first call; what this process stored since that reading is added to it — how many, their importance and the days
they were told on — so the line a `remember` result ends with counts the memory it just stored without reading the
state again. A call that cannot say when what it stored was told (an ingested conversation) reads it again.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from engrain.services.recall.refreshing import RefreshingCache
from engrain.services.traits.reflection import triggers
from engrain.storage import chat_imports as queue_repo
from engrain.storage import cycles as cycle_repo
from engrain.storage import host_tasks as task_repo

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

DUE_SECONDS = 30.0
USERS_KEPT = 1024


@dataclass(frozen=True)
class _State:
    """A user's reflection state as read at `read_at` (monotonic seconds, when the reading began)."""

    read_at: float
    waiting: bool  # a host task waits for the calling model
    mark: datetime | None  # the watermark's time
    pending: int  # new memories past it
    importance: int  # and their importance
    days: frozenset[date]  # the days (UTC) of told time they were told on (up to triggers.DUE_DAYS of them)
    imports: int  # pieces of imported chat history waiting for the calling model (0 when a server model reads them)


class ReflectionDue:
    """`host_reads_imports`: the server has no model of its own, so the calling model reads the imported history
    (services/memories/import_queue.py), and is told when some waits."""

    def __init__(self, runtime: Runtime, host_reads_imports: bool) -> None:
        self.rt = runtime
        self.host_reads_imports = host_reads_imports
        self._states = RefreshingCache(self._state, runtime.spawn, ttl=DUE_SECONDS, max_entries=USERS_KEPT)
        # What this process stored for each user since: (when, memories, importance, the days they were told on).
        self._stored: defaultdict[str, list[tuple[float, int, int, frozenset[date]]]] = defaultdict(list)

    async def note(
        self, user_id: str, *, stored: int = 0, importance: int = 0, told: Iterable[datetime] | None = ()
    ) -> str | None:
        """One short line for the end of a result, or None when nothing is worth saying. `stored`: the new
        memories the calling tool just stored (with their `importance` summed and the times they were `told`),
        counted at once; `told` None: not known here, so the state is read again."""
        if stored:
            days = frozenset(t.astimezone(UTC).date() for t in told) if told is not None else frozenset[date]()
            self._stored[user_id].append((time.monotonic(), stored, importance, days))
        state = await (self._states.read(user_id) if stored and told is None else self._states.get(user_id))
        since = [entry for entry in self._stored.get(user_id, []) if entry[0] >= state.read_at]
        if since:
            self._stored[user_id] = since
        else:
            self._stored.pop(user_id, None)
        pending = state.pending + sum(n for _, n, _, _ in since)
        importance_since = state.importance + sum(i for _, _, i, _ in since)
        days = len(state.days.union(*(d for _, _, _, d in since)))
        return _line(state, pending, importance_since, days, self.rt.clock())

    async def read(self, user_id: str) -> str | None:
        """The same line read now, for the profile (read seldom, and expected to be current)."""
        state = await self._state(user_id)
        return _line(state, state.pending, state.importance, len(state.days), self.rt.clock())

    def settled(self) -> None:
        """A reflection ran or a task was answered: read again on the next call."""
        self._states.forget()
        self._stored.clear()

    async def _state(self, user_id: str) -> _State:
        began = time.monotonic()
        now = self.rt.clock()
        async with (await self.rt.database()).sessions() as s:
            waiting = await task_repo.open_count(s, user_id, now)
            mark = await cycle_repo.watermark(s, user_id)
            pending, importance = await cycle_repo.importance_since(s, user_id, mark)
            days = (
                await cycle_repo.told_days_since(s, user_id, mark, triggers.DUE_DAYS) if pending else frozenset[date]()
            )
            imports = (await queue_repo.waiting(s, user_id)).pieces if self.host_reads_imports else 0
        return _State(began, bool(waiting), mark.at if mark else None, pending, importance, days, imports)


def _line(state: _State, pending: int, importance: int, days: int, now: datetime) -> str | None:
    if state.waiting:
        return "A reflection task waits for you: call reflect to get it."
    trigger = triggers.decide(state.mark, pending, importance, now)
    if triggers.worth_asking(trigger, pending, days):
        count = f"{pending} new memor{'y' if pending == 1 else 'ies'}"
        return f"Reflection due ({count} to digest): call reflect when the conversation allows."
    if state.imports:
        count = f"{state.imports} piece{'' if state.imports == 1 else 's'}"
        return (
            f"The user's imported chat history waits to be read ({count}): call reflect when the conversation allows."
        )
    return None
