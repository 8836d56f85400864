"""Whether a reflection is due, said where every client passes it on: at the end of a remember or recall
result. Claude Desktop and others do not read the server's instructions, so a model learns that memories
wait to be digested (or that a task waits for it) only from a tool's result.

Read per user at most every DUE_SECONDS, in the background once read (services/recall/refreshing.py):
remember and recall never wait for it after the first call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engrain.services.recall.refreshing import RefreshingCache
from engrain.services.traits.reflection import triggers
from engrain.storage import host_tasks as task_repo

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

DUE_SECONDS = 30.0
USERS_KEPT = 1024


class ReflectionDue:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self._notes = RefreshingCache(self._read, runtime.spawn, ttl=DUE_SECONDS, max_entries=USERS_KEPT)

    async def note(self, user_id: str) -> str | None:
        """One short line for the end of a result, or None when nothing is due."""
        return await self._notes.get(user_id)

    async def read(self, user_id: str) -> str | None:
        """The same line read now, for the profile (read seldom, and expected to be current)."""
        return await self._read(user_id)

    def settled(self) -> None:
        """A reflection ran or a task was answered: read again on the next call."""
        self._notes.forget()

    async def _read(self, user_id: str) -> str | None:
        now = self.rt.clock()
        async with (await self.rt.database()).sessions() as s:
            waiting = await task_repo.open_count(s, user_id, now)
            trigger = (await triggers.read(s, user_id, now)).trigger
        if waiting:
            return "A reflection task waits for you: call reflect to get it."
        if trigger.triggered:
            count = f"{trigger.pending} new memor{'y' if trigger.pending == 1 else 'ies'}"
            return f"Reflection due ({count} to digest): call reflect when the conversation allows."
        return None
