"""Every constant of the trait lifecycle (SPEC §7), including stages exactly at the thresholds."""

from __future__ import annotations

import math
from typing import get_args

import pytest

from engrain.reading.duplicates import TRAIT_THRESHOLD
from engrain.rules import traits as lc
from engrain.rules.traits import PROMOTED_CONFIDENCE


@pytest.mark.parametrize(
    ("confidence", "stage"),
    [
        (0.0, "dissolved"),
        (0.0999, "dissolved"),
        (0.1, "candidate"),
        (0.2999, "candidate"),
        (0.3, "emerging"),
        (0.5999, "emerging"),
        (0.6, "established"),
        (0.8499, "established"),
        (0.85, "core"),
        (1.0, "core"),
    ],
)
def test_stage_thresholds(confidence, stage):
    assert lc.stage_for(confidence) == stage


@pytest.mark.parametrize(("grade", "factor"), [("A", 0.25), ("B", 0.20), ("C", 0.15), ("D", 0.05)])
def test_reinforcement_by_grade(grade, factor):
    assert lc.reinforced(0.4, grade) == pytest.approx(0.4 + 0.6 * factor)
    assert lc.reinforced(1.0, grade) == 1.0


@pytest.mark.parametrize(
    ("gap", "pieces"), [(0, 1.0), (15, 1.5), (30, 2.0), (45, 2.5), (60, 3.0), (400, 3.0), (-3, 1.0)]
)
def test_spaced_evidence_counts_more(gap, pieces):
    """Evidence told a month after the last reinforcement closes the gap as two pieces told the same day would, two
    months or more after it as three."""
    assert lc.reinforced(0.4, "B", gap) == pytest.approx(1 - 0.6 * 0.8**pieces)


def test_contradiction_one_or_several():
    assert lc.contradicted(0.5, 1) == pytest.approx(0.4)
    assert lc.contradicted(0.5, 2) == pytest.approx(0.3)
    assert lc.contradicted(0.5, 5) == pytest.approx(0.3)


@pytest.mark.parametrize(("subtype", "lam"), [("behavior", 0.005), ("preference", 0.002), ("core", 0.001)])
def test_decay_with_spacing_effect(subtype, lam):
    assert lc.decayed(0.8, subtype, 0, 10) == pytest.approx(0.8 * math.exp(-lam * 10))
    assert lc.decayed(0.8, subtype, 5, 10) == pytest.approx(0.8 * math.exp(-lam / 3.5 * 10))  # 1 + 0.5 · 5
    assert lc.decayed(0.8, subtype, 0, -3) == 0.8


def test_review_needs_ratio_above_0_3_and_two_contradictions():
    assert not lc.needs_review(10, 1)  # one contradiction is never enough
    assert lc.needs_review(4, 2)  # 2/6 = 0.33 > 0.3
    assert not lc.needs_review(7, 3)  # 3/10 = 0.3 is not above 0.3
    assert lc.needs_review(0, 2)


def test_trend_windows_and_contexts():
    assert lc.trend_window_days("Feels stressed before deadlines", None) == 14
    assert lc.trend_window_days("Reads about Rust compilers", None) == 30
    assert lc.trend_window_days("Reads about Rust compilers", 7) == 7
    assert lc.trend_window_days("Reads about Rust compilers", 400) == 30
    assert lc.context_of("work") == "work" and lc.context_of("moon") == "general"


def test_constants():
    assert PROMOTED_CONFIDENCE == 0.3
    assert lc.BEHAVIOR_CONFIDENCE == (0.3, 0.5)
    assert lc.UPGRADES == {"preference": ("behavior", 0.5), "core": ("preference", 0.6)}
    assert TRAIT_THRESHOLD == 0.95
    assert lc.clamp(1.7) == 1.0 and lc.clamp(-0.2) == 0.0


def test_the_tool_schemas_name_exactly_the_stages_subtypes_and_contexts():
    """The tools spell the names as Literal types (inline enums every client reads); they must list
    exactly the rules' members, so a stage added to the rules cannot be missing from a tool."""
    assert get_args(lc.ActiveStageName) == lc.ACTIVE_STAGES
    assert get_args(lc.SubtypeName) == lc.SUBTYPES
    assert set(get_args(lc.UpgradeTargetName)) == set(lc.UPGRADES)
    assert lc.CONTEXTS == ("work", "personal", "social", "learning", "general")


def test_the_sql_fragments_spell_the_python_rules():
    assert lc.stage_sql("c") == (
        "CASE WHEN c < 0.1 THEN 'dissolved' WHEN c < 0.3 THEN 'candidate' WHEN c < 0.6 THEN 'emerging' "
        "WHEN c < 0.85 THEN 'established' ELSE 'core' END"
    )
    assert (
        lc.recall_boost_sql("s")
        == "CASE s WHEN 'core' THEN 0.25 WHEN 'established' THEN 0.15 WHEN 'emerging' THEN 0.05 ELSE 0.0 END"
    )
    assert lc.RANKED_STAGES == ("dissolved", "candidate", "emerging", "established", "core")
