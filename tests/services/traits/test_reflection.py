"""reflect through a real MCP client with a scripted LLM: triggers, stages of the cycle, the
watermark, concurrency, and ids the model must not be trusted with."""

from __future__ import annotations

import json
import math
import re
import uuid
from datetime import UTC, datetime, timedelta

import anyio
import pytest

from engrain.rules.traits import PROMOTED_CONFIDENCE, TREND_CONFIDENCE, reinforced
from engrain.services.traits.reflection.cycle import lock_name
from engrain.storage.db import advisory_key
from tests.conftest import Clock, call, connect, scalar
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
T0 = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


async def traits(client, **args) -> list[dict]:
    return (await call(client, "get_user_traits", **args))["traits"]


async def read_json(client, uri: str):
    return json.loads((await client.read_resource(uri)).contents[0].text)


async def remember_all(client, *texts: str, **kw) -> list[str]:
    return [(await call(client, "remember", content=t, **kw))["id"] for t in texts]


async def test_first_reflection_creates_a_behavior_with_evidence(settings_factory, clock):
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {
                    "content": "Goes running early in the morning",
                    "confidence": 0.45,
                    "context": "personal",
                    "evidence_ids": [alias(p, "ran 5k"), alias(p, "6am run")],
                }
            ]
        )
    )
    async with connect(settings_factory(), clock, llm) as (client, app):
        ran, early, _ = await remember_all(
            client, "I ran 5k before work today", "Did my usual 6am run by the river", "Bought new headphones"
        )
        out = await call(client, "reflect")
        assert out["triggered"] and out["trigger_type"] == "first_time" and out["status"] == "completed"
        assert out["llm"] == "scripted" and out["llm_calls"] == 1 and out["traits_created"] == 1
        assert out["memories_scanned"] == 3
        [trait] = await traits(client, min_stage="candidate", include_evidence=True)
        assert trait["stage"] == "candidate" and trait["confidence"] == pytest.approx(0.45)
        assert set(trait["supporting_ids"]) == {ran, early}
        detail = await read_json(client, f"engrain://traits/{trait['id']}")
        assert {m["content"] for m in detail["supporting"]} == {
            "I ran 5k before work today",
            "Did my usual 6am run by the river",
        }
        assert [h["action"] for h in detail["history"]] == ["create"]
        cycle = await scalar(app, "SELECT status FROM reflection_cycles WHERE id = :id", id=uuid.UUID(out["cycle_id"]))
        assert cycle == "completed"
        assert "JSON" in llm.prompts[0].system and "ran 5k" in llm.prompts[0].user


async def test_behavior_confidence_is_clamped(settings_factory, clock):
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {"content": "Cooks at home", "confidence": 0.95, "evidence_ids": [alias(p, "lasagna")]},
                {"content": "Skips breakfast", "confidence": 0.01, "evidence_ids": [alias(p, "breakfast")]},
            ]
        )
    )
    async with connect(settings_factory(), clock, llm) as (client, _):
        await remember_all(client, "Made lasagna from scratch", "No breakfast again today")
        await call(client, "reflect")
        found = {t["content"]: t["confidence"] for t in await traits(client, min_stage="candidate")}
        assert found == {"Cooks at home": pytest.approx(0.5), "Skips breakfast": pytest.approx(0.3)}


async def test_triggers_idempotency_and_force(settings_factory, clock):
    llm = ScriptedLLM(answer(), answer(), answer())
    async with connect(settings_factory(), clock, llm) as (client, app):
        assert (await call(client, "reflect"))["reason"] == "no new memories since the last reflection"
        await remember_all(client, "Likes jazz")
        assert (await call(client, "reflect"))["trigger_type"] == "first_time"
        clock.now += timedelta(seconds=30)
        await remember_all(client, "Likes blues")
        again = await call(client, "reflect")
        assert not again["triggered"] and "60 s" in again["reason"]
        clock.now += timedelta(seconds=31)
        below = await call(client, "reflect")
        assert not below["triggered"] and "importance 5 < 30" in below["reason"]
        forced = await call(client, "reflect", force=True)
        assert forced["triggered"] and forced["trigger_type"] == "manual"
        clock.now += timedelta(hours=24, seconds=1)
        await remember_all(client, "Likes soul")
        scheduled = await call(client, "reflect")
        assert scheduled["trigger_type"] == "scheduled" and scheduled["llm_calls"] == 1
        assert len(llm.prompts) == 3
        assert (
            await scalar(app, "SELECT last_reflected_at FROM user_state WHERE user_id = :u", u=app.settings.user)
            == clock.now
        )


