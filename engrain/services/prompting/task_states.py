"""What a host task remembers between the call that hands it out and the call that answers it.

A task's state is a pydantic model declared by the domain whose work it hands out (traits: `ReflectTask`,
`ReviewTask`; memories: `ExtractTask`) and registered here by the task's kind (`@task_state`). It is stored
in the task row's `plan` JSONB as the model dumps it, and read back through `state_of`, so that every field
has a type and a default (a task stored before a field existed reads with the default, never a KeyError).
Kinds are the union of what is registered: a row of an unknown kind is refused, not guessed at.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from engrain.storage.models import HostTask


class TaskState(BaseModel):
    """A task's state. `KIND`: the task row's kind; `TOOL`: the tool that answers it; `WHAT`: the task in one
    line, as the calling model is told; `HINT`: what to do before answering, if anything."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    KIND: ClassVar[str]
    TOOL: ClassVar[str]
    WHAT: ClassVar[str]
    HINT: ClassVar[str] = ""

    def stored(self) -> dict[str, Any]:
        """The row's `plan`: ids and times as JSON, never the words of a memory."""
        return self.model_dump(mode="json")


S = TypeVar("S", bound=TaskState)
_STATES: dict[str, type[TaskState]] = {}


def task_state(cls: type[S]) -> type[S]:
    """Register a domain's task state under its kind (one model per kind)."""
    if _STATES.setdefault(cls.KIND, cls) is not cls:
        raise ValueError(f"two task states for the kind {cls.KIND!r}")
    return cls


def state_of(task: HostTask) -> TaskState:
    """The state of a stored task, as the model its kind registered."""
    model = _STATES.get(task.kind)
    if model is None:
        raise ValueError(f"no task state is registered for the kind {task.kind!r}")
    return model.model_validate(task.plan or {})
