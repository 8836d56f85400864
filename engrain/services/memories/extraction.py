"""The shape of a model's extraction from a conversation (`ingest_conversation`), parsed once whoever the
model is: a direct provider and sampling leniently (a stray item is skipped), the calling model's task
answer strictly (traits/answers.parse_task_answer)."""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class ExtractedMemory(_Item):
    """One memory extracted from a conversation (`ingest_conversation`)."""

    content: str = Field(min_length=1, max_length=8_000)
    kind: Literal["fact", "episodic", "procedural"] | None = None
    importance: int | None = Field(default=None, ge=1, le=10)
    category: str | None = Field(default=None, max_length=40)
    event_time: str | None = Field(default=None, max_length=100)
    temporality: Literal["current", "historical", "prospective"] | None = None
    procedure_steps: list[str] | None = Field(default=None, max_length=30)
    said_at: str | None = Field(default=None, max_length=100)  # the time of the message it comes from
    message: int | None = Field(default=None, ge=1)  # or its number (1-based), in a task that numbered them
    key: str | None = Field(default=None, max_length=80)  # the single-valued fact it states ("user · phone")

    @field_validator("content")
    @classmethod
    def _no_nul(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("contains a NUL byte")
        return value


class Extraction(_Item):
    memories: list[ExtractedMemory] = Field(default_factory=list[ExtractedMemory], max_length=50)
    summary: str | None = Field(default=None, max_length=2_000)

    @classmethod
    def lenient(cls, raw: Any) -> Extraction:
        """What a direct or sampled model extracted, keeping the items that are well formed (a model's
        stray item is skipped, not fatal); raises ValueError when the answer is no object at all."""
        if not isinstance(raw, dict):
            raise ValueError("the extraction is not a JSON object")
        fields = cast(dict[str, Any], raw)
        listed = fields.get("memories")
        items = cast(list[Any], listed) if isinstance(listed, list) else []
        kept: list[ExtractedMemory] = []
        for item in items[:50]:
            try:
                kept.append(ExtractedMemory.model_validate(item))
            except ValidationError:
                continue
        summary = fields.get("summary")
        return cls(memories=kept, summary=summary[:2_000] if isinstance(summary, str) and summary.strip() else None)