async def test_importance_accumulated_is_two_stage(settings_factory, clock):
    def main(p):
        assert "Older memories (evidence, and the facts a new memory may replace):" in p.user
        return answer(new_trends=[{"content": "Is preparing for a marathon", "evidence_ids": [alias(p, "Valencia")]}])

    questions = {"questions": ["Has the user run a half marathon before?", "Does the user train weekly?"]}
    llm = ScriptedLLM(answer(), questions, main)
    async with connect(settings_factory(), clock, llm) as (client, _):
        await remember_all(client, "Ran my first half marathon in 2023")
        await call(client, "reflect")  # first_time, single stage
        clock.now += timedelta(minutes=5)
        await remember_all(
            client,
            "Signed up for the Valencia marathon",
            "Training plan: 4 runs a week",
            "Bought carbon running shoes",
            importance=10,
        )
        out = await call(client, "reflect")
        assert out["trigger_type"] == "importance_accumulated" and out["llm_calls"] == 2
        assert "3 to 5" in llm.prompts[1].user and "questions" in llm.prompts[1].user
        assert "first half marathon" in llm.prompts[2].user  # evidence retrieved by recall
        [trend] = await traits(client, min_stage="trend")
        assert trend["stage"] == "trend" and trend["content"] == "Is preparing for a marathon"


async def test_watermark_does_not_move_when_the_llm_fails(settings_factory, clock):
    llm = ScriptedLLM("I think the user likes tea.", "still not JSON", "{}")
    async with connect(settings_factory(), clock, llm) as (client, app):
        await call(client, "remember", content="Dentist appointment on 2026-11-23")
        await remember_all(client, "Drinks green tea daily")
        clock.now += timedelta(days=2)  # the appointment is now in the past
        out = await call(client, "reflect")
        assert out["triggered"] and out["status"] == "failed" and "JSON" in out["error"]
        assert out["llm_calls"] == 1 and len(llm.prompts) == 2  # one retry on a parse failure
        assert await scalar(app, "SELECT count(*) FROM user_state WHERE user_id = :u", u=app.settings.user) == 0
        row = await scalar(
            app,
            "SELECT json_build_array(status, error) FROM reflection_cycles WHERE id = :id",
            id=uuid.UUID(out["cycle_id"]),
        )
        assert row[0] == "failed" and "JSON" in row[1]
        # Code-only results are kept: the past appointment became historical.
        assert (
            await scalar(
                app,
                "SELECT temporality FROM memories WHERE content LIKE 'Dentist%' AND user_id = :u",
                u=app.settings.user,
            )
            == "historical"
        )
        retry = await call(client, "reflect")  # the watermark did not move: still first_time
        assert retry["trigger_type"] == "first_time" and retry["status"] == "completed"


async def test_retry_once_then_success(settings_factory, clock):
    llm = ScriptedLLM("Sure! Here you go:", lambda p: "```json\n" + json.dumps(answer()) + "\n```")
    async with connect(settings_factory(), clock, llm) as (client, _):
        await remember_all(client, "Plays the violin")
        out = await call(client, "reflect")
        assert out["status"] == "completed" and len(llm.prompts) == 2
        assert "not valid JSON" in llm.prompts[1].user


async def test_hallucinated_and_foreign_ids_are_ignored(settings_factory, clock):
    async with connect(settings_factory(), clock) as (other, _):
        foreign = (await call(other, "remember", content="Someone else's memory about sailing"))["id"]

    def reply(p):
        mine = alias(p, "sailing lessons")
        return answer(
            new_behaviors=[{"content": "Sails", "evidence_ids": [foreign, str(uuid.uuid4()), "m99"]}],
            new_trends=[{"content": "Into boats", "evidence_ids": [mine, foreign]}],
            reinforcements=[{"trait_id": str(uuid.uuid4()), "new_evidence_ids": [mine], "quality_grade": "A"}],
            contradictions=[{"trait_id": "t7", "contradicting_evidence_ids": [mine], "description": "x"}],
            upgrades=[{"from_trait_ids": [foreign], "new_content": "Loves the sea", "new_subtype": "preference"}],
            links=[
                {"source_id": mine, "target_id": foreign, "relation": "related"},
                {"source_id": mine, "target_id": "m42", "relation": "related"},
            ],
        )

    async with connect(settings_factory(), clock, ScriptedLLM(reply)) as (client, app):
        await remember_all(client, "Took sailing lessons on the lake")
        out = await call(client, "reflect")
        assert out["status"] == "completed" and out["traits_created"] == 1 and out["links_created"] == 0
        [trend] = await traits(client, min_stage="trend", include_evidence=True)
        assert trend["content"] == "Into boats" and len(trend["supporting_ids"]) == 1
        assert await scalar(app, "SELECT count(*) FROM memory_links WHERE user_id = :u", u=app.settings.user) == 0
        assert await scalar(app, "SELECT count(*) FROM trait_evidence WHERE memory_id = :m", m=uuid.UUID(foreign)) == 0


