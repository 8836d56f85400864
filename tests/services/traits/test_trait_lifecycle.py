"""The trait lifecycle end to end through MCP, with a scripted LLM and a moving clock:
a behavior is created, reinforced to established, upgraded to a preference, contradicted,
reviewed, and finally dissolved by decay. Plus the gates and refusals on the way."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import pytest

from engrain.rules.traits import reinforced
from tests.conftest import Clock, call, connect
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
BEHAVIOR = "Chooses to walk when possible"
PREFERENCE = "Prefers active transport over cars and buses"
REWORDED = "Prefers walking or cycling for short trips"


async def traits(client, **args) -> dict[str, dict]:
    return {t["content"]: t for t in (await call(client, "get_user_traits", **args))["traits"]}


async def trait_resource(client, trait_id: str) -> dict:
    return json.loads((await client.read_resource(f"engrain://traits/{trait_id}")).contents[0].text)


async def test_behavior_to_preference_to_dissolution(settings_factory):
    clock = Clock(T0)
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {
                    "content": BEHAVIOR,
                    "confidence": 0.5,
                    "context": "personal",
                    "evidence_ids": [alias(p, "stairs"), alias(p, "Walked")],
                }
            ]
        ),
        lambda p: answer(
            reinforcements=[
                {"trait_id": alias(p, BEHAVIOR), "new_evidence_ids": [alias(p, "Biked")], "quality_grade": "A"}
            ]
        ),
        lambda p: answer(
            upgrades=[
                {
                    "from_trait_ids": [alias(p, BEHAVIOR)],
                    "new_content": PREFERENCE,
                    "new_subtype": "preference",
                    "reasoning": "walks and bikes across contexts",
                }
            ]
        ),
        lambda p: answer(
            contradictions=[
                {
                    "trait_id": alias(p, PREFERENCE),
                    "description": "drives a lot now",
                    "contradicting_evidence_ids": [alias(p, "Drove"), alias(p, "taxi")],
                }
            ]
        ),
        lambda p: {"decisions": [{"trait_id": alias(p, PREFERENCE), "action": "modify", "new_content": REWORDED}]},
        answer(),
    )
    async with connect(settings_factory(), clock, llm) as (client, _):
        # 1. A behavior is created (candidate at 0.5) from what was told on two days.
        await call(
            client,
            "remember",
            content="Takes the stairs instead of the elevator at the office",
            said_at=(T0 - timedelta(days=1)).isoformat(),
        )
        await call(client, "remember", content="Walked to work instead of taking the bus")
        await call(client, "reflect")
        behavior = (await traits(client, min_stage="candidate"))[BEHAVIOR]
        assert behavior["stage"] == "candidate" and behavior["confidence"] == pytest.approx(0.5)

        # 2. One day later it is reinforced with grade A: decay of that day first, then c + (1-c)·0.25;
        # with evidence from three days it may be established.
        clock.now += timedelta(days=1)
        await call(client, "remember", content="Biked to the grocery store")
        await call(client, "reflect", force=True)
        expected = reinforced(0.5 * math.exp(-0.005 / 1.5), "A", 1)  # told a day after the last: spaced
        behavior = (await traits(client))[BEHAVIOR]
        assert behavior["stage"] == "established" and behavior["confidence"] == pytest.approx(expected, abs=1e-6)
        assert behavior["reinforcement_count"] == 2

        # 3. The next day it is upgraded to a preference starting at max(source) + 0.1.
        clock.now += timedelta(days=1)
        await call(client, "remember", content="Bought a folding bike")
        await call(client, "reflect", force=True)
        now_traits = await traits(client)
        preference = now_traits[PREFERENCE]
        source = now_traits[BEHAVIOR]
        assert preference["subtype"] == "preference" and preference["stage"] == "established"
        assert preference["confidence"] == pytest.approx(source["confidence"] + 0.1, abs=1e-6)
        assert source["parent_id"] == preference["id"]
        detail = await trait_resource(client, preference["id"])
        assert {m["content"] for m in detail["supporting"]} >= {
            "Takes the stairs instead of the elevator at the office",
            "Biked to the grocery store",
        }
        assert [c["id"] for c in detail["children"]] == [source["id"]]

        # 4. Two contradicting memories: ×0.6, and a review (2 of 4 observations contradict) rewords it.
        clock.now += timedelta(days=1)
        await call(client, "remember", content="Drove to work every day this week")
        await call(client, "remember", content="Took a taxi to the airport")
        out = await call(client, "reflect", force=True)
        assert out["llm_calls"] == 2
        # The review quotes each piece of evidence with the day it was said.
        review = llm.prompts[-1].user
        day = (T0 + timedelta(days=3)).date().isoformat()
        assert f"[said {day}] «Drove to work every day this week»" in review
        assert f"[said {(T0 - timedelta(days=1)).date().isoformat()}] «Takes the stairs" in review
        reviewed = (await traits(client))[REWORDED]
        assert reviewed["id"] == preference["id"] and reviewed["contradiction_count"] == 2
        assert reviewed["confidence"] < preference["confidence"] * 0.6 + 1e-9
        assert reviewed["stage"] == "emerging"
        detail = await trait_resource(client, preference["id"])
        assert {m["content"] for m in detail["contradicting"]} == {
            "Drove to work every day this week",
            "Took a taxi to the airport",
        }
        actions = [h["action"] for h in detail["history"]]
        assert "modify" in actions and actions.count("stage") >= 1

        # 5. Years without reinforcement: decay dissolves it (and its source behavior).
        clock.now += timedelta(days=1500)
        await call(client, "remember", content="A note years later")
        out = await call(client, "reflect", force=True)
        assert out["traits_dissolved"] >= 2
        assert REWORDED not in await traits(client, min_stage="trend")
        detail = await trait_resource(client, preference["id"])
        assert detail["stage"] == "dissolved" and detail["history"][-1]["action"] == "dissolve"


async def test_upgrade_gates_and_cycle_refusal(settings_factory):
    clock = Clock(T0)

    def note(p):
        return [alias(p, "Step note")]

    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {"content": "Reads before bed", "confidence": 0.45, "evidence_ids": [alias(p, "novel")]},
                {"content": "Listens to audiobooks", "confidence": 0.5, "evidence_ids": [alias(p, "audiobook")]},
            ]
        ),
        # Refused: one source is below the 0.5 gate.
        lambda p: answer(
            upgrades=[
                {
                    "from_trait_ids": [alias(p, "Reads before bed"), alias(p, "Listens to")],
                    "new_content": "Loves stories",
                    "new_subtype": "preference",
                }
            ]
        ),
        # Refused: a behavior cannot become core directly.
        lambda p: answer(
            upgrades=[
                {"from_trait_ids": [alias(p, "Listens to")], "new_content": "Values stories", "new_subtype": "core"}
            ]
        ),
        # Applied: reinforced above 0.5 first, then upgraded; the preference starts at max + 0.1.
        lambda p: answer(
            reinforcements=[{"trait_id": alias(p, "Listens to"), "new_evidence_ids": note(p), "quality_grade": "D"}],
            upgrades=[
                {
                    "from_trait_ids": [alias(p, "Listens to")],
                    "new_content": "Loves stories",
                    "new_subtype": "preference",
                }
            ],
        ),
        # Refused: contradicted to ~0.5, below the 0.6 gate of preference → core.
        lambda p: answer(
            contradictions=[
                {
                    "trait_id": alias(p, "Loves stories"),
                    "contradicting_evidence_ids": note(p),
                    "description": "skipped reading",
                }
            ],
            upgrades=[
                {
                    "from_trait_ids": [alias(p, "Loves stories")],
                    "new_content": "Values imagination",
                    "new_subtype": "core",
                }
            ],
        ),
        # Refused: the target is the preference's own source, so parents would form a cycle.
        lambda p: answer(
            reinforcements=[{"trait_id": alias(p, "Loves stories"), "new_evidence_ids": note(p), "quality_grade": "A"}],
            upgrades=[
                {
                    "from_trait_ids": [alias(p, "Loves stories")],
                    "new_content": "Listens to audiobooks",
                    "new_subtype": "core",
                }
            ],
        ),
    )
    async with connect(settings_factory(), clock, llm) as (client, _):
        await call(client, "remember", content="Finished a novel last night")
        await call(client, "remember", content="Started a new audiobook on the commute")
        await call(client, "reflect")
        for step in range(5):
            clock.now += timedelta(minutes=2)
            await call(client, "remember", content=f"Step note {step}")
            await call(client, "reflect", force=True)
            found = await traits(client, min_stage="candidate")
            if step < 2:
                assert "Loves stories" not in found and "Values stories" not in found
            if step == 2:
                source = found["Listens to audiobooks"]["confidence"]
                assert found["Loves stories"]["confidence"] == pytest.approx(source + 0.1, abs=1e-6)
        assert found["Loves stories"]["subtype"] == "preference"
        assert "Values imagination" not in found
        assert not [t for t in found.values() if t["subtype"] == "core"]
        assert found["Listens to audiobooks"]["parent_id"] == found["Loves stories"]["id"]
        assert found["Loves stories"]["parent_id"] is None


async def test_review_can_dissolve_a_trait(settings_factory):
    clock = Clock(T0)
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[{"content": "Is vegetarian", "confidence": 0.5, "evidence_ids": [alias(p, "tofu")]}]
        ),
        lambda p: answer(
            contradictions=[
                {
                    "trait_id": alias(p, "Is vegetarian"),
                    "description": "eats meat",
                    "contradicting_evidence_ids": [alias(p, "steak"), alias(p, "burger")],
                }
            ]
        ),
        lambda p: {"decisions": [{"trait_id": alias(p, "Is vegetarian"), "action": "dissolve"}]},
    )
    async with connect(settings_factory(), clock, llm) as (client, _):
        await call(client, "remember", content="Cooked tofu stir fry")
        await call(client, "reflect")
        clock.now += timedelta(minutes=5)
        await call(client, "remember", content="Had a steak for dinner")
        await call(client, "remember", content="Grabbed a burger at lunch")
        out = await call(client, "reflect", force=True)
        assert out["llm_calls"] == 2 and out["traits_dissolved"] == 1
        assert "contradicted often" in llm.prompts[2].user and "Is vegetarian" in llm.prompts[2].user
        assert await traits(client, min_stage="trend") == {}


async def test_single_contradiction_multiplies_by_0_8_without_review(settings_factory):
    clock = Clock(T0)
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[{"content": "Works late", "confidence": 0.5, "evidence_ids": [alias(p, "midnight")]}]
        ),
        lambda p: answer(
            contradictions=[
                {
                    "trait_id": alias(p, "Works late"),
                    "description": "left early",
                    "contradicting_evidence_ids": [alias(p, "5pm")],
                }
            ]
        ),
    )
    async with connect(settings_factory(), clock, llm) as (client, _):
        await call(client, "remember", content="Coded until midnight")
        await call(client, "reflect")
        clock.now += timedelta(minutes=1)
        await call(client, "remember", content="Left the office at 5pm sharp")
        out = await call(client, "reflect", force=True)
        assert out["llm_calls"] == 1
        trait = (await traits(client, min_stage="candidate"))["Works late"]
        after_decay = 0.5 * math.exp(-0.005 / 1.5 / 1440)  # one minute of decay (1 + 0.5 · 1), then × 0.8
        assert trait["confidence"] == pytest.approx(after_decay * 0.8, abs=1e-6) and trait["stage"] == "emerging"
