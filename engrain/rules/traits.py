"""The trait lifecycle's rules (docs/SPEC.md §7.4–7.6): stages, thresholds, decay rates, grades, factors.

This is the one home of every number and name a trait's life depends on. A formula is written
here once in Python (one trait, inside a reflection) and, where set-based passes apply it to many
rows, beside it as the SQL fragment they use; `tests/scheduler/test_scheduler.py` checks that the two agree.
Storage builds its statements from these fragments, services call the functions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal, get_args


class Stage(StrEnum):
    """A trait's maturity. Equal to its stored text, so rows compare to members directly."""

    TREND = "trend"
    CANDIDATE = "candidate"
    EMERGING = "emerging"
    ESTABLISHED = "established"
    CORE = "core"
    DISSOLVED = "dissolved"


class Subtype(StrEnum):
    BEHAVIOR = "behavior"
    PREFERENCE = "preference"
    CORE = "core"


# The same names as the tools' JSON schemas spell them (inline enums, which every client reads);
# tests/rules/test_trait_formulas.py checks they list exactly the members above.
ActiveStageName = Literal["trend", "candidate", "emerging", "established", "core"]
SubtypeName = Literal["behavior", "preference", "core"]
UpgradeTargetName = Literal["preference", "core"]
ContextName = Literal["work", "personal", "social", "learning", "general"]

SUBTYPES: tuple[Subtype, ...] = tuple(Subtype)
ACTIVE_STAGES: tuple[Stage, ...] = (Stage.TREND, Stage.CANDIDATE, Stage.EMERGING, Stage.ESTABLISHED, Stage.CORE)
# Stages a model is shown as still forming: seen more than once, not yet confirmed (get_user_traits, profile).
FORMING_STAGES: tuple[Stage, ...] = (Stage.EMERGING, Stage.CANDIDATE)
# Confidence below each bound maps to the stage beside it; at or above the last, core. A trend is
# outside this scale: it keeps its stage until promoted or expired.
STAGE_BOUNDS: tuple[tuple[float, Stage], ...] = (
    (0.1, Stage.DISSOLVED),
    (0.3, Stage.CANDIDATE),
    (0.6, Stage.EMERGING),
    (0.85, Stage.ESTABLISHED),
)
DISSOLVE_BELOW = STAGE_BOUNDS[0][0]
CORE_FROM = STAGE_BOUNDS[-1][0]
# The confidence scale's stages, weakest first: decay may only move a trait down it.
RANKED_STAGES: tuple[Stage, ...] = (*(stage for _, stage in STAGE_BOUNDS), Stage.CORE)
# What recall adds for a trait at each stage; traits below emerging are not recalled at all.
RECALL_BOOST: dict[Stage, float] = {Stage.CORE: 0.25, Stage.ESTABLISHED: 0.15, Stage.EMERGING: 0.05}
RECALLED_STAGES: tuple[Stage, ...] = tuple(RECALL_BOOST)

DECAY_LAMBDA: dict[str, float] = {Subtype.BEHAVIOR: 0.005, Subtype.PREFERENCE: 0.002, Subtype.CORE: 0.001}
SPACING = 0.5  # each reinforcement slows decay: λ_eff = λ / (1 + SPACING · reinforcements)
QUALITY_FACTOR = {"A": 0.25, "B": 0.20, "C": 0.15, "D": 0.05}  # evidence grade → share of the gap closed
# The spacing effect on growth: evidence told this many days after the trait's last reinforcement counts as one
# piece more than evidence told the same day — a pattern met again a month later says more than one more line of the
# same sitting — up to SPACED_MAX_DAYS (two pieces more): a pattern that comes back after a month's pause is lasting,
# and its return makes up for the decay of the pause (at grade C a pattern of 9 months in 12 ended month 12 at 0.84).
SPACED_DAYS = 30
SPACED_MAX_DAYS = 60
CONTRADICT_ONE, CONTRADICT_SEVERAL = 0.8, 0.6

