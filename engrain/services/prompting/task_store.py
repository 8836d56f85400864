"""Host tasks, whatever their kind: work handed to the calling model in one tool call and answered in another.

A user has at most one open task (a new one replaces it); a task expires after ENGRAIN_HOST_TASK_TTL; it is
answered once. `open` stores a task's typed state (task_states.py) in the caller's transaction and writes the
task's text; `find` gives back the task and its state for an answer, or refuses it — another user's or an
unknown id, a task of another tool, one already answered, replaced or expired — with what to do instead;
`close`, last in the answer's transaction, refuses an answer that another one beat to it, and so undoes it.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import InvalidInput, NotFound
from engrain.providers.llm import Prompt
from engrain.services.prompting.task_states import TaskState, state_of
from engrain.storage import host_tasks as task_repo
from engrain.storage.db import Database
from engrain.storage.models import HostTask

S = TypeVar("S", bound=TaskState)


@dataclass(frozen=True)
class OpenedTask:
    id: str
    text: str  # the whole task as the calling model reads it


def task_text(task_id: str, expires: datetime, prompt: Prompt, state: TaskState) -> str:
    """A task for the calling model, whole: what to do, in its own terms, then the prompt itself."""
    return "\n".join(
        [
            f"engrain task {task_id}: {state.WHAT}",
            f"Do it now, then go on with the conversation. {state.HINT}Then call `{state.TOOL}` with "
            f'task_id="{task_id}" and answer = the JSON object described at the end (until '
            f"{expires.isoformat(timespec='minutes')}).",
            "",
            prompt.system,
            "",
            prompt.user,
        ]
    )


def _task_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value).strip())
    except ValueError:
        raise InvalidInput("task_id", f"{str(value)[:60]!r} is not a task id (a UUID)") from None


class TaskStore:
    def __init__(
        self, ttl_seconds: float, clock: Callable[[], datetime], database: Callable[[], Awaitable[Database]]
    ) -> None:
        self.ttl = timedelta(seconds=ttl_seconds)
        self.clock, self.database = clock, database

    async def open(self, s: AsyncSession, user_id: str, state: TaskState, prompt: Prompt) -> OpenedTask:
        """A new open task in the caller's transaction (the user's earlier open one is replaced)."""
        now = self.clock()
        expires = now + self.ttl
        task_id = str(await task_repo.open_task(s, user_id, state.KIND, state.stored(), now, expires))
        return OpenedTask(task_id, task_text(task_id, expires, prompt, state))

    async def find(self, user_id: str, task_id: str, model: type[S]) -> tuple[HostTask, S]:
        """The user's task `task_id` and its state, if it may be answered now with `model`'s tool."""
        tid = _task_id(task_id)
        db = await self.database()
        async with db.sessions() as s:
            task = await task_repo.find(s, user_id, tid)
        if task is None:
            raise NotFound("task_id", tid, "task")
        state = state_of(task)
        if not isinstance(state, model):
            raise InvalidInput("task_id", f"is a task for {state.TOOL}: answer it there")
        if task.status == "answered":
            answered = task.answered_at.isoformat(timespec="seconds") if task.answered_at else "before"
            raise InvalidInput(
                "task_id",
                f"was already answered ({answered}); nothing was applied again. Call {state.TOOL} for a new task",
            )
        if task.status == "replaced":
            raise InvalidInput("task_id", "was replaced by a newer task (a user has one open task): answer that one")
        if task.status == "open" and task.expires_at <= self.clock():
            raise InvalidInput(
                "task_id",
                f"expired at {task.expires_at.isoformat(timespec='seconds')}: call {state.TOOL} again for a new task",
            )
        return task, state

    async def close(self, s: AsyncSession, task: HostTask, result: dict[str, Any]) -> None:
        """Answered, with what the answer did (ids and counts, never a memory's words). Called in the answer's
        transaction after it is applied and before a follow-up task is opened; refused (and so the whole answer
        undone) when a concurrent answer closed the task meanwhile."""
        if not await task_repo.close(s, task.user_id, task.id, self.clock(), result):
            raise InvalidInput("task_id", "was already answered; nothing was applied again")
