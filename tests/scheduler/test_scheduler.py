"""The bundled scheduler on its own database: job formulas, protected memories, archive vs delete,
catch-up, concurrency, failure isolation, dry runs and the end-of-session digest. Time is moved
with an injectable clock, never slept."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import anyio
import pytest

from engrain.scheduler.jobs import JOBS
from engrain.scheduler.runner import Scheduler
from engrain.server.state import AppState
from tests.conftest import Clock, call, connect, execute, scalar
from tests.scripted import ScriptedLLM, answer

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
TABLES = ("memories", "memory_links", "trait_evidence", "reflection_cycles", "memory_history", "user_state", "job_runs")


@pytest.fixture
def settings(settings_factory, fresh_database_url):
    def make(**overrides):
        return settings_factory(database_url=fresh_database_url, user="alice", **overrides)

    return make


@asynccontextmanager
async def running(settings, clock) -> AsyncIterator[AppState]:
    """A started app (database up) on the test's database, closed afterwards."""
    app = AppState(settings, clock)
    app.start()
    try:
        await app.database()
        yield app
    finally:
        await app.close()


async def add_memory(
    app,
    content: str,
    *,
    user: str = "alice",
    kind: str = "fact",
    created: datetime,
    accessed: datetime | None = None,
    count: int = 0,
    importance: int = 5,
    pinned: bool = False,
    temporality: str = "current",
    event_time: datetime | None = None,
    source: str | None = None,
) -> uuid.UUID:
    """A memory told when it was stored (`created`), as a live user tells things."""
    mid = uuid.uuid4()
    await execute(
        app,
        "INSERT INTO memories (id, user_id, kind, content, content_hash, created_at, told_at, last_accessed_at, "
        "access_count, importance, pinned, temporality, event_time, source) VALUES (:id, :u, :k, :c, md5(:c), "
        ":cr, :cr, :acc, :n, :imp, :pin, :tmp, :ev, :src)",
        id=mid,
        u=user,
        k=kind,
        c=content,
        cr=created,
        acc=accessed,
        n=count,
        imp=importance,
        pin=pinned,
        tmp=temporality,
        ev=event_time,
        src=source,
    )
    return mid


async def add_trait(
    app,
    content: str,
    *,
    confidence: float,
    subtype: str = "behavior",
    stage: str = "emerging",
    count: int = 0,
    reinforced: datetime,
    user: str = "alice",
) -> uuid.UUID:
    tid = uuid.uuid4()
    await execute(
        app,
        "INSERT INTO memories (id, user_id, kind, content, content_hash, trait_subtype, trait_stage, "
        "trait_confidence, trait_reinforcement_count, trait_last_reinforced, trait_context, created_at, told_at) "
        "VALUES (:id, :u, 'trait', :c, md5(:c), :st, :sg, :cf, :n, :r, 'general', :r, :r)",
        id=tid,
        u=user,
        c=content,
        st=subtype,
        sg=stage,
        cf=confidence,
        n=count,
        r=reinforced,
    )
    return tid


def retention(days: float, count: int, lam: float = 0.1) -> float:
    return min(1.0, math.exp(-lam * days) * (1 + math.log(1 + count)) / 5)


async def live(app, mid) -> bool:
    return bool(await scalar(app, "SELECT valid_until IS NULL FROM memories WHERE id = :id", id=mid))


async def test_retention_follows_the_formula(settings):
    clock = Clock(NOW)
    async with running(settings(), clock) as app:
        cases = {}
        for days, count in [(3, 0), (8, 0), (20, 0), (20, 5), (40, 5), (10, 50), (60, 50)]:
            mid = await add_memory(
                app, f"memory {days}d {count}x", created=NOW - 90 * DAY, accessed=NOW - days * DAY, count=count
            )
            cases[mid] = retention(days, count)
        result = await app.scheduler.run("decay")
        assert result.status == "completed"
        for mid, value in cases.items():
            assert await live(app, mid) == (value >= 0.1), (value, mid)
        assert result.stats["memories_archived"] == sum(v < 0.1 for v in cases.values())
        reason = await scalar(app, "SELECT reason FROM memory_history WHERE action = 'archive' LIMIT 1")
        assert reason.startswith("retention 0.") and reason.endswith("below 0.1")