TREND_CONFIDENCE = 0.2  # a new trend
PROMOTED_CONFIDENCE = 0.3  # a trend reinforced twice in its window becomes a candidate at this confidence
PROMOTE_AFTER = 2  # reinforcements within the window
BEHAVIOR_CONFIDENCE = (0.3, 0.5)  # a new candidate behaviour: the model's confidence, clamped to this
UPGRADE_STEP = 0.1  # an upgraded trait starts this far above its strongest source
# new subtype: (subtype of its sources, the confidence every source needs)
UPGRADES: dict[str, tuple[Subtype, float]] = {
    Subtype.PREFERENCE: (Subtype.BEHAVIOR, 0.5),
    Subtype.CORE: (Subtype.PREFERENCE, 0.6),
}
REVIEW_RATIO, REVIEW_MIN_CONTRADICTIONS = 0.3, 2
TREND_WINDOW_DAYS, MOOD_WINDOW_DAYS = 30, 14
# A trend whose window closed still lives until a reflection has looked at memories told after it (the model
# had its chance to see the pattern again), or until this long after on the user's clock if none does.
TREND_GRACE_DAYS = 30
CONTEXTS: tuple[str, ...] = get_args(ContextName)
_MOOD = re.compile(
    r"\b(?:mood|feel(?:s|ing)?|stress\w*|anxi\w+|tired|exhaust\w*|happ\w+|sad\w*|energ\w+|"
    r"motivat\w+|overwhelm\w*|calm|frustrat\w+|lonel\w+)\b",
    re.IGNORECASE,
)


def clamp(c: float) -> float:
    return min(1.0, max(0.0, c))


def stage_for(confidence: float) -> Stage:
    for bound, stage in STAGE_BOUNDS:
        if confidence < bound:
            return stage
    return Stage.CORE


def stage_sql(confidence: str) -> str:
    """`stage_for` as a SQL CASE over the expression `confidence`."""
    cases = " ".join(f"WHEN {confidence} < {bound} THEN '{stage}'" for bound, stage in STAGE_BOUNDS)
    return f"CASE {cases} ELSE '{Stage.CORE}' END"


# ---- time gates: spacing matters (SPEC §7.6) ------------------------------------------------
# Confidence alone never makes a trait established or core: its supporting evidence must also be
# spread over the user's own time, and core is a core value's alone (stage_cap).
# An occasion is one day of told time (UTC) in one session: what
# was told that day in one conversation (a memory's `source`, which ingest_conversation sets to the
# session id), or that day outside any. A burst of memories told in one sitting is one occasion
# however many there are; two conversations on one day are two.
ESTABLISHED_OCCASIONS = 3
CORE_OCCASIONS, CORE_SPAN_DAYS = 5, 30


@dataclass(frozen=True)
class Spread:
    """How a trait's supporting evidence lies on the user's timeline."""

    occasions: int
    first: datetime | None  # told time of its earliest and latest supporting memory
    last: datetime | None

    @property
    def span_days(self) -> float:
        if self.first is None or self.last is None:
            return 0.0
        return (self.last - self.first).total_seconds() / 86400

    def describe(self) -> str:
        """What the trait history shows beside a stage: the occasions and time span that counted."""
        if self.first is None or self.last is None:
            return "no supporting evidence"
        count = f"{self.occasions} occasion{'s' if self.occasions != 1 else ''}"
        if self.first.date() == self.last.date():
            return f"evidence from {count} on {self.first.date()}"
        return f"evidence from {count} over {self.span_days:.0f} days, {self.first.date()} to {self.last.date()}"


def occasion(source: str | None, told_at: datetime) -> str:
    """The occasion a memory was told on (see above); `occasion_sql` is the same in SQL."""
    day = told_at.astimezone(UTC).date().isoformat()
    return day if source is None else f"{day} {source}"


def occasion_sql(memory: str) -> str:
    """`occasion` over the SQL alias `memory`."""
    return f"to_char({memory}.told_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') || coalesce(' ' || {memory}.source, '')"


