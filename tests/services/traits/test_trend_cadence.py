"""Trends that survive a real cadence (issue 42, item 5), through a real MCP client on the host route: a trend
lives until a model has looked past its window, its window follows its evidence, and a pattern reported again
in other words reinforces the trend instead of twinning it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import Clock, call, connect
from tests.scripted import alias

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 3, 2, 19, 0, tzinfo=UTC)


async def reflect(client, reply) -> tuple[dict, dict]:
    task = await call(client, "reflect", force=True)
    assert task["status"] == "needs_model", task
    return task, await call(client, "reflect", task_id=task["task_id"], answer=reply(task["task"]))


async def trends(client) -> dict[str, dict]:
    listed = await call(client, "get_user_traits", min_stage="trend")
    return {t["content"]: t for t in listed["traits"]}


async def test_a_trend_waits_for_the_model_to_see_what_came_after_its_window(host_settings):
    """Five weeks of memories arrive before the next reflection: the cycle that hands out the task must not
    dissolve the trend (its window closed on the user's clock, but no model has seen those weeks); the
    model's reinforcement keeps it and promotes it."""
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        await call(client, "remember", content="Cooked dinner at home tonight")
        await reflect(
            client,
            lambda t: {"new_trends": [{"content": "Cooks dinner at home", "evidence_ids": [alias(t, "Cooked")]}]},
        )
        for week in range(1, 6):
            clock.now = NOW + timedelta(weeks=week)
            await call(client, "remember", content=f"Cooked a curry at home, week {week}")
        task, done = await reflect(
            client,
            lambda t: {
                "reinforcements": [
                    {
                        "trait_id": alias(t, "Cooks dinner at home"),
                        "new_evidence_ids": [alias(t, "week 1"), alias(t, "week 3")],
                        "quality_grade": "C",
                    }
                ]
            },
        )
        assert "Cooks dinner at home" in task["task"] and done["traits_dissolved"] == 0
        assert (await trends(client))["Cooks dinner at home"]["stage"] == "candidate"  # promoted in the same cycle


async def test_the_window_follows_the_evidence_and_a_reworded_report_reinforces(host_settings):
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        await call(client, "remember", content="Climbed at the wall on Thursday")
        await reflect(
            client,
            lambda t: {
                "new_trends": [{"content": "Goes climbing on Thursdays", "evidence_ids": [alias(t, "Climbed")]}]
            },
        )
        first = (await trends(client))["Goes climbing on Thursdays"]
        clock.now = NOW + timedelta(days=20)
        await call(client, "remember", content="Another climbing session on Thursday, new route")
        # The model reports the pattern again in other words, as a new trend: the trend is reinforced.
        _, done = await reflect(
            client,
            lambda t: {
                "new_trends": [{"content": "Climbs every Thursday evening", "evidence_ids": [alias(t, "new route")]}]
            },
        )
        assert done["traits_created"] == 0
        after = await trends(client)
        assert "Climbs every Thursday evening" not in after
        trend = after["Goes climbing on Thursdays"]
        assert trend["reinforcement_count"] == 2 and trend["id"] == first["id"]
        detail = json.loads((await client.read_resource(f"engrain://traits/{first['id']}")).contents[0].text)
        assert detail["window_end"] > first["window_end"]  # 30 days from the newest evidence, not the first
