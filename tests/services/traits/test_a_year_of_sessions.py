"""The trait lifecycle on the user's clock (issue 52, part 2), through a real MCP client on the host route — the
calling model answers every task, as Claude Desktop would with no model on the server:

- a trend is never dissolved at a reflection's hand-out while the memories of its window wait unshown (it was: the
  code-only passes ran against a clock already at the newest session);
- a pattern told in 9 of 12 months of a history is established by month 6 and reaches core's confidence by month 12
  (it ended emerging: growth could not outrun decay at one reinforcement a month), whether the model grades each
  month's evidence B (the user says it of themself) or C (seen across separate conversations; it ended month 12 at
  0.84) — and stays established: a behaviour is never core, which a core value made by an upgrade alone is
  (issue 61).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engrain.rules.traits import CORE_FROM
from engrain.services.profile.sections import PROFILE_TOKENS
from engrain.services.recall.search import estimate_tokens
from tests.conftest import Clock, call, connect
from tests.scripted import alias, answer
from tests.services.profile.test_profile import section

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)  # the server's day: the history is years old
TRAIT = "Paints watercolours regularly"


def lines(task: str, kind: str) -> list[tuple[str, str]]:
    """(alias, line) of the task's memory (m) or trait (t) lines."""
    return [(m.group(1), line) for line in task.splitlines() if (m := re.match(rf"\[({kind}\d+)\]", line))]