async def test_long_idle_memories_fade_without_float_underflow(settings):
    clock = Clock(NOW)
    async with running(settings(retention_profile="sensitive"), clock) as app:
        ancient = await add_memory(app, "idle for years", created=NOW - 4000 * DAY)  # λ·days = 1200
        trait = await add_trait(app, "ancient trait", confidence=0.9, reinforced=NOW - 200_000 * DAY)
        result = await app.scheduler.run("decay")
        assert result.status == "completed" and not await live(app, ancient)
        assert await scalar(app, "SELECT trait_stage FROM memories WHERE id = :id", id=trait) == "dissolved"


async def test_profiles_and_overrides(settings):
    assert settings(retention_profile="sensitive").retention_params == (0.3, 0.2)
    assert settings(retention_profile="archival").retention_params == (0.02, 0.02)
    assert settings(retention_profile="fast", retention_lambda=0.5).retention_params == (0.5, 0.15)
    clock = Clock(NOW)
    async with running(settings(retention_profile="slow"), clock) as app:
        kept = await add_memory(app, "slow profile keeps this", created=NOW - 30 * DAY, accessed=NOW - 20 * DAY)
        await app.scheduler.run("decay")
        assert retention(20, 0, lam=0.05) >= 0.05 and await live(app, kept)


async def test_protected_memories_are_never_touched(settings):
    clock = Clock(NOW)
    old = NOW - 400 * DAY
    async with running(settings(), clock) as app:
        protected = [
            await add_memory(app, "pinned", created=old, pinned=True),
            await add_memory(app, "important", created=old, importance=8),
            await add_memory(app, "future plan", created=old, temporality="prospective", event_time=NOW + 3 * DAY),
            await add_memory(app, "undated plan", created=old, temporality="prospective"),
            await add_memory(app, "a procedure", created=old, kind="procedural"),
            await add_memory(app, "young", created=NOW - 6 * DAY, accessed=NOW - 6 * DAY),
            await add_trait(app, "a trait", confidence=0.9, stage="core", subtype="core", reinforced=NOW),
        ]
        faded = await add_memory(app, "forgotten episode", kind="episodic", created=old)
        result = await app.scheduler.run("decay")
        assert result.stats["memories_archived"] == 1 and not await live(app, faded)
        for mid in protected:
            assert await live(app, mid)


async def test_delete_mode_deletes_and_dissolves_unsupported_traits(settings):
    clock = Clock(NOW)
    async with running(settings(forget_mode="delete"), clock) as app:
        gone = await add_memory(app, "Went to a concert in 2019", kind="episodic", created=NOW - 400 * DAY)
        kept = await add_memory(app, "Plays the piano", created=NOW - 400 * DAY, importance=9)
        trait = await add_trait(app, "Likes live music", confidence=0.5, reinforced=NOW)
        shared = await add_trait(app, "Musical", confidence=0.5, reinforced=NOW)
        await execute(
            app,
            "INSERT INTO trait_evidence (user_id, trait_id, memory_id, polarity) VALUES "
            "(:u, :t, :g, 'supporting'), (:u, :s, :g, 'supporting'), (:u, :s, :k, 'supporting')",
            u=app.settings.user,
            t=trait,
            s=shared,
            g=gone,
            k=kept,
        )
        result = await app.scheduler.run("decay")
        assert result.stats["memories_deleted"] == 1 and result.stats["traits_dissolved"] == 1
        assert await scalar(app, "SELECT count(*) FROM memories WHERE id = :id", id=gone) == 0
        history = await scalar(
            app,
            "SELECT json_build_array(action, old_content, new_content) FROM memory_history WHERE memory_id = :id",
            id=gone,
        )
        assert history == ["forget", None, None]
        assert await scalar(app, "SELECT trait_stage FROM memories WHERE id = :id", id=trait) == "dissolved"
        assert await scalar(app, "SELECT trait_stage FROM memories WHERE id = :id", id=shared) == "emerging"


