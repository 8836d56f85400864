"""review_trait through the MCP client: endorse is grade-B evidence, dismiss dissolves and blocks the
trait from coming back, edit rewords and keeps the evidence; bad and foreign ids are refused."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from mcp import types

from engrain.providers.llm import Prompt
from engrain.rules.traits import reinforced
from tests.conftest import Clock, call, call_error, connect, execute
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
RUNNING = "Goes running early in the morning"


def proposes_running(prompt):
    return answer(
        new_behaviors=[
            {"content": RUNNING, "confidence": 0.45, "context": "personal", "evidence_ids": [alias(prompt, "ran 5k")]}
        ]
    )


async def a_trait(client) -> dict:
    await call(client, "remember", content="I ran 5k before work today")
    await call(client, "reflect", force=True)
    [trait] = (await call(client, "get_user_traits", min_stage="candidate", include_evidence=True))["traits"]
    return trait


async def detail(client, trait_id: str) -> dict:
    return json.loads((await client.read_resource(f"engrain://traits/{trait_id}")).contents[0].text)


async def test_endorse_is_grade_b_evidence(settings_factory):
    async with connect(settings_factory(), Clock(), ScriptedLLM(proposes_running)) as (client, _):
        trait = await a_trait(client)
        out = await call(client, "review_trait", trait_id=trait["id"], action="endorse")
        assert out["confidence"] == pytest.approx(reinforced(0.45, "B"), abs=1e-6)
        after = await detail(client, trait["id"])
        assert out["evidence_id"] in {m["id"] for m in after["supporting"]}
        assert after["history"][-2]["reason"].startswith("reinforced (B)")
        again = await call(client, "review_trait", trait_id=trait["id"], action="endorse")
        assert again["evidence_id"] == out["evidence_id"]  # one confirmation memory, reinforced twice
        assert again["confidence"] == pytest.approx(reinforced(reinforced(0.45, "B"), "B"), abs=1e-6)


async def test_edit_rewords_and_keeps_evidence(settings_factory):
    async with connect(settings_factory(), Clock(), ScriptedLLM(proposes_running)) as (client, _):
        trait = await a_trait(client)
        out = await call(
            client, "review_trait", trait_id=trait["id"], action="edit", content="Runs before work on weekdays"
        )
        assert out["content"] == "Runs before work on weekdays" and out["confidence"] == pytest.approx(0.45)
        after = await detail(client, trait["id"])
        assert {m["id"] for m in after["supporting"]} == set(trait["supporting_ids"])
        assert after["history"][-1]["action"] == "modify" and after["history"][-1]["reason"] == "edited by the user"
        assert after["content"] == "Runs before work on weekdays"


async def test_dismiss_dissolves_and_blocks_recreation(settings_factory):
    clock = Clock()
    llm = ScriptedLLM(proposes_running, proposes_running)
    async with connect(settings_factory(), clock, llm) as (client, _):
        trait = await a_trait(client)
        out = await call(client, "review_trait", trait_id=trait["id"], action="dismiss")
        assert out["stage"] == "dissolved"
        assert (await call(client, "get_user_traits", min_stage="trend"))["traits"] == []
        clock.now += timedelta(hours=1)
        await call(client, "remember", content="I ran 5k again this morning")
        result = await call(client, "reflect", force=True)
        assert result["traits_created"] == 0
        assert (await call(client, "get_user_traits", min_stage="trend"))["traits"] == []
        assert "dissolved" in await call_error(client, "review_trait", trait_id=trait["id"], action="endorse")


async def test_review_refuses_bad_input_and_other_users_traits(settings_factory):
    async with connect(settings_factory(), Clock(), ScriptedLLM(proposes_running)) as (owner, _):
        trait = await a_trait(owner)
        note = await call(owner, "remember", content="A plain fact, not a trait")
        async with connect(settings_factory()) as (other, _):
            assert "no memory with id" in await call_error(
                other, "review_trait", trait_id=trait["id"], action="dismiss"
            )
        assert "no memory with id" in await call_error(owner, "review_trait", trait_id=note["id"], action="endorse")
        assert "content: edit needs" in await call_error(owner, "review_trait", trait_id=trait["id"], action="edit")
        assert "content: only edit" in await call_error(
            owner, "review_trait", trait_id=trait["id"], action="dismiss", content="x"
        )
        assert "trait_id" in await call_error(owner, "review_trait", trait_id="nope", action="endorse")
        assert (await detail(owner, trait["id"]))["stage"] == "candidate"  # nothing changed


async def test_traits_as_of_are_rebuilt_from_history(settings_factory):
    clock = Clock()
    t0 = clock.now
    async with connect(settings_factory(), clock, ScriptedLLM(proposes_running)) as (client, _):
        trait = await a_trait(client)
        clock.now = t0 + timedelta(days=1)
        endorsed = await call(client, "review_trait", trait_id=trait["id"], action="endorse")
        clock.now = t0 + timedelta(days=2)
        await call(client, "review_trait", trait_id=trait["id"], action="edit", content="Runs at dawn")
        clock.now = t0 + timedelta(days=3)

        async def then(delta: timedelta, min_stage: str = "candidate") -> list[dict]:
            out = await call(client, "get_user_traits", min_stage=min_stage, as_of=(t0 + delta).isoformat())
            return out["traits"]

        [first] = await then(timedelta(hours=12))
        assert (first["stage"], first["confidence"], first["content"]) == ("candidate", pytest.approx(0.45), RUNNING)
        assert await then(timedelta(hours=12), "emerging") == []
        [second] = await then(timedelta(hours=36))
        assert second["stage"] == endorsed["stage"] == "emerging" and second["content"] == RUNNING
        assert second["confidence"] == pytest.approx(endorsed["confidence"])
        [now] = await then(timedelta(days=3))
        assert now["content"] == "Runs at dawn"
        assert await then(-timedelta(hours=1)) == []
        assert "as_of" in await call_error(client, "get_user_traits", as_of="the day after never")


async def near_core_trait(client, app) -> dict:
    """An established trait close to core, with evidence told on three days (what established needs)."""
    trait = await a_trait(client)
    for told in ("3 days ago", "a week ago"):
        memory = await call(client, "remember", content=f"Ran before work, {told}", said_at=told)
        await execute(
            app,
            "INSERT INTO trait_evidence (user_id, trait_id, memory_id, polarity, quality) "
            "VALUES (:u, :t, :m, 'supporting', 'C')",
            u=app.settings.user,
            t=uuid.UUID(trait["id"]),
            m=uuid.UUID(memory["id"]),
        )
    await execute(
        app,
        "UPDATE memories SET trait_stage = 'established', trait_confidence = 0.8 WHERE id = :id",
        id=uuid.UUID(trait["id"]),
    )
    return trait


def answering(confirm: bool | None, asked: list[str]):
    async def callback(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if confirm is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"confirm": confirm})

    return callback


@pytest.mark.parametrize(
    ("confirm", "stage", "confidence"),
    [(True, "established", reinforced(0.8, "B")), (False, "dissolved", 0.8), (None, "established", 0.8)],
)
async def test_reflect_asks_before_a_trait_becomes_core(settings_factory, confirm, stage, confidence):
    asked: list[str] = []
    async with connect(
        settings_factory(),
        Clock(),
        ScriptedLLM(proposes_running, answer()),
        elicitation_callback=answering(confirm, asked),
    ) as (client, app):
        trait = await near_core_trait(client, app)
        out = await call(client, "reflect", force=True)
        assert len(asked) == 1 and RUNNING in asked[0]
        said = {True: "confirmed", False: "rejected", None: "not answered"}[confirm]
        assert out["user_confirmation"].startswith(said)
        after = await detail(client, trait["id"])
        assert after["stage"] == stage and after["confidence"] == pytest.approx(confidence, abs=1e-6)
        await call(client, "reflect", force=True)
        assert len(asked) == 1  # asked once per trait


async def test_reflect_never_waits_for_a_client_without_elicitation(settings_factory):
    async with connect(settings_factory(), Clock(), ScriptedLLM(proposes_running, answer())) as (client, app):
        trait = await near_core_trait(client, app)
        out = await call(client, "reflect", force=True)
        assert out["user_confirmation"] is None and out["status"] == "completed"
        assert (await detail(client, trait["id"]))["confidence"] == pytest.approx(0.8)


async def test_elicitation_and_sampling_together_complete_a_cycle(settings_factory):
    """The user's answer writes an endorsement memory; it used to land before the cycle re-planned, so
    the prompt the client's model had answered no longer matched and the cycle failed."""
    asked: list[str] = []
    sampled: list[str] = []

    async def sample(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        text = params.messages[0].content.text
        sampled.append(text)
        reply = proposes_running(Prompt("", text)) if len(sampled) == 1 else answer()  # the first builds the trait
        return types.CreateMessageResult(
            role="assistant", model="client-model", content=types.TextContent(type="text", text=json.dumps(reply))
        )

    clock = Clock()
    async with connect(
        settings_factory(llm="sampling"), clock, sampling_callback=sample, elicitation_callback=answering(True, asked)
    ) as (client, app):
        trait = await near_core_trait(client, app)
        clock.now += timedelta(minutes=5)
        await call(client, "remember", content="Ran a half marathon on Sunday")
        out = await call(client, "reflect", force=True)
        assert out["status"] == "completed" and out["llm"] == "sampling" and out["error"] is None
        assert len(asked) == 1 and len(sampled) == 2 and out["user_confirmation"].startswith("confirmed")
        assert (await detail(client, trait["id"]))["confidence"] > 0.8


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_memory_arriving_while_the_client_samples_waits_for_the_next_reflection(settings_factory, mode):
    """The client's model answers about the memories it was shown; one that arrives meanwhile (another
    client) never makes the answer land on other memories than those it cited."""
    settings = settings_factory(llm="sampling")
    clock = Clock()
    shown: list[str] = []
    async with connect(settings, clock) as (other, _):

        async def sample(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
            text = params.messages[0].content.text
            shown.append(text)
            if len(shown) == 1:
                clock.now += timedelta(seconds=1)
                await call(other, "remember", content="I also started climbing on Thursdays")
            reply = answer(new_trends=[{"content": "Runs early", "evidence_ids": [alias(Prompt("", text), "ran 5k")]}])
            return types.CreateMessageResult(
                role="assistant", model="m", content=types.TextContent(type="text", text=json.dumps(reply))
            )

        async with connect(settings, clock, sampling_callback=sample, mode=mode) as (client, _):
            await call(client, "remember", content="I ran 5k before work today")
            clock.now += timedelta(seconds=1)
            out = await call(client, "reflect", force=True)
            assert out["status"] == "completed" and out["traits_created"] == 1 and "climbing" not in shown[0]
            if mode == "legacy":  # one request: the body applies the answer to the plan the model was shown
                assert len(shown) == 1 and out["memories_scanned"] == 1 and out["memories_pending"] == 1
            else:  # input-required rounds: the changed prompt is asked again, and the answer covers both
                assert len(shown) == 2 and "climbing" in shown[1] and out["memories_scanned"] == 2
            [trend] = (await call(client, "get_user_traits", min_stage="trend", include_evidence=True))["traits"]
            assert len(trend["supporting_ids"]) == 1