async def reflect_as(client, model: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """reflect, and answer each task it hands out as `model` reads its text; the last result."""
    out = await call(client, "reflect", force=True)
    while out.get("task_id"):
        out = await call(client, "reflect", task_id=out["task_id"], answer=model(out["task"]))
    return out


def later(clock: Clock) -> Clock:
    """The server's clock a minute on (what is stored after a reflection is new to the next one)."""
    clock.now += timedelta(minutes=1)
    return clock


async def stage_of(client, content: str) -> tuple[str, float] | None:
    listed = await call(client, "get_user_traits", min_stage="trend")
    found = [(t["stage"], t["confidence"]) for t in listed["traits"] if t["content"] == content]
    return found[0] if found else None


TRIP = "Road trips with the family"


async def a_trip_trend(client) -> None:
    """The issue's trend: a road trip told on 2023-05-18, made a trend (window 30 days) by the calling model."""
    await call(client, "remember", content="I took my family on a road trip to the Rockies", said_at="2023-05-18")
    await reflect_as(
        client,
        lambda task: answer(
            new_trends=[{"content": TRIP, "evidence_ids": [alias(task, "Rockies")], "window_days": 30}]
        ),
    )


async def test_a_trend_is_not_dissolved_at_a_hand_out_before_the_model_saw_its_window(host_settings):
    """The reproduction of issue 52, item 2: a trend of 2023-05-18 (window 30 days), then a memory inside its window
    and one three months later; the next hand-out dissolved the trend while its task listed the Jasper line."""
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        await a_trip_trend(client)
        assert await stage_of(client, TRIP) == ("trend", 0.2)
        later(clock)
        await call(
            client,
            "remember",
            content="Last weekend I took my family on a road trip to Jasper",
            said_at="2023-05-24",
        )
        await call(client, "remember", content="I started painting classes this week.", said_at="2023-08-19")
        handed = await call(client, "reflect", force=True)
        assert handed["status"] == "needs_model" and handed["traits_dissolved"] == 0, handed
        listed = dict(lines(handed["task"], "t"))
        assert any(TRIP in line for line in listed.values()), handed["task"]  # shown to reinforce, not "(none yet)"
        jasper = alias(handed["task"], "Jasper")
        trait = next(a for a, line in listed.items() if TRIP in line)
        reinforcement = {"trait_id": trait, "new_evidence_ids": [jasper], "quality_grade": "B"}
        done = await call(client, "reflect", task_id=handed["task_id"], answer=answer(reinforcements=[reinforcement]))
        assert done["traits_dissolved"] == 0
        stage, confidence = await stage_of(client, TRIP) or ("gone", 0.0)
    assert stage == "candidate" and confidence > 0.3  # promoted, keeping what the reinforcement earned


async def test_a_trend_the_model_saw_and_did_not_reinforce_dissolves(host_settings):
    """The other side: once the model has looked at what came after the window and not reinforced it, it goes."""
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        await a_trip_trend(client)
        later(clock)
        await call(client, "remember", content="I started painting classes this week.", said_at="2023-08-19")
        handed = await call(client, "reflect", force=True)
        assert handed["traits_dissolved"] == 0
        done = await call(client, "reflect", task_id=handed["task_id"], answer=answer())
        assert done["traits_dissolved"] == 1 and await stage_of(client, TRIP) is None


PAINTING = {  # the months the user spoke of painting, in their words: 9 of 12
    1: "Spent Saturday painting watercolours of the harbour",
    2: "I painted the old mill in watercolour this weekend",
    3: "My watercolour class started again, painted tulips",
    5: "Painted a watercolour of my neighbour's cat",
    6: "Took my paints to the lake and painted all morning",
    8: "I entered two watercolour paintings in the town fair",
    9: "Painted the autumn trees from the balcony",
    11: "Rainy Sunday, so I painted at the kitchen table",
    12: "Finished a watercolour for my sister's Christmas present",
}
HABIT = "I go swimming every Sunday morning."
OTHER = ("Had a long call with my brother about the house", "Went grocery shopping after work")


def painter(grade: str) -> Callable[[str], dict[str, Any]]:
    """The calling model: a trend the first time the user paints, then one reinforcement citing each month's
    painting, at `grade` (B: the user says it of themself; C: seen across separate conversations)."""

    def read(task: str) -> dict[str, Any]:
        painted = [a for a, line in lines(task, "m") if re.search(r"paint|watercolour", line, re.I)]
        trait = next((a for a, line in lines(task, "t") if TRAIT in line), None)
        if not painted:
            return answer()
        if trait is None:
            return answer(new_trends=[{"content": TRAIT, "evidence_ids": painted, "window_days": 30}])
        return answer(reinforcements=[{"trait_id": trait, "new_evidence_ids": painted, "quality_grade": grade}])

    return read


@pytest.mark.parametrize("grade", ["B", "C"])
async def test_a_pattern_told_in_nine_months_of_a_year_is_established_by_june_and_strong_by_december(
    host_settings, grade
):
    stages: dict[int, tuple[str, float] | None] = {}
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        for month in range(1, 13):
            later(clock)
            items = [{"content": f"{text} ({month}/2023)", "said_at": f"2023-{month:02d}-04"} for text in OTHER]
            if month in PAINTING:
                items.append({"content": PAINTING[month], "said_at": f"2023-{month:02d}-10"})
            if month == 2:
                items.append({"content": HABIT, "said_at": "2023-02-12"})
            await call(client, "remember_many", items=items)
            await reflect_as(client, painter(grade))
            stages[month] = await stage_of(client, TRAIT)
        # As of a day of the history, the trait as it stood then on the user's timeline (it showed none: every
        # change was dated by the server's clock, the day of the import).
        before = await call(client, "get_user_traits", min_stage="trend", as_of="2022-12-31")
        spring = await call(client, "get_user_traits", min_stage="trend", as_of="2023-04-20")
        then = (await client.read_resource("engrain://profile/as-of/2023-04-20")).contents[0].text
        profile = (await client.read_resource("engrain://profile")).contents[0].text
    # What a model that reads only the profile text learns: the pattern and the habit (issue 52, part 1).
    assert TRAIT in section(profile, "Established traits") and HABIT in section(profile, "Habits"), profile
    assert estimate_tokens(profile) <= PROFILE_TOKENS
    assert before["traits"] == []
    assert [(t["content"], t["stage"]) for t in spring["traits"]] == [(TRAIT, stages[4][0])], spring
    assert TRAIT in then
    assert stages[1] == ("trend", 0.2)
    assert stages[6] is not None and stages[6][0] == "established", stages
    # Core's confidence, held at established: no answer said the pattern explains other preferences (issue 61).
    assert stages[12] is not None and stages[12][0] == "established" and stages[12][1] >= CORE_FROM, stages
