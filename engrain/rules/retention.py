"""Memory retention's rules (docs/SPEC.md §8): the profiles, which memories may fade, and the formula.

    retention = min(1, exp(-λ · days_since_last_access) · (1 + ln(1 + access_count)) / 5)

A memory whose retention falls below the profile's threshold fades (archived, or erased in delete
mode). Only episodic memories and facts can fade; never traits, procedures, pinned memories, those of
importance PROTECTED_IMPORTANCE or more, memories younger than the minimum age, or plans still ahead.
The formula is written here once in Python and once as the SQL storage/retention.py runs;
`tests/rules/test_recall_rules.py` checks that they agree.
"""

from __future__ import annotations

import math
from typing import Literal

ProfileName = Literal["default", "fast", "slow", "sensitive", "archival"]
# λ per day, and the threshold below which a memory fades.
RETENTION_PROFILES: dict[ProfileName, tuple[float, float]] = {
    "default": (0.1, 0.1),
    "fast": (0.15, 0.15),
    "slow": (0.05, 0.05),
    "sensitive": (0.3, 0.2),
    "archival": (0.02, 0.02),
}
FADING_KINDS = ("episodic", "fact")
PROTECTED_IMPORTANCE = 8
USE_DIVISOR = 5  # one access lifts retention by (1 + ln 2) / 5; a never-used memory starts at 1/5


def params(profile: ProfileName, lam: float | None = None, threshold: float | None = None) -> tuple[float, float]:
    """(λ, threshold) of a profile, each overridden when set."""
    profile_lam, profile_threshold = RETENTION_PROFILES[profile]
    return (lam or profile_lam, threshold or profile_threshold)


def retention(days_idle: float, access_count: int, lam: float) -> float:
    """How much of a memory is left after `days_idle` days without use."""
    return min(1.0, math.exp(-lam * max(0.0, days_idle)) * (1 + math.log(1 + access_count)) / USE_DIVISOR)


def idle_exponent_sql(lam: str, days_idle: str) -> str:
    """The exponent of `retention` over SQL expressions (the caller takes a safe exp)."""
    return f"-CAST({lam} AS float8) * greatest(0.0, {days_idle})"


def retention_sql(exp_of_exponent: str, access_count: str) -> str:
    """`retention` from the SQL expression of its exponential and the access count."""
    return f"least(1.0, {exp_of_exponent} * (1 + ln(1 + {access_count})) / {USE_DIVISOR})"


def may_fade_sql(m: str) -> str:
    """The SQL condition on memory row `m`: of a kind that fades, not pinned, not protected by importance."""
    kinds = ", ".join(f"'{k}'" for k in FADING_KINDS)
    return f"{m}.kind IN ({kinds}) AND NOT {m}.pinned AND {m}.importance < {PROTECTED_IMPORTANCE}"
