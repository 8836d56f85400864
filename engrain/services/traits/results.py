"""What the traits domain answers with: a reflection's result, a review's, and the views of traits.
Their fields and descriptions are the tools' output schemas."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from engrain.services.memories.results import HistoryEntry
from engrain.storage.models import Memory
from engrain.storage.traits import Evidence

Action = Literal["endorse", "dismiss", "edit"]


class ReflectResult(BaseModel):
    triggered: bool
    trigger_type: str | None = None
    reason: str | None = None
    memories_scanned: int = 0
    traits_created: int = 0
    traits_updated: int = 0
    traits_dissolved: int = 0
    links_created: int = 0
    digests_written: int = Field(
        default=0, description="Topic digests written (a new one, or a current one rewritten whole) by the answer."
    )
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


@dataclass(frozen=True)
class NotTriggered:
    """No cycle: nothing is due and it was not forced (`reason` says why)."""

    reason: str
    llm: str = "none"
    pending: int = 0  # the memories waiting for a reflection (issue 42: a refusal said 0 when dozens waited)


@dataclass(frozen=True)
class Busy:
    """No cycle: another reflection of this user is running."""

    llm: str
    REASON: ClassVar[str] = "a reflection for this user is already running"


@dataclass
class Reflected:
    """A cycle that ran: what it changed. `status` completed: a model looked at the new memories; code_only: no
    model did (they stay pending); failed: the model's answer failed (`error`), the code-only results stand."""

    cycle_id: str
    trigger_type: str | None
    status: Literal["completed", "code_only", "failed"]
    llm: str
    memories_scanned: int = 0
    traits_created: int = 0
    traits_updated: int = 0
    traits_dissolved: int = 0
    links_created: int = 0
    digests_written: int = 0
    error: str | None = None
    llm_calls: int = 0
    memories_pending: int = 0


@dataclass(frozen=True)
class NeedsModel:
    """A cycle that ran its code-only steps and hands the calling model a task (the host route)."""

    cycle: Reflected
    task_id: str
    task: str


@dataclass(frozen=True)
class ImportHandedOut:
    """No cycle: the calling model is handed a piece of the user's imported history to read first
    (services/memories/import_queue.py); `waiting`: the pieces waiting, this one included."""

    task_id: str
    task: str
    waiting: int


# What a reflect call comes to: exactly one of these.
Outcome = NotTriggered | Busy | Reflected | NeedsModel | ImportHandedOut


def reflect_result(outcome: Outcome, user_confirmation: str | None = None) -> ReflectResult:
    """The outcome as the `reflect` tool answers it (its outputSchema is ReflectResult's)."""
    match outcome:
        case NotTriggered(reason=reason, llm=llm, pending=pending):
            return ReflectResult(
                triggered=False, reason=reason, llm=llm, memories_pending=pending, user_confirmation=user_confirmation
            )
        case Busy(llm=llm):
            return ReflectResult(triggered=False, reason=Busy.REASON, llm=llm, user_confirmation=user_confirmation)
        case NeedsModel(cycle=cycle, task_id=task_id, task=task):
            shown = reflect_result(cycle, user_confirmation)
            return shown.model_copy(update={"status": "needs_model", "task_id": task_id, "task": task})
        case Reflected():
            return ReflectResult(triggered=True, **asdict(outcome), user_confirmation=user_confirmation)
        case ImportHandedOut(task_id=task_id, task=task, waiting=waiting):
            return ReflectResult(
                triggered=False,
                reason=(
                    "1 piece of the imported chat history waits"
                    if waiting == 1
                    else f"{waiting} pieces of the imported chat history wait"
                )
                + " for a model; this task hands out the oldest",
                llm="host",
                status="needs_model",
                task_id=task_id,
                task=task,
                user_confirmation=user_confirmation,
            )


class ReviewResult(BaseModel):
    id: str
    action: Action
    content: str
    stage: str
    confidence: float
    evidence_id: str | None = Field(default=None, description="endorse: the confirmation memory added as evidence.")


class TraitView(BaseModel):
    id: str
    content: str
    subtype: str | None
    stage: str | None
    confidence: float | None
    context: str | None
    reinforcement_count: int
    contradiction_count: int
    first_observed: datetime | None
    last_reinforced: datetime | None
    window_end: datetime | None = None
    parent_id: str | None = None
    supporting_ids: list[str] | None = None
    contradicting_ids: list[str] | None = None

    @classmethod
    def of(cls, t: Memory, evidence: list[Evidence] | None = None) -> TraitView:
        view = cls(
            id=str(t.id),
            content=t.content,
            subtype=t.trait_subtype,
            stage=t.trait_stage,
            confidence=round(t.trait_confidence, 6) if t.trait_confidence is not None else None,
            context=t.trait_context,
            reinforcement_count=t.trait_reinforcement_count or 0,
            contradiction_count=t.trait_contradiction_count or 0,
            first_observed=t.trait_first_observed,
            last_reinforced=t.trait_last_reinforced,
            window_end=t.trait_window_end,
            parent_id=str(t.trait_parent_id) if t.trait_parent_id else None,
        )
        if evidence is not None:
            mine = [e for e in evidence if e.trait_id == t.id]
            view.supporting_ids = [str(e.memory_id) for e in mine if e.polarity == "supporting"]
            view.contradicting_ids = [str(e.memory_id) for e in mine if e.polarity == "contradicting"]
        return view


class TraitList(BaseModel):
    traits: list[TraitView]
    min_stage: str
    total: int = Field(description="How many traits matched before `limit`.")
    as_of: datetime | None = Field(default=None, description="The moment the list is as of (time travel).")


class EvidenceView(BaseModel):
    """A memory cited for or against a trait (times in ISO 8601)."""

    id: str
    content: str
    kind: str
    quality: str | None
    event_time: str | None
    told_at: str  # when the user said it: what the time gates count
    learned_at: str
    cited_at: str

    @classmethod
    def of(cls, e: Evidence) -> EvidenceView:
        return cls(
            id=str(e.memory_id),
            content=e.content,
            kind=e.kind,
            quality=e.quality,
            event_time=e.event_time.isoformat() if e.event_time else None,
            told_at=e.told_at.isoformat(),
            learned_at=e.learned_at.isoformat(),
            cited_at=e.created_at.isoformat(),
        )


class TraitChild(BaseModel):
    id: str
    content: str
    subtype: str | None


class TraitDetail(TraitView):
    """A trait with the memories for and against it, its children and its history (`engrain://traits/{id}`)."""

    supporting_ids: list[str] | None = Field(default=None, exclude=True)  # listed whole in `supporting`
    contradicting_ids: list[str] | None = Field(default=None, exclude=True)
    supporting: list[EvidenceView]
    contradicting: list[EvidenceView]
    children: list[TraitChild]
    history: list[HistoryEntry]
    # How its supporting evidence lies on the user's time, and what the next stage needs (the time gates).
    spread: str