async def test_trait_decay_follows_the_formula(settings):
    clock = Clock(NOW)
    async with running(settings(), clock) as app:
        cases = {
            await add_trait(app, "b", confidence=0.8, reinforced=NOW - 100 * DAY): 0.8 * math.exp(-0.005 * 100),
            await add_trait(app, "b5", confidence=0.8, count=5, reinforced=NOW - 100 * DAY): 0.8
            * math.exp(-0.005 / 3.5 * 100),
            await add_trait(
                app, "p", confidence=0.8, subtype="preference", stage="established", reinforced=NOW - 100 * DAY
            ): 0.8 * math.exp(-0.002 * 100),
            await add_trait(app, "c", confidence=0.9, subtype="core", stage="core", reinforced=NOW - 100 * DAY): 0.9
            * math.exp(-0.001 * 100),
        }
        trend = await add_trait(app, "t", confidence=0.2, stage="trend", reinforced=NOW - 100 * DAY)
        await app.scheduler.run("decay")
        clock.now += timedelta(hours=1)
        await app.scheduler.run("decay")  # a second pass must not decay the same 100 days again
        for tid, expected in cases.items():
            hours = 1 / 24
            lam = {"b": 0.005, "b5": 0.005 / 3.5, "p": 0.002, "c": 0.001}[
                await scalar(app, "SELECT content FROM memories WHERE id = :id", id=tid)
            ]
            value = await scalar(app, "SELECT trait_confidence FROM memories WHERE id = :id", id=tid)
            assert value == pytest.approx(expected * math.exp(-lam * hours), rel=1e-9)
        assert await scalar(app, "SELECT trait_confidence FROM memories WHERE id = :id", id=trend) == 0.2
        stage = await scalar(app, "SELECT trait_stage FROM memories WHERE content = 'b'")
        assert stage == "emerging"  # 0.8·e^-0.5 = 0.485: established → emerging, recorded in history


# How a trait's evidence lies on the user's timeline: (told this long before NOW, session) per memory.
SPREADS: dict[str, list[tuple[timedelta, str | None]]] = {
    "none": [],
    "one sitting": [(2 * DAY, None)] * 4,
    "three sessions in a day": [(2 * DAY, "s1"), (2 * DAY, "s2"), (2 * DAY, None)],
    "three days": [(DAY, None), (5 * DAY, None), (9 * DAY, None)],
    "either side of midnight": [(timedelta(hours=11, minutes=59), None), (timedelta(hours=12, minutes=1), None)],
    "five days over 40": [(d * DAY, None) for d in (1, 10, 20, 30, 41)],
    "five days over 20": [(d * DAY, None) for d in (1, 5, 10, 15, 21)],
}


async def test_the_sql_decay_pass_agrees_with_the_python_formula(settings):
    """The decay formula and the time gates are applied in two ways (the job's set-based SQL, the reflection
    cycle's Python), both from engrain/rules/traits.py: on the same rows both give the same confidence, and
    the stage the Python rules give (decay only ever lowers a stage and holds it to what its evidence's
    spread allows; below the first bound the trait dissolves). The evidence's spread read by storage is
    the one the Python rules count."""
    from engrain.rules import traits as rules
    from engrain.storage import traits as trait_repo

    rows = []
    async with running(settings(), Clock(NOW)) as app:
        evidence: dict[str, list[uuid.UUID]] = {}
        expected_spread: dict[str, rules.Spread] = {}
        for name, told in SPREADS.items():
            evidence[name] = [
                await add_memory(app, f"{name} {i}", created=NOW - ago, source=source)
                for i, (ago, source) in enumerate(told)
            ]
            times = [NOW - ago for ago, _ in told]
            expected_spread[name] = rules.Spread(
                len({rules.occasion(source, NOW - ago) for ago, source in told}),
                min(times, default=None),
                max(times, default=None),
            )
        for i, (subtype, stage, confidence) in enumerate(
            [
                ("behavior", "emerging", 0.45),
                ("preference", "established", 0.75),
                ("core", "core", 0.95),
                ("behavior", "candidate", 0.12),
                ("preference", "emerging", 0.4),
                ("behavior", "established", 0.7),
            ]
        ):
            for count in (0, 3, 12):
                for days in (0.5, 30, 400):
                    for spread in SPREADS if stage in ("core", "established") else ["none"]:
                        tid = await add_trait(
                            app,
                            f"t{i}-{count}-{days}-{spread}",
                            confidence=confidence,
                            subtype=subtype,
                            stage=stage,
                            count=count,
                            reinforced=NOW - timedelta(days=days),
                        )
                        for memory in evidence[spread]:
                            await execute(
                                app,
                                "INSERT INTO trait_evidence (user_id, trait_id, memory_id, polarity, quality) "
                                "VALUES ('alice', :t, :m, 'supporting', 'C')",
                                t=tid,
                                m=memory,
                            )
                        rows.append((tid, subtype, stage, confidence, count, days, spread))
        db = await app.database()
        async with db.sessions() as s:
            read = await trait_repo.spreads(s, "alice", [r[0] for r in rows])
        await app.scheduler.run("decay")
        for tid, subtype, stage, confidence, count, days, spread in rows:
            assert read.get(tid, rules.Spread(0, None, None)) == expected_spread[spread], spread
            got = await scalar(
                app, "SELECT json_build_array(trait_confidence, trait_stage) FROM memories WHERE id = :id", id=tid
            )
            c = rules.decayed(confidence, subtype, count, days)
            held = expected_spread[spread]
            expected_stage = rules.lowest(
                rules.Stage(stage), rules.stage_for(c), rules.stage_cap(held.occasions, held.span_days, subtype)
            )
            assert got[0] == pytest.approx(c, rel=1e-9), (subtype, count, days)
            assert got[1] == expected_stage, (subtype, stage, confidence, count, days, spread)