def stage_cap(occasions: int, span_days: float, subtype: str) -> Stage:
    """The highest stage a trait of `subtype` whose evidence is spread this way may have: core needs a core value —
    a trait of subtype core, which only an upgrade makes, an answer saying which preferences it explains (issue 61: a
    behaviour became core by confidence alone, and core is what the task calls a value that explains preferences) —
    with evidence from CORE_OCCASIONS over CORE_SPAN_DAYS; established needs ESTABLISHED_OCCASIONS; anything less
    stops at emerging."""
    if occasions >= CORE_OCCASIONS and span_days >= CORE_SPAN_DAYS and subtype == Subtype.CORE:
        return Stage.CORE
    if occasions >= ESTABLISHED_OCCASIONS:
        return Stage.ESTABLISHED
    return Stage.EMERGING


def stage_cap_sql(occasions: str, span_days: str, subtype: str) -> str:
    """`stage_cap` as a SQL CASE over the expressions `occasions`, `span_days` and `subtype`."""
    return (
        f"CASE WHEN {occasions} >= {CORE_OCCASIONS} AND {span_days} >= {CORE_SPAN_DAYS} "
        f"AND {subtype} = '{Subtype.CORE}' THEN '{Stage.CORE}' "
        f"WHEN {occasions} >= {ESTABLISHED_OCCASIONS} THEN '{Stage.ESTABLISHED}' ELSE '{Stage.EMERGING}' END"
    )


def lowest(*stages: Stage) -> Stage:
    """The weakest of stages of the confidence scale."""
    return min(stages, key=RANKED_STAGES.index)


def next_gate(cap: Stage, subtype: str) -> str:
    """What the stage above `cap` needs, for the history of a trait of `subtype` held at `cap`."""
    if cap == Stage.EMERGING:
        return f"established needs evidence from {ESTABLISHED_OCCASIONS} occasions"
    if subtype != Subtype.CORE:
        return "core needs an upgrade into a core value that says which preferences it explains"
    return f"core needs evidence from {CORE_OCCASIONS} occasions over {CORE_SPAN_DAYS} days"


def time_gate(spread: Spread, subtype: str) -> str:
    """The evidence's spread and what the next gated stage needs, as a trait's detail shows them."""
    cap = stage_cap(spread.occasions, spread.span_days, subtype)
    return spread.describe() + ("" if cap == Stage.CORE else f"; {next_gate(cap, subtype)}")


def gated_stage(confidence: float, spread: Spread, subtype: str) -> Stage:
    """The stage a trait has: what its confidence maps to, held at what its subtype and evidence's spread allow."""
    return lowest(stage_for(confidence), stage_cap(spread.occasions, spread.span_days, subtype))


def rank_sql(stage: str) -> str:
    """The position of the SQL expression `stage` on the confidence scale (NULL for a trend)."""
    ranked = ", ".join(f"'{s}'" for s in RANKED_STAGES)
    return f"array_position(ARRAY[{ranked}], {stage})"


def lowest_sql(*stages: str) -> str:
    """`lowest` over SQL expressions, each a stage of the confidence scale."""
    ranked = ", ".join(f"'{s}'" for s in RANKED_STAGES)
    return f"(ARRAY[{ranked}])[least({', '.join(rank_sql(s) for s in stages)})]"


def recall_boost_sql(stage: str) -> str:
    """`RECALL_BOOST` as a SQL CASE over the expression `stage`."""
    cases = " ".join(f"WHEN '{s}' THEN {boost}" for s, boost in RECALL_BOOST.items())
    return f"CASE {stage} {cases} ELSE 0.0 END"