async def test_two_concurrent_reflects_run_once(settings_factory, clock):
    gate = anyio.Event()

    async def slow_reply(p):
        await gate.wait()
        return json.dumps(answer())

    class SlowLLM(ScriptedLLM):
        async def complete(self, prompt):
            self.prompts.append(prompt)
            return await slow_reply(prompt)

    llm = SlowLLM()
    async with connect(settings_factory(), clock, llm) as (client, app):
        await remember_all(client, "Collects vinyl records")
        results = []

        async def run():
            results.append(await call(client, "reflect"))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            tg.start_soon(run)
            await anyio.sleep(0.5)
            gate.set()
        assert sorted(r["triggered"] for r in results) == [False, True]
        assert "already running" in next(r for r in results if not r["triggered"])["reason"]
        assert len(llm.prompts) == 1
        assert await scalar(app, "SELECT count(*) FROM reflection_cycles WHERE user_id = :u", u=app.settings.user) == 1
        # The lock is released afterwards.
        db = await app.database()
        async with db.engine.connect() as conn:
            from sqlalchemy import text

            key = advisory_key(lock_name(app.settings.user))
            assert await conn.scalar(text("SELECT pg_try_advisory_lock(:k)"), {"k": key})
            await conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})


async def test_llm_none_runs_code_only_steps(settings_factory, clock):
    async with connect(settings_factory(llm="none"), clock) as (client, app):
        await call(client, "remember", content="Flight to Oslo", event_time="2026-11-23")
        clock.now += timedelta(days=3)
        out = await call(client, "reflect")
        assert out["triggered"] and out["status"] == "code_only" and out["llm"] == "none" and out["llm_calls"] == 0
        assert (
            await scalar(app, "SELECT temporality FROM memories WHERE user_id = :u", u=app.settings.user)
            == "historical"
        )
        # No model looked at the memory (issue 13): the watermark stays, the memory waits for one.
        assert (
            await scalar(app, "SELECT last_reflected_at FROM user_state WHERE user_id = :u", u=app.settings.user)
            is None
        )
        assert out["memories_pending"] == 1


async def test_memory_and_trait_limits(settings_factory, clock):
    """A cycle shows at most MEMORY_CHARS of memory lines (issue 61: 200 of these short lines would not fit) and 50
    traits; the rest of the memories wait for the next cycle."""
    shown: list[int] = []

    def reply(p):
        shown.append(len(re.findall(r"^\[m\d+\]", p.user, re.M)))
        assert "[t50]" in p.user and "[t51]" not in p.user
        return answer()

    async with connect(settings_factory(), clock, ScriptedLLM(reply)) as (client, app):
        db = await app.database()
        from sqlalchemy import text

        async with db.sessions.begin() as s:
            await s.execute(
                text(
                    "INSERT INTO memories (id, user_id, kind, content, content_hash, importance, created_at) "
                    "SELECT gen_random_uuid(), :u, 'fact', 'Bulk fact ' || g, md5('b' || g), 1 + g % 10, :t "
                    "FROM generate_series(1, 230) g"
                ),
                {"u": app.settings.user, "t": clock.now},
            )
            await s.execute(
                text(
                    "INSERT INTO memories (id, user_id, kind, content, content_hash, trait_subtype, trait_stage, "
                    "trait_confidence, trait_context) SELECT gen_random_uuid(), :u, 'trait', 'Trait ' || g, "
                    "md5('t' || g), 'behavior', 'emerging', 0.4, 'general' FROM generate_series(1, 60) g"
                ),
                {"u": app.settings.user},
            )
        clock.now += timedelta(seconds=1)
        out = await call(client, "reflect")
        assert out["memories_scanned"] == shown[0] and 100 < shown[0] < 200, (out, shown)
        assert out["memories_pending"] == 230 - shown[0]


async def test_decay_follows_the_formula_and_never_double_counts(settings_factory, clock):
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[{"content": "Writes a journal", "confidence": 0.5, "evidence_ids": [alias(p, "journal")]}]
        ),
        answer(),
        answer(),
    )
    async with connect(settings_factory(), clock, llm) as (client, _):
        await remember_all(client, "Wrote in my journal tonight")
        await call(client, "reflect")
        for days in (10, 20):  # two passes: 10 days, then 10 more
            clock.now = T0 + timedelta(days=days)
            await call(client, "remember", content=f"Unrelated note on day {days}")
            await call(client, "reflect", force=True)
        [trait] = await traits(client, min_stage="candidate")
        assert trait["confidence"] == pytest.approx(0.5 * math.exp(-0.005 / 1.5 * 20), abs=1e-6)


