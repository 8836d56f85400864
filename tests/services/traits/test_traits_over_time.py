"""Traits mature over the user's time (issue 25, part 4), through a real MCP client: a six-month history
imported in a minute matures as it would have over its months, and the same messages told on one day never
make a core trait. The stage history says which occasions and time span counted."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import Clock, call, connect
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
BEHAVIOR = "Goes running before work"
PREFERENCE = "Prefers to start the day with exercise"
CORE = "Exercise is part of who they are"
# One session a month, May to October 2023: (its day, what the user said about running).
SESSIONS = [
    ("2023-05-08", "Ran 5k along the river before work"),
    ("2023-06-05", "Did hill sprints at dawn before the office"),
    ("2023-07-03", "Morning run in the rain, 8k"),
    ("2023-08-07", "Joined a running club that meets at 6am"),
    ("2023-09-04", "Ran my first 15k on a Sunday morning"),
    ("2023-10-09", "Signed up for the Lisbon half marathon"),
]


def reinforce(trait: str, said: str):
    return {"trait_id": trait, "new_evidence_ids": [said], "quality_grade": "A"}


def upgrade(source: str, content: str, subtype: str):
    return {"from_trait_ids": [source], "new_content": content, "new_subtype": subtype, "reasoning": "months of it"}


def reflection(i: int, said: str):
    """What the calling model answers to the reflection after session i: the behavior, reinforced every
    session, upgraded to a preference after the third and to a core trait after the fourth."""

    def reply(p):
        m = alias(p, said)
        if i == 0:
            return answer(new_behaviors=[{"content": BEHAVIOR, "confidence": 0.5, "evidence_ids": [m]}])
        if i in (1, 2):
            ups = [upgrade(alias(p, BEHAVIOR), PREFERENCE, "preference")] if i == 2 else []
            return answer(reinforcements=[reinforce(alias(p, BEHAVIOR), m)], upgrades=ups)
        if i == 3:
            return answer(
                reinforcements=[reinforce(alias(p, PREFERENCE), m)],
                upgrades=[upgrade(alias(p, PREFERENCE), CORE, "core")],
            )
        return answer(reinforcements=[reinforce(alias(p, CORE), m)])

    return reply


async def import_history(client, clock: Clock, dated: bool) -> list[dict]:
    """Ingest the sessions one by one, a minute apart, each followed by a reflection; the core trait after
    each (or None)."""
    stages = []
    for i, (day, said) in enumerate(SESSIONS):
        clock.now += timedelta(minutes=1)
        message = {"role": "user", "content": f"{said}!"}
        if dated:
            message["said_at"] = f"{day}T07:30:00Z"
        out = await call(client, "ingest_conversation", messages=[message], session_id=f"session-{i}")
        assert len(out["created"]) == 1
        await call(client, "reflect", force=True)
        found = {t["content"]: t for t in (await call(client, "get_user_traits", min_stage="trend"))["traits"]}
        stages.append(found.get(CORE))
    return stages


def model() -> ScriptedLLM:
    llm = ScriptedLLM()
    for i, (_, said) in enumerate(SESSIONS):
        llm.then({"memories": [{"content": said}]}, reflection(i, said))
    return llm


async def detail(client, trait_id: str) -> dict:
    return json.loads((await client.read_resource(f"engrain://traits/{trait_id}")).contents[0].text)


async def history(client, trait_id: str) -> list[str]:
    return [h["reason"] for h in (await detail(client, trait_id))["history"]]


async def test_an_imported_history_matures_over_its_own_months(settings_factory):
    clock = Clock(NOW)
    async with connect(settings_factory(), clock, model()) as (client, _):
        core = await import_history(client, clock, dated=True)
        # Upgraded after the fourth session with confidence enough for core, but its evidence came from
        # four sessions: held at established until the fifth, a month later, spreads it over five.
        assert core[3]["stage"] == "established" and core[3]["confidence"] >= 0.85
        assert core[4]["stage"] == "core" and core[5]["stage"] == "core"
        assert core[5]["first_observed"].startswith("2023-05-08")
        assert core[5]["last_reinforced"].startswith("2023-10-09")
        reasons = await history(client, core[5]["id"])
        assert any(
            r.endswith(
                "held at established: evidence from 4 occasions over 91 days, 2023-05-08 to 2023-08-07, "
                "and core needs evidence from 5 occasions over 30 days"
            )
            for r in reasons
        ), reasons
        assert "established → core (evidence from 5 occasions over 119 days, 2023-05-08 to 2023-09-04)" in reasons
        shown = await detail(client, core[5]["id"])
        assert shown["spread"] == "evidence from 6 occasions over 154 days, 2023-05-08 to 2023-10-09"
        assert {e["told_at"][:10] for e in shown["supporting"]} == {day for day, _ in SESSIONS}


async def test_the_same_messages_told_on_one_day_make_no_core_trait(settings_factory):
    clock = Clock(NOW)
    async with connect(settings_factory(), clock, model()) as (client, _):
        core = await import_history(client, clock, dated=False)
        assert core[5]["confidence"] >= 0.85 and core[5]["stage"] == "established"
        traits = (await call(client, "get_user_traits", min_stage="trend"))["traits"]
        assert all(t["stage"] != "core" for t in traits)
        reasons = await history(client, core[5]["id"])
        assert reasons[-1].endswith(
            "held at established: evidence from 6 occasions on 2026-11-23, "
            "and core needs evidence from 5 occasions over 30 days"
        ), reasons
        assert (await detail(client, core[5]["id"]))["spread"] == (
            "evidence from 6 occasions on 2026-11-23; core needs evidence from 5 occasions over 30 days"
        )