def reinforced(c: float, grade: str, gap_days: float = 0.0) -> float:
    """c + (1 - c) · f', f' = 1 - (1 - f)^(1 + min(gap, SPACED_MAX_DAYS) / SPACED_DAYS): the grade's share f of
    the gap to 1 closed once for evidence told the same day as the last reinforcement, twice for evidence told a
    month after it, three times for evidence told two months or more after it (issue 52: at one reinforcement a
    month, growth could not outrun decay, and a pattern told in 12 sessions over 222 days ended emerging at 0.55)."""
    spaced = 1 + min(max(0.0, gap_days), SPACED_MAX_DAYS) / SPACED_DAYS
    return clamp(c + (1 - c) * (1 - (1 - QUALITY_FACTOR[grade]) ** spaced))


def contradicted(c: float, pieces: int) -> float:
    return clamp(c * (CONTRADICT_ONE if pieces == 1 else CONTRADICT_SEVERAL))


def decayed(c: float, subtype: str, reinforcements: int, days: float) -> float:
    """c · exp(-λ_eff · days), λ_eff = λ(subtype) / (1 + SPACING · reinforcements)."""
    lam = DECAY_LAMBDA.get(subtype, DECAY_LAMBDA[Subtype.BEHAVIOR])
    return clamp(c * math.exp(-lam / (1 + SPACING * reinforcements) * max(0.0, days)))


def decay_exponent_sql(subtype: str, reinforcements: str, days: str) -> str:
    """-λ_eff · days of `decayed` over SQL expressions (the caller takes exp and clamps)."""
    lam = " ".join(f"WHEN '{k}' THEN {v}" for k, v in DECAY_LAMBDA.items())
    return (
        f"- (CASE {subtype} {lam} ELSE {DECAY_LAMBDA[Subtype.BEHAVIOR]} END)"
        f" / (1 + {SPACING} * coalesce({reinforcements}, 0)) * greatest(0.0, {days})"
    )


def promotable_sql(trait: str) -> str:
    """A trend reinforced often enough inside its window (the SQL condition over alias `trait`). Only
    evidence told inside the window counts as a reinforcement (TraitWriter.reinforce), so the count
    alone decides, whenever the pass runs."""
    return (
        f"{trait}.trait_stage = '{Stage.TREND}' AND coalesce({trait}.trait_reinforcement_count, 0) >= {PROMOTE_AFTER}"
    )


def expired_trend_sql(trait: str, reflected: str, user_now: str, waiting: str) -> str:
    """A trend not reinforced often enough whose window closed before the told time a reflection has looked up
    to (`reflected`: the model saw what came after and did not reinforce it), or TREND_GRACE_DAYS before the
    user's clock (`user_now`) when no reflection looks — and never while a memory told since the trend was
    first seen waits unshown (`waiting`, a condition): the lifecycle waits for the model. Issue 42: judged on
    the user's clock alone, a trend dissolved as soon as newer memories arrived; issue 52: it still dissolved at
    a reflection's hand-out, before the model saw the memories of its window the task listed."""
    return (
        f"{trait}.trait_stage = '{Stage.TREND}' AND coalesce({trait}.trait_reinforcement_count, 0) < {PROMOTE_AFTER}"
        f" AND ({trait}.trait_window_end < {reflected}"
        f" OR {trait}.trait_window_end + interval '{TREND_GRACE_DAYS} days' < {user_now}) AND NOT {waiting}"
    )


def needs_review(reinforcements: int, contradictions: int) -> bool:
    """Enough contradiction to ask the model whether the trait should be modified or dissolved."""
    total = reinforcements + contradictions
    return contradictions >= REVIEW_MIN_CONTRADICTIONS and total > 0 and contradictions / total > REVIEW_RATIO


def trend_window_days(content: str, requested: Any) -> int:
    """The model's window when it gave a sensible one, else a mood's two weeks or a month."""
    if isinstance(requested, int) and not isinstance(requested, bool) and 1 <= requested <= 90:
        return requested
    return MOOD_WINDOW_DAYS if _MOOD.search(content) else TREND_WINDOW_DAYS


def context_of(value: Any) -> str:
    return value if value in CONTEXTS else "general"
