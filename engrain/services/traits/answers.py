"""The shapes of a model's answers to a reflection, parsed once, whoever the model is.

A direct provider, MCP sampling and the calling model (a host task) all answer with the JSON the
prompts describe; each answer is validated here into these models, and only the models are applied.
They are lenient where a model's habits are harmless (extra keys are ignored, "0.4" is a number, a
missing list is empty) and strict where a wrong type means the answer cannot be trusted (a string
where a list of ids belongs): that is a `ValidationError` whose message names the key and the type.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engrain.config import RedactMode
from engrain.errors import describe_validation
from engrain.providers.llm import extract_json
from engrain.reading.redaction import redact_value
from engrain.reading.slots import key_of
from engrain.rules.digests import MAX_DIGEST_CHARS, MAX_TOPIC_CHARS
from engrain.rules.traits import UpgradeTargetName

MAX_TEXT = 500


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


def _text(value: str) -> str:
    """One line of at most MAX_TEXT characters, without NUL bytes."""
    if "\x00" in value:
        raise ValueError("contains a NUL byte")
    return " ".join(value.split())[:MAX_TEXT]


# Bounds on an answer (issue 39): a valid answer with 2,000 new traits and 5,000 links held the user's
# reflection lock for 23 minutes in one transaction. A reflection shows at most 200 memories and 50 traits;
# these leave room for any honest answer to them and refuse, naming the key, what is larger.
MAX_IDS = 50  # the ids one item cites
MAX_NEW = 50  # new trends, behaviors, rewords, upgrades, digests
MAX_CHANGES = 200  # reinforcements, contradictions, links, updates, decisions
Ids = Annotated[list[Annotated[str, Field(max_length=64)]], Field(min_length=1, max_length=MAX_IDS)]


class _Observed(_Item):
    """A new trait: what it says, the memories it rests on, and where it shows."""

    content: str = Field(min_length=1)
    evidence_ids: Ids
    context: str | None = None
    _clean = field_validator("content")(_text)


class NewTrend(_Observed):
    window_days: int | None = None


class NewBehavior(_Observed):
    confidence: float | None = None


class Reinforcement(_Item):
    trait_id: str = Field(max_length=64)
    new_evidence_ids: Ids
    quality_grade: Literal["A", "B", "C", "D"] = "D"

    @field_validator("quality_grade", mode="before")
    @classmethod
    def _grade(cls, value: Any) -> Any:
        return value.strip().upper()[:1] if isinstance(value, str) else value


class Contradiction(_Item):
    trait_id: str = Field(max_length=64)
    contradicting_evidence_ids: Ids
    description: str = ""
    _clean = field_validator("description")(_text)


class Upgrade(_Item):
    from_trait_ids: Ids
    new_content: str = Field(min_length=1)
    new_subtype: UpgradeTargetName
    reasoning: str = ""
    _clean = field_validator("new_content", "reasoning")(_text)


class Reword(_Item):
    """A trait whose words no longer fit what is known ("researching adoption agencies" once the interviews
    are passed): new words, the same trait — its evidence, stage and history stay."""

    trait_id: str = Field(max_length=64)
    new_content: str = Field(min_length=1)
    reason: str = ""
    _clean = field_validator("new_content", "reason")(_text)


class Link(_Item):
    source_id: str = Field(max_length=64)
    target_id: str = Field(max_length=64)
    relation: str = Field(default="related", max_length=40)


def _key(value: str | None) -> str | None:
    """A key as a model writes it ("user · phone") as stored ("user:phone"); none for an empty one."""
    if value is None or not value.strip():
        return None
    key = key_of(value)
    if not key.rpartition(":")[2]:
        raise ValueError("names no attribute; write whose · what, e.g. 'user · phone'")
    return key


class Update(_Item):
    """An older fact that a newer memory replaces ("moved from Berlin to Lisbon"); `key` names the fact
    ("user · home"), so that a later value replaces the new memory in turn."""

    old_id: str = Field(max_length=64)
    new_id: str = Field(max_length=64)
    key: str | None = Field(default=None, max_length=80)
    _keyed = field_validator("key")(_key)


class Keyed(_Item):
    """A memory that states the one current value of a fact held one at a time ("user · gym")."""

    memory_id: str = Field(max_length=64)
    key: str = Field(min_length=1, max_length=80)
    _keyed = field_validator("key")(_key)


def _words(value: str) -> str:
    """A digest's words: kept as the model wrote them (a digest is longer than a line), without NUL bytes."""
    if "\x00" in value:
        raise ValueError("contains a NUL byte")
    return value.strip()