async def test_expiry_job(settings):
    clock = Clock(NOW)
    async with running(settings(), clock) as app:
        past = await add_memory(app, "Dentist", created=NOW - 10 * DAY, temporality="prospective", event_time=NOW - DAY)
        future = await add_memory(
            app, "Flight", created=NOW - 10 * DAY, temporality="prospective", event_time=NOW + DAY
        )
        await execute(
            app,
            "INSERT INTO memories (id, user_id, kind, content, content_hash, trait_subtype, "
            "trait_stage, trait_confidence, trait_reinforcement_count, trait_window_end) VALUES "
            "(gen_random_uuid(), 'alice', 'trait', 'old trend', 'h1', 'behavior', 'trend', 0.2, 1, :p),"
            "(gen_random_uuid(), 'alice', 'trait', 'waiting trend', 'h3', 'behavior', 'trend', 0.2, 1, :w),"
            "(gen_random_uuid(), 'alice', 'trait', 'hot trend', 'h2', 'behavior', 'trend', 0.2, 2, :f)",
            p=NOW - 31 * DAY,  # closed more than TREND_GRACE_DAYS ago on the user's clock: gone, looked at or not
            w=NOW - 2 * DAY,  # closed, but no reflection has looked at anything told since: it waits
            f=NOW + DAY,
        )
        result = await app.scheduler.run("expiry")
        assert result.stats == {"expired_intentions": 1, "promoted": 1, "expired_trends": 1}
        assert await scalar(app, "SELECT temporality FROM memories WHERE id = :id", id=past) == "historical"
        assert await scalar(app, "SELECT temporality FROM memories WHERE id = :id", id=future) == "prospective"
        stages = await scalar(app, "SELECT json_object_agg(content, trait_stage) FROM memories WHERE kind = 'trait'")
        assert stages == {"old trend": "dissolved", "waiting trend": "trend", "hot trend": "candidate"}
        # A reflection looked at a memory told after its window closed: the model did not see it again.
        await add_memory(app, "Went for a walk", created=NOW - DAY)
        await execute(
            app, "INSERT INTO user_state (user_id, last_reflected_at, updated_at) VALUES ('alice', :n, :n)", n=NOW
        )
        again = await app.scheduler.run("expiry")
        assert again.stats["expired_trends"] == 1
        assert await scalar(app, "SELECT trait_stage FROM memories WHERE content = 'waiting trend'") == "dissolved"


async def snapshot(app) -> dict[str, str]:
    out = {}
    for table in TABLES:
        out[table] = await scalar(app, f"SELECT coalesce(json_agg(t ORDER BY t::text), '[]')::text FROM {table} t")
    return out