async def test_trend_promotion_and_expiry(settings_factory, clock):
    def first(p):
        return answer(
            new_trends=[
                {"content": "Is learning Portuguese", "evidence_ids": [alias(p, "Portuguese")]},
                {"content": "Feels tired in the evenings", "evidence_ids": [alias(p, "tired")]},
            ]
        )

    def second(p):
        return answer(
            reinforcements=[
                {
                    "trait_id": alias(p, "Is learning Portuguese"),
                    "new_evidence_ids": [alias(p, "Duolingo")],
                    "quality_grade": "C",
                }
            ]
        )

    llm = ScriptedLLM(first, second, answer(), answer())
    async with connect(settings_factory(), clock, llm) as (client, _):
        await remember_all(client, "Started Portuguese classes", "So tired tonight")
        await call(client, "reflect")
        found = {t["content"]: t for t in await traits(client, min_stage="trend")}
        assert found["Feels tired in the evenings"]["window_end"].startswith("2026-12-06")  # 14 days: a mood
        assert found["Is learning Portuguese"]["window_end"].startswith("2026-12-22")  # 30 days
        clock.now += timedelta(days=2)
        await remember_all(client, "Did a Duolingo streak of 10 days")
        await call(client, "reflect", force=True)
        clock.now += timedelta(days=1)
        await remember_all(client, "Note")
        await call(client, "reflect", force=True)  # promotion is a code-only step at the start of a cycle
        found = {t["content"]: t for t in await traits(client, min_stage="trend")}
        assert found["Is learning Portuguese"]["stage"] == "candidate"
        # Promoted keeping what the reinforcement earned (grade C, told 2 days after the first: issue 52), then the
        # same cycle's decay: 1 day since its last reinforcement, 2 reinforcements (λ / (1 + 0.5 · 2)).
        earned = max(PROMOTED_CONFIDENCE, reinforced(TREND_CONFIDENCE, "C", 2))
        assert earned > PROMOTED_CONFIDENCE
        assert found["Is learning Portuguese"]["confidence"] == pytest.approx(earned * math.exp(-0.005 / 2), abs=1e-6)
        clock.now += timedelta(days=15)  # the mood's 14-day window passed with a single observation
        await remember_all(client, "Booked the dentist for January")
        # The model looked at what was told after the window and did not see the mood again: it dissolves.
        out = await call(client, "reflect", force=True)
        assert out["traits_dissolved"] >= 1
        assert "Feels tired in the evenings" not in {t["content"] for t in await traits(client, min_stage="trend")}


async def test_dedup_against_existing_traits_reinforces(settings_factory, clock):
    def first(p):
        return answer(
            new_behaviors=[
                {"content": "Drinks coffee every morning", "confidence": 0.4, "evidence_ids": [alias(p, "espresso")]}
            ]
        )

    def second(p):
        return answer(
            new_behaviors=[
                {"content": "drinks coffee every morning.", "confidence": 0.4, "evidence_ids": [alias(p, "latte")]}
            ]
        )

    async with connect(settings_factory(), clock, ScriptedLLM(first, second)) as (client, _):
        await remember_all(client, "Double espresso at 7")
        await call(client, "reflect")
        clock.now += timedelta(minutes=2)
        await remember_all(client, "Oat latte before the standup")
        out = await call(client, "reflect", force=True)
        assert out["traits_created"] == 0 and out["traits_updated"] == 1
        [trait] = await traits(client, min_stage="candidate")
        before = 0.4 * math.exp(-0.005 / 1.5 * 2 / 1440)  # two minutes of decay, then a grade-C reinforcement
        assert trait["confidence"] == pytest.approx(reinforced(before, "C", 2 / 1440), abs=1e-6)
        assert trait["reinforcement_count"] == 2


async def test_reflect_reports_progress(settings_factory, clock):
    async with connect(settings_factory(), clock, ScriptedLLM(answer())) as (client, _):
        await remember_all(client, "Practises yoga")
        updates: list[tuple[float, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            updates.append((progress, message))

        result = await client.call_tool("reflect", {}, progress_callback=on_progress)
        assert not result.is_error
        assert [p for p, _ in updates] == sorted(p for p, _ in updates) and updates[-1] == (1.0, "done")
        assert any("asking the model" in (m or "") for _, m in updates)
