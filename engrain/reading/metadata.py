"""What engrain keeps in a memory's `metadata` (a JSONB column): one home for every key it writes and reads.

The reading of a text leaves its findings there (the steps of a procedure, the date phrase and the time phrase,
a habit's recurrence, the single-valued fact a statement fills); the services add marks (which memory a
statement may replace, a dismissed trait, a trait the user was asked about, a trait's last decay); recall reads
a client's `emotion` (`engrain import`). Anything else in the column came from the client and is kept as
given.

Code reads the column through `MemoryMetadata.of`, writes it through `stored`/`with_marks`, and names a key in
SQL through `Key`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError


class Key(StrEnum):
    PROCEDURE_STEPS = "procedure_steps"  # a procedure's steps, in order (reading/enrich)
    DATE_TEXT = "date_text"  # the words that gave the event time (reading/enrich)
    TIME_PHRASE = "time_phrase"  # a phrase of time recall matches "when did…" questions on (reading/enrich)
    RECURRENCE = "recurrence"  # a habit's recurrence ("every Sunday"): a rule, never an upcoming plan
    SLOT = "slot"  # the single-valued fact the statement fills ("user:city"): a later value replaces it
    SLOT_VALUE = "slot_value"  # that fact's value, normalized
    MAY_REPLACE = "may_replace"  # the id of the memory an unsure statement may replace (the next reflection asks)
    # A memory whose value of a key a later memory replaced while the rest of it holds ("I live in Manchester
    # with my partner Sam" after a move): the key it held, and the memory that holds it now.
    REPLACED_KEY = "replaced_key"
    REPLACED_BY = "replaced_by"
    DISMISSED_AT = "dismissed_at"  # a trait the user dismissed: never inferred again (ISO time)
    CORE_ASKED_AT = "core_asked_at"  # a trait the user was asked to confirm before core (ISO time)
    LAST_DECAY_AT = "last_decay_at"  # the time up to which a trait's confidence has decayed (ISO time)
    EMOTION = "emotion"  # a client's {valence, arousal}: a vivid memory stays recent longer (rules/recall.recency)
    STANDING = "standing"  # a standing instruction or preference of the user's (reading/standing.py)
    DIGEST = "digest"  # a digest's topic and the ids of the memories it draws on (rules/digests.py)
    # A plan whose time passed (it arrived as history, or the expiry pass made it so: rules/plans.py): every text
    # marks it "past plan", so that "I'm going to open a studio next month" never reads as what is ahead.
    WAS_PLAN = "was_plan"


class Digest(BaseModel):
    """What a digest summarizes: its topic, as the model named it, and the memories it draws on (ids)."""

    model_config = ConfigDict(frozen=True)

    topic: str
    evidence: list[str]


class MemoryMetadata(BaseModel):
    """The typed view of the column; keys engrain does not know are kept as extras."""

    model_config = ConfigDict(extra="allow", frozen=True)

    procedure_steps: list[str] | None = None
    date_text: str | None = None
    time_phrase: str | None = None
    recurrence: str | None = None
    slot: str | None = None
    slot_value: str | None = None
    may_replace: str | None = None
    replaced_key: str | None = None
    replaced_by: str | None = None
    dismissed_at: str | None = None
    core_asked_at: str | None = None
    last_decay_at: str | None = None
    emotion: dict[str, Any] | None = None
    standing: Literal["instruction", "preference"] | None = None
    digest: Digest | None = None
    was_plan: bool | None = None

    @classmethod
    def of(cls, raw: Mapping[str, Any] | None) -> MemoryMetadata:
        """The stored column, read. A known key holding a value of another type (an import may carry anything)
        reads as absent: a reading path never fails on a stored value."""
        values = dict(raw or {})
        while True:
            try:
                return cls.model_validate(values)
            except ValidationError as exc:
                for error in exc.errors():
                    values.pop(str(error["loc"][0]), None)

    @property
    def habit(self) -> bool:
        """A habit: the text states a recurrence."""
        return self.recurrence is not None

    def stored(self) -> dict[str, Any]:
        """The column's value: the keys that are set, and the client's own."""
        return self.model_dump(exclude_none=True)

    def with_marks(self, **marks: str) -> dict[str, Any]:
        """The column's value with marks set (Key names as keyword arguments)."""
        known = {key.value for key in Key}
        unknown = sorted(set(marks) - known)
        if unknown:
            raise ValueError(f"not engrain metadata keys: {', '.join(unknown)}")
        return {**self.stored(), **marks}