async def test_dry_run_changes_nothing(settings):
    clock = Clock(NOW)
    async with running(settings(), clock) as app:
        await add_memory(app, "faded", kind="episodic", created=NOW - 400 * DAY)
        await add_memory(
            app, "overdue", created=NOW - 400 * DAY, temporality="prospective", event_time=NOW - DAY, importance=9
        )
        await add_memory(app, "new for digest", created=NOW - DAY)
        await add_trait(app, "decaying", confidence=0.5, reinforced=NOW - 400 * DAY)
        before = await snapshot(app)
        results = await app.scheduler.run_all(dry_run=True)
        assert [r.status for r in results] == ["dry-run"] * 3
        stats = {r.job: r.stats for r in results}
        assert stats["expiry"]["expired_intentions"] == 1
        assert [s["content"] for s in stats["expiry"]["intentions_sample"]] == ["overdue"]
        assert stats["decay"]["memories_archived"] == 1 and stats["decay"]["traits_dissolved"] == 1
        assert stats["digest"]["due"] == 1 and stats["digest"]["sample"][0]["user_id"] == "alice"
        assert await snapshot(app) == before


async def test_catch_up_after_downtime_runs_each_job_once(settings):
    clock = Clock(NOW)
    async with running(settings(scheduler_interval=900), clock) as app:
        assert [r.job for r in await app.scheduler.tick()] == ["expiry", "digest", "decay"]
        clock.now += timedelta(minutes=5)
        assert await app.scheduler.tick() == []
    clock.now += timedelta(hours=6)  # nothing ran for six hours; a server starts again
    async with running(settings(scheduler_interval=900), clock) as app:
        caught_up = await app.scheduler.tick()
        assert [(r.job, r.status) for r in caught_up] == [
            ("expiry", "completed"),
            ("digest", "completed"),
            ("decay", "completed"),
        ]
        assert await scalar(app, "SELECT count(*) FROM job_runs") == 6
        status = await app.scheduler.status()
        assert status["jobs"]["decay"]["next_run"] == (clock.now + timedelta(seconds=900)).isoformat()


async def test_two_workers_never_run_a_job_twice(settings):
    clock = Clock(NOW)
    async with running(settings(), clock) as first, running(settings(), clock) as second:
        await add_memory(
            first, "something to expire", created=NOW - 2 * DAY, temporality="prospective", event_time=NOW - DAY
        )
        results = []

        async def worker(app):
            results.extend(await app.scheduler.tick())

        async with anyio.create_task_group() as tg:
            tg.start_soon(worker, first)
            tg.start_soon(worker, second)
        counts = await scalar(
            first, "SELECT json_object_agg(job, n) FROM (SELECT job, count(*) n FROM job_runs GROUP BY job) j"
        )
        assert counts == {"expiry": 1, "digest": 1, "decay": 1}
        assert sorted(r.status for r in results).count("completed") == 3


async def test_a_failing_job_is_recorded_and_the_others_run(settings):
    async def broken(context, now, user_id, dry_run):
        raise RuntimeError("disk on fire")

    clock = Clock(NOW)
    async with running(settings(), clock) as app:
        scheduler = Scheduler(app.job_context, {**JOBS, "broken": broken})
        results = {r.job: r for r in await scheduler.tick()}
        assert results["broken"].status == "failed" and "disk on fire" in (results["broken"].error or "")
        assert {results[j].status for j in ("expiry", "digest", "decay")} == {"completed"}
        row = await scalar(app, "SELECT json_build_array(status, error) FROM job_runs WHERE job = 'broken'")
        assert row == ["failed", "RuntimeError: disk on fire"]


async def test_end_of_session_digest(settings):
    clock = Clock(NOW)
    # Only a model the server holds digests without a client (issue 13): a scripted direct provider.
    llm = ScriptedLLM(answer())
    async with connect(settings(scheduler="on", scheduler_interval=3600), clock, llm) as (client, app):
        await call(client, "remember", content="Started learning the cello")
        assert await scalar(app, "SELECT count(*) FROM reflection_cycles") == 0
    # The client disconnected: the session's user was digested.
    async with running(settings(), clock) as app2:
        assert await scalar(app2, "SELECT count(*) FROM reflection_cycles WHERE user_id = 'alice'") == 1
        row = await scalar(
            app2, "SELECT json_build_array(status, user_id) FROM job_runs WHERE job = 'digest' AND user_id IS NOT NULL"
        )
        assert row == ["completed", "alice"]
        status = json.loads(json.dumps(await app2.scheduler.status()))
        assert status["jobs"]["digest"]["last_any_run"]["user_id"] == "alice"
