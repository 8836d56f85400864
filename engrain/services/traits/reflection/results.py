"""What a reflection reports, to the `reflect` tool, the scheduler and host tasks."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ReflectResult(BaseModel):
    triggered: bool
    trigger_type: str | None = None
    reason: str | None = None
    memories_scanned: int = 0
    traits_created: int = 0
    traits_updated: int = 0
    traits_dissolved: int = 0
    links_created: int = 0
    cycle_id: str | None = None
    status: str | None = None
    error: str | None = None
    llm: str = "none"
    llm_calls: int = 0
    user_confirmation: str | None = Field(
        default=None, description="What the user said (elicitation) about a trait about to become core, if asked."
    )
    memories_pending: int = Field(
        default=0, description="New memories no model has looked at yet: the next reflection with a model sees them."
    )
    task_id: str | None = Field(
        default=None, description="status needs_model: the task to answer with reflect(task_id, answer)."
    )
    task: str | None = Field(default=None, description="status needs_model: what the calling model is asked to do.")
