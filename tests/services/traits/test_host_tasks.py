"""Host tasks at the service level (issue 40): each kind of task the calling model is handed — a reflection, the
contradiction review that may follow it, a conversation's extraction — issued, answered and applied, and a
stale answer refused with nothing applied; on the settable clock, with no MCP client (tools/ and the surface
tests call the same services through one)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from sqlalchemy import text

from engrain.errors import InvalidInput, NotFound
from engrain.server.state import AppState
from engrain.services.memories.ingest import IngestRequest, Message
from engrain.services.memories.requests import RememberRequest
from engrain.services.recall.search import RecallRequest
from engrain.services.traits.results import NeedsModel, NotTriggered, Reflected, reflect_result
from tests.conftest import Clock, running, scalar
from tests.scripted import alias, answer

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
MORNING = ["I had two coffees before my 6am run", "Morning run done, then espresso", "Coffee first thing, always"]
BEHAVIOR = "Starts the day with coffee and a run"


async def told(app: AppState, *texts: str) -> None:
    for said in texts:
        await app.memories.remember(app.settings.user, RememberRequest(content=said))


async def task_out(app: AppState) -> NeedsModel:
    outcome = await app.host_tasks.reflect(app.settings.user, force=True)
    assert isinstance(outcome, NeedsModel), outcome
    return outcome


async def traits(app: AppState) -> int:
    sql = "SELECT count(*) FROM memories WHERE user_id = :u AND kind = 'trait' AND valid_until IS NULL"
    return await scalar(app, sql, u=app.settings.user)


async def task_status(app: AppState, task_id: str) -> str:
    sql = "SELECT status FROM host_tasks WHERE user_id = :u AND id = CAST(:t AS uuid)"
    return await scalar(app, sql, u=app.settings.user, t=task_id)


async def a_trait(app: AppState, clock: Clock) -> NeedsModel:
    """A behavior built from the morning memories by answering a reflection task."""
    await told(app, *MORNING)
    out = await task_out(app)
    evidence = [alias(out.task, MORNING[0]), alias(out.task, MORNING[1])]
    done = await app.host_tasks.answer(
        app.settings.user, out.task_id, answer(new_behaviors=[{"content": BEHAVIOR, "evidence_ids": evidence}])
    )
    assert isinstance(done, Reflected) and done.traits_created == 1, done
    clock.now += timedelta(hours=1)
    return out


async def test_a_reflection_task_is_issued_answered_and_applied(settings_factory):
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        await told(app, *MORNING)
        out = await task_out(app)
        assert out.cycle.status == "code_only" and out.cycle.memories_pending == 3  # pending until answered
        assert await task_status(app, out.task_id) == "open"
        clock.now += timedelta(minutes=5)
        evidence = [alias(out.task, MORNING[0]), alias(out.task, MORNING[1])]
        done = await app.host_tasks.answer(
            app.settings.user, out.task_id, answer(new_behaviors=[{"content": BEHAVIOR, "evidence_ids": evidence}])
        )
        assert isinstance(done, Reflected)
        assert (done.status, done.llm, done.traits_created, done.memories_pending) == ("completed", "host", 1, 0)
        assert await task_status(app, out.task_id) == "answered"
        evidence_rows = await scalar(
            app,
            "SELECT count(*) FROM trait_evidence e JOIN reflection_cycles c ON c.user_id = e.user_id "
            "AND c.id = e.cycle_id WHERE e.user_id = :u AND c.status = 'completed'",
            u=app.settings.user,
        )
        assert evidence_rows == 2  # the cycle written at its end, its evidence pointing at it


async def test_a_stale_reflection_answer_is_refused_and_applies_nothing(settings_factory):
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        user = app.settings.user
        await told(app, *MORNING)
        first = await task_out(app)
        evidence = [alias(first.task, MORNING[0]), alias(first.task, MORNING[1])]
        reply = answer(new_behaviors=[{"content": BEHAVIOR, "evidence_ids": evidence}])

        clock.now += timedelta(seconds=app.settings.host_task_ttl + 1)
        with pytest.raises(InvalidInput, match="task_id: expired at"):
            await app.host_tasks.answer(user, first.task_id, reply)
        second = await task_out(app)  # a new task replaces the expired one as the user's open task
        with pytest.raises(InvalidInput, match="replaced by a newer task"):
            await app.host_tasks.answer(user, first.task_id, reply)
        with pytest.raises(NotFound, match="no task with id"):
            await app.host_tasks.answer("someone-else", second.task_id, reply)
        assert await traits(app) == 0

        evidence = [alias(second.task, MORNING[0]), alias(second.task, MORNING[1])]
        reply = answer(new_behaviors=[{"content": BEHAVIOR, "evidence_ids": evidence}])
        assert isinstance(await app.host_tasks.answer(user, second.task_id, reply), Reflected)
        with pytest.raises(InvalidInput, match="already answered"):
            await app.host_tasks.answer(user, second.task_id, reply)
        assert await traits(app) == 1


async def test_a_review_task_follows_contradictions_and_is_applied(settings_factory):
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        user = app.settings.user
        await a_trait(app, clock)
        against = ["Skipped coffee and the run, slept in", "No run this week, tea in bed instead"]
        await told(app, *against)
        out = await task_out(app)
        reply = answer(
            contradictions=[
                {
                    "trait_id": alias(out.task, BEHAVIOR),
                    "contradicting_evidence_ids": [alias(out.task, line) for line in against],
                    "description": "mornings without coffee or a run",
                }
            ]
        )
        review = await app.host_tasks.answer(user, out.task_id, reply)
        assert isinstance(review, NeedsModel) and review.cycle.status == "completed"
        assert "contradicted often" in review.task and BEHAVIOR in review.task
        assert (await task_status(app, out.task_id), await task_status(app, review.task_id)) == ("answered", "open")

        decision = {"decisions": [{"trait_id": alias(review.task, BEHAVIOR), "action": "dissolve"}]}
        clock.now += timedelta(seconds=app.settings.host_task_ttl + 1)
        with pytest.raises(InvalidInput, match="expired"):
            await app.host_tasks.answer(user, review.task_id, decision)
        assert await traits(app) == 1

        clock.now -= timedelta(seconds=app.settings.host_task_ttl)
        done = await app.host_tasks.answer(user, review.task_id, decision)
        assert isinstance(done, Reflected) and (done.trigger_type, done.traits_dissolved) == ("review", 1)
        assert await traits(app) == 0


def conversation(text: str = "I moved to Lisbon last month and I surf with my wife") -> IngestRequest:
    said = NOW - timedelta(days=2)
    return IngestRequest(
        messages=[
            Message(role="user", content=text, said_at=said.isoformat()),
            Message(role="assistant", content="Lisbon has great waves!"),
        ]
    )


EXTRACTION: dict[str, Any] = {
    "memories": [
        {"content": "Moved to Lisbon", "kind": "fact", "message": 1},
        {"content": "Surfs with his wife", "kind": "fact", "message": 1},
    ],
    "summary": "The user moved to Lisbon and surfs.",
}


async def live(app: AppState) -> list[str]:
    """The live memories of the user's own (the assistant's replies, kept apart and never replaced, are not)."""
    sql = (
        "SELECT array_agg(content ORDER BY content) FROM memories WHERE user_id = :u AND valid_until IS NULL"
        " AND kind <> 'reply'"
    )
    return await scalar(app, sql, u=app.settings.user) or []


async def test_an_extraction_task_replaces_the_provisional_statements(settings_factory):
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        user = app.settings.user
        out = await app.host_tasks.extract(user, conversation())
        assert out.status == "needs_model" and out.task_id and len(out.created) == 1
        provisional = await live(app)
        assert provisional == ["I moved to Lisbon last month and I surf with my wife"]

        clock.now += timedelta(seconds=app.settings.host_task_ttl + 1)
        with pytest.raises(InvalidInput, match="expired"):
            await app.host_tasks.answer_extraction(user, out.task_id, EXTRACTION)
        assert await live(app) == provisional

        again = await app.host_tasks.extract(user, conversation("We moved to Lisbon, and I surf there with my wife"))
        assert again.task_id
        with pytest.raises(InvalidInput, match="replaced by a newer task"):
            await app.host_tasks.answer_extraction(user, out.task_id, EXTRACTION)
        done = await app.host_tasks.answer_extraction(user, again.task_id, EXTRACTION)
        assert (done.method, done.llm, len(done.created)) == ("llm", "host", 2)
        # The second conversation's statement is replaced by the answer; the first one's task was never
        # answered, so its statement stays.
        assert await live(app) == [
            "Conversation summary: The user moved to Lisbon and surfs.",
            "I moved to Lisbon last month and I surf with my wife",
            "Moved to Lisbon",
            "Surfs with his wife",
        ]
        told_at = await scalar(
            app, "SELECT min(told_at) FROM memories WHERE user_id = :u AND content = 'Moved to Lisbon'", u=user
        )
        assert told_at == NOW - timedelta(days=2)  # the message's time, named by its number


async def test_two_answers_at_once_apply_one(settings_factory):
    """Both answers may pass the first look at the task; the close at the end of the transaction lets one
    through and undoes the other whole."""
    async with running(settings_factory(), Clock(NOW)) as app:
        user = app.settings.user
        out = await app.host_tasks.extract(user, conversation())
        assert out.task_id
        outcomes: list[object] = []

        async def answer_it() -> None:
            try:
                outcomes.append(await app.host_tasks.answer_extraction(user, out.task_id or "", EXTRACTION))
            except InvalidInput as exc:
                outcomes.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_it)
            tg.start_soon(answer_it)
        refused = [o for o in outcomes if isinstance(o, InvalidInput)]
        assert len(outcomes) == 2 and len(refused) == 1 and "already answered" in str(refused[0])
        total = await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u AND kind <> 'reply'", u=user)
        assert total == 3  # two memories and the summary, once (the provisional statement is erased)


async def test_an_answer_about_a_trait_gone_since_its_task_is_refused_by_name(settings_factory):
    """Issue 42: reinforcing a trait the user dismissed after the task was written was dropped without a word."""
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        user = app.settings.user
        await a_trait(app, clock)
        await told(app, "Espresso and a 5k again this morning", "Coffee, then a run by the river")
        out = await task_out(app)
        trait = alias(out.task, BEHAVIOR)
        evidence = [alias(out.task, "Espresso and a 5k"), alias(out.task, "Coffee, then a run")]
        reply = answer(reinforcements=[{"trait_id": trait, "new_evidence_ids": evidence, "quality_grade": "B"}])
        trait_id = await scalar(
            app,
            "SELECT id::text FROM memories WHERE user_id = :u AND kind = 'trait' AND content = :c",
            u=user,
            c=BEHAVIOR,
        )
        await app.trait_review.review(user, trait_id, "dismiss")
        with pytest.raises(
            InvalidInput, match=rf"reinforcements\[0\]\.trait_id: \[{trait}\] «{BEHAVIOR}» was dissolved"
        ):
            await app.host_tasks.answer(user, out.task_id, reply)
        assert await task_status(app, out.task_id) == "open"  # nothing applied, the task still answerable
        done = await app.host_tasks.answer(user, out.task_id, answer())
        assert isinstance(done, Reflected) and done.status == "completed"


async def test_decay_waits_for_the_answer_and_a_trait_dissolved_between_sessions_is_not_offered(settings_factory):
    """The cycle that hands out a task decays nothing: decay runs with the answer, after its reinforcements
    (issue 42: stages fell at the hand-out and rose with the answer). A trait the scheduler's decay job
    dissolved between sessions is not offered to the model."""
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        await a_trait(app, clock)
        clock.now += timedelta(days=3 * 365)  # on the user's clock too: what is told next is told then
        await told(app, "Tea and a slow walk this morning")
        out = await task_out(app)
        assert out.cycle.traits_dissolved == 0 and BEHAVIOR in out.task
        done = await app.host_tasks.answer(app.settings.user, out.task_id, answer())
        assert isinstance(done, Reflected) and done.traits_dissolved == 1  # not reinforced: decay after the answer
    async with running(settings_factory(), clock) as app:
        await a_trait(app, clock)
        clock.now += timedelta(days=3 * 365)
        await told(app, "Tea and a slow walk this morning")
        await app.scheduler.run("decay")
        out = await task_out(app)
        assert BEHAVIOR not in out.task


async def test_a_refused_reflection_says_how_many_memories_wait(settings_factory):
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        await a_trait(app, clock)
        await told(app, "Tea and a slow walk this morning", "Cold shower after the run")
        refused = await app.host_tasks.reflect(app.settings.user, force=False)
        assert isinstance(refused, NotTriggered) and refused.pending == 2
        assert reflect_result(refused).memories_pending == 2


async def test_an_answer_may_cite_and_update_memories_found_with_recall(settings_factory):
    """Issue 42: evidence and updates could cite only what the task showed, so an older memory a model found with
    `recall` was refused and a stale fact stayed current. Now a memory of this user is cited by its id (whole or
    the 8 characters recall shows); anything else is refused by name, with nothing applied."""
    clock = Clock(NOW)
    async with running(settings_factory(), clock) as app:
        user = app.settings.user
        await a_trait(app, clock)
        await told(app, "I live in Leeds", "Espresso and a 5k again this morning")
        first = await task_out(app)
        await app.host_tasks.answer(user, first.task_id, answer())  # Leeds is an older memory from now on
        clock.now += timedelta(hours=1)
        # A move the rules do not read ("we moved to York" they now do: issue 52): the model's update settles it.
        await told(app, "We settled in York last weekend", "Coffee and a run along the river")
        out = await task_out(app)
        found = await app.recall.recall(user, RecallRequest("where do I live", limit=5))
        leeds = next(h.id for h in found.results if h.content == "I live in Leeds")
        sql = "SELECT id::text FROM memories WHERE user_id = :u AND content = :c"
        first_thing = await scalar(app, sql, u=user, c=MORNING[2])
        trait = alias(out.task, BEHAVIOR)
        evidence = [first_thing[:8], alias(out.task, "Coffee and a run")]
        reply = {
            **answer(reinforcements=[{"trait_id": trait, "new_evidence_ids": evidence}]),
            "updates": [{"old_id": leeds[:8], "new_id": alias(out.task, "settled in York")}],
        }
        bad = answer(reinforcements=[{"trait_id": trait, "new_evidence_ids": ["deadbeef"]}])
        named = r"reinforcements\[0\]\.new_evidence_ids\[0\]: 'deadbeef' is no live memory"
        with pytest.raises(InvalidInput, match=named):
            await app.host_tasks.answer(user, out.task_id, bad)
        done = await app.host_tasks.answer(user, out.task_id, reply)
        assert isinstance(done, Reflected) and done.status == "completed"
        replaced = await scalar(
            app, "SELECT valid_until IS NOT NULL FROM memories WHERE id = CAST(:i AS uuid)", i=leeds
        )
        cited = await scalar(
            app,
            "SELECT count(*) FROM trait_evidence WHERE user_id = :u AND memory_id = CAST(:m AS uuid)",
            u=user,
            m=first_thing,
        )
    assert replaced is True and cited == 1  # the older memory, found with recall, is now the trait's evidence


async def test_the_models_extraction_wins_over_the_rules_for_kind_date_plan_and_habit(settings_factory):
    """Issue 42, item 7: where the calling model read an item, its kind, date (at its precision) and plan/habit
    reading are stored, not the rules' reading of the same words."""
    async with running(settings_factory(), Clock(NOW)) as app:
        user = app.settings.user
        said = "Every Sunday I go hiking, and last week I booked a trip to Oslo"
        out = await app.host_tasks.extract(user, conversation(said))
        item = {"content": said, "kind": "fact", "event_time": "2026-03", "temporality": "prospective", "message": 1}
        done = await app.host_tasks.answer_extraction(user, out.task_id or "", {"memories": [item]})
        sql = (
            "SELECT kind, temporality, event_grain, to_char(event_time, 'YYYY-MM'), metadata ->> 'recurrence'"
            " FROM memories WHERE user_id = :u AND id = CAST(:i AS uuid)"
        )
        db = await app.database()
        async with db.sessions() as s:
            row = (await s.execute(text(sql), {"u": user, "i": done.created[0]})).one()
    # The rules alone read a habit ("Every Sunday") dated last week; the model read a plan for March.
    assert tuple(row) == ("fact", "prospective", "month", "2026-03", None)
