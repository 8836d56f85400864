"""What recall answers with: the result, its hits, their links and the per-hit score breakdown. Their
fields and descriptions are the recall tool's output schema."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from engrain.reading.periods import GRAIN, HAPPENED
from engrain.rules.recall import (
    ABOUT_USER_REPLY_WEIGHT,
    BRIDGE_SEEDS,
    BRIDGE_WEIGHT,
    DIVERSITY_FLOOR,
    DIVERSITY_WEIGHT,
    LEXICAL_WEIGHT,
    OVERDUE_PENALTY,
    REPLY_WEIGHT,
    SLOT_WEIGHT,
    STANDING_WEIGHTS,
    TEXT_BUMP,
    WHEN_WEIGHT,
    WINDOW_WEIGHT,
)


class Breakdown(BaseModel):
    """Each term of a hit's score, only with explain=true; the descriptions are built from the constants
    the statement uses."""

    vector: float
    text: bool = Field(description=f"The whole query matched the full-text index (the SPEC's {TEXT_BUMP} bump).")
    lexical: float = Field(
        description="IDF-weighted share of the query's words in the memory, in [0, 1]; "
        f"added with weight {LEXICAL_WEIGHT} after the base's cap."
    )
    temporal: float = Field(
        description=f"Query-time date understanding: +{WHEN_WEIGHT} for a memory that says "
        f"when, to a 'when…' question; +{WINDOW_WEIGHT} for a memory dated in a "
        "period the query names."
    )
    slot: float = Field(
        default=0.0,
        description=f"+{SLOT_WEIGHT} for a memory holding the single-valued fact the query asks about "
        "('where do I live' → the live memory of the user's home).",
    )
    bridge: float = Field(
        default=0.0,
        description=f"+{BRIDGE_WEIGHT} when the memory shares a rarer word the query "
        f"lacks with one of the top {BRIDGE_SEEDS} hits (two-turn "
        "questions).",
    )
    redundancy: float = Field(
        default=0.0,
        description="Subtracted for resembling a better-ranked hit (cosine above "
        f"{DIVERSITY_FLOOR}; up to {DIVERSITY_WEIGHT:.0%} of the "
        "score): paraphrases make room.",
    )
    standing: float = Field(
        default=0.0,
        description="A standing instruction or preference of the user's gains this share of its vector "
        f"({', '.join(f'{k} {v}' for k, v in STANDING_WEIGHTS.items())}): it bears on requests that do not "
        "repeat its words.",
    )
    recency: float
    importance: float
    trait_boost: float
    penalty: float = Field(
        description=f"What the memory keeps of its score: {OVERDUE_PENALTY} for a plan whose date passed; "
        f"{REPLY_WEIGHT} for what an assistant said (a reply) unless the query asks what was said; "
        f"{ABOUT_USER_REPLY_WEIGHT} when the user asks about themselves in the first person."
    )


class LinkRef(BaseModel):
    id: str
    relation: str


class RecallHit(BaseModel):
    id: str
    content: str
    kind: str
    score: float
    breakdown: Breakdown | None = None  # only with explain=true (the text shows it then too)
    event_time: datetime | None = Field(description="When it happened: the start of `happened`.")
    event_end: datetime | None = Field(default=None, description="The end (exclusive) of `happened`.")
    event_grain: str | None = Field(default=None, description=GRAIN)
    happened: str | None = Field(default=None, description=HAPPENED)
    told_at: datetime = Field(description="When the user said it.")
    created_at: datetime
    temporality: str
    habit: bool = Field(default=False, description="A habit (a rule such as 'every Thursday'), never a plan.")
    was_plan: bool = Field(default=False, description="A plan whose time passed: history now, marked 'past plan'.")
    stage: str | None = None
    replaced: str | None = Field(
        default=None,
        description="What of this memory a later one replaced, the rest still true: 'home replaced by 5991d65a'.",
    )
    outdated: str | None = Field(
        default=None,
        description="Told before a correction and saying what it replaced: 'older than 5991d65a (2022-06-01), which "
        "replaced «I live in Berlin»' (its score halved).",
    )
    namespace: str
    category: str | None = None
    importance: int
    source: str = Field(description="'search' for a ranked hit, 'linked' for a 1-hop expansion.")
    linked_from: str | None = None
    relation: str | None = None
    links: list[LinkRef] = Field(default_factory=list[LinkRef])
    digest_of: int | None = Field(
        default=None,
        description="A digest (kind 'digest': a model's summary of what the user told about one thing, with the "
        "dates): how many memories it summarizes; its `links` with relation 'summarizes' name them.",
    )
    excerpt: str | None = Field(
        default=None,
        description="For a question that gathers, a long memory's passages that match it (what the text shows); "
        "`content` stays whole.",
    )


class Gathering(BaseModel):
    """How a question that gathers was answered: pieces from many occasions, and how many more were found."""

    found: int = Field(description="Memories the question found; `results` holds the pieces that fit.")
    occasions: int = Field(description="Days told among those found (the pieces are spread over them).")


class RecallResult(BaseModel):
    query: str
    results: list[RecallHit]
    embedder: str | None = Field(description="Model that embedded the query; null means full text only.")
    truncated_by_tokens: bool = False
    words_not_embedded: list[str] = Field(
        default_factory=list,
        description="Words of the query found in most of the user's memories: left out of "
        "the query's embedding (they would pull every short memory close), still "
        "matched as text.",
    )
    as_of: datetime | None = Field(default=None, description="The moment the answer is as of (time travel).")
    in_time_order: bool = Field(
        default=False,
        description="The question asks for an order or a summary: the text lists the results in the order told "
        "(`results` stay best first).",
    )
    words_only: str | None = Field(
        default=None,
        description="Why the memories were matched by their words only, when no model of meaning served: "
        "'the model of meaning is still loading' (the first seconds after a start).",
    )
    gathered: Gathering | None = Field(
        default=None,
        description="Set when the question gathers (a list, a count, the kinds of a thing, a summary): `results` "
        "are pieces spread over the days told (each further piece of one day ranks lower), as many as fit; long "
        "memories show their passages that match (`excerpt`).",
    )
    # The user's present the plans were judged at (their clock, or the moment asked about): for the text's marks.
    user_now: datetime | None = Field(default=None, exclude=True)