class NewDigest(_Item):
    """A digest of one thing the user told about on several days (rules/digests.py): its words — everything told
    about it, with the dates — the memories it draws on, and `digest_id`, the current digest ("d1") it rewrites
    whole when new memories add to it."""

    topic: str = Field(min_length=1, max_length=MAX_TOPIC_CHARS)
    content: str = Field(min_length=1, max_length=MAX_DIGEST_CHARS)
    evidence_ids: Ids
    digest_id: str | None = Field(default=None, max_length=64)
    _topic = field_validator("topic")(_text)
    _content = field_validator("content")(_words)

    @field_validator("digest_id")
    @classmethod
    def _none_if_empty(cls, value: str | None) -> str | None:
        return value if value else None


class MainAnswer(_Item):
    new_trends: list[NewTrend] = Field(default_factory=list[NewTrend], max_length=MAX_NEW)
    new_behaviors: list[NewBehavior] = Field(default_factory=list[NewBehavior], max_length=MAX_NEW)
    reinforcements: list[Reinforcement] = Field(default_factory=list[Reinforcement], max_length=MAX_CHANGES)
    contradictions: list[Contradiction] = Field(default_factory=list[Contradiction], max_length=MAX_CHANGES)
    upgrades: list[Upgrade] = Field(default_factory=list[Upgrade], max_length=MAX_NEW)
    links: list[Link] = Field(default_factory=list[Link], max_length=MAX_CHANGES)
    updates: list[Update] = Field(default_factory=list[Update], max_length=MAX_CHANGES)
    keys: list[Keyed] = Field(default_factory=list[Keyed], max_length=MAX_CHANGES)
    rewords: list[Reword] = Field(default_factory=list[Reword], max_length=MAX_NEW)
    digests: list[NewDigest] = Field(default_factory=list[NewDigest], max_length=MAX_NEW)

    def trait_texts(self) -> list[str]:
        """Every trait text this answer may create (to embed them in one batch)."""
        return [
            *(t.content for t in self.new_trends),
            *(b.content for b in self.new_behaviors),
            *(u.new_content for u in self.upgrades),
            *(r.new_content for r in self.rewords),
        ]

    def digest_texts(self) -> list[str]:
        """Every digest text this answer writes (embedded with the trait texts: recall finds a digest by meaning)."""
        return [d.content for d in self.digests]


class QuestionsAnswer(_Item):
    questions: list[str] = Field(min_length=1, max_length=MAX_NEW)


class Decision(_Item):
    trait_id: str = Field(max_length=64)
    action: Literal["modify", "dissolve"]
    new_content: str | None = None

    @field_validator("new_content")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        return _text(value) if value is not None else None


class ReviewAnswer(_Item):
    decisions: list[Decision] = Field(default_factory=list[Decision], max_length=MAX_CHANGES)


A = TypeVar("A", bound=BaseModel)


def without_secrets(answer: A, mode: RedactMode) -> A:
    """The answer with secrets replaced in every text it carries (a trait's words are stored like a memory's)."""
    if mode == "off":
        return answer
    kinds: Counter[str] = Counter()
    cleaned = redact_value(answer.model_dump(), mode, kinds)
    return type(answer).model_validate(cleaned) if kinds else answer


def parse_task_answer(model: type[A], answer: Any, required: tuple[str, ...] = ()) -> A:
    """The calling model's answer to a host task, held to the task's schema before `parse`: a server's
    own model may ramble, but an answer a task asked for that has a key the schema does not know, or
    lacks one it needs, was meant for another task and must not be applied as an empty answer.
    `required`: keys that must be present; with none, at least one of the schema's keys must be."""
    if isinstance(answer, str):
        answer = extract_json(answer)
    keys = list(model.model_fields)
    if not isinstance(answer, dict):
        raise ValueError(f"answer: must be a JSON object with the keys {', '.join(keys)}")
    answer = cast(dict[str, Any], answer)
    if unknown := [k for k in answer if k not in keys]:
        raise ValueError(f"answer.{unknown[0]}: is not a key of this task's answer; its keys are {', '.join(keys)}")
    if missing := [k for k in required if k not in answer]:
        raise ValueError(f"answer.{missing[0]}: is required")
    if not answer:
        raise ValueError(f"answer: has none of the keys {', '.join(keys)} (use empty lists when nothing applies)")
    return parse(model, answer)


def parse(model: type[A], answer: Any) -> A:
    """An answer (a JSON object, or text holding one) as `model`. Raises ValueError with a message that
    names what is wrong: no JSON, or each key whose value has the wrong type."""
    if isinstance(answer, str):
        answer = extract_json(answer)
    try:
        return model.model_validate(answer)
    except ValidationError as exc:
        raise ValueError(describe_validation(exc)) from None
