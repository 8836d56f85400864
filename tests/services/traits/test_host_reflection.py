"""Reflection by the calling model (issue 13): a client that declares no sampling, a server with no key.
A scripted client plays the calling model: it reads the task, calls recall, and answers with reflect."""

from __future__ import annotations

import json
import math
import re
import sys
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client, StdioServerParameters

from engrain.providers.llm import Prompt
from engrain.rules.traits import reinforced
from tests.conftest import Clock, call, call_error, connect, engrain_env, execute, scalar
from tests.scripted import ScriptedLLM, alias, answer
from tests.services.traits.test_trait_lifecycle import BEHAVIOR, PREFERENCE, REWORDED, T0, traits

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 22, 7, 0, tzinfo=UTC)
MORNING = [
    "I had two coffees before my 6am run",
    "Morning run done, then espresso",
    "Coffee first thing, always",
    "Ran 10k at dawn today",
    "My morning starts with coffee and a jog",
]
# The days MORNING was told on: three of them, enough evidence for the due line (issue 61).
TOLD_ON = ["2026-11-18", "2026-11-18", "2026-11-20", "2026-11-20", "2026-11-21"]
COUNTS = {
    "memories": "SELECT count(*) FROM memories WHERE user_id = :u",
    "evidence": "SELECT count(*) FROM trait_evidence e JOIN memories m ON m.id = e.trait_id WHERE m.user_id = :u",
    "links": "SELECT count(*) FROM memory_links WHERE user_id = :u",
    "history": "SELECT count(*) FROM memory_history WHERE user_id = :u",
    "watermark": "SELECT count(last_reflected_at) FROM user_state WHERE user_id = :u",
}


def aliases(task: str, fragment: str) -> str:
    """The alias a task gives the line holding `fragment`."""
    for line in task.splitlines():
        if fragment in line and (m := re.match(r"\[(\w+)\]", line)):
            return m.group(1)
    raise AssertionError(f"{fragment!r} is not in the task")


async def counts(app) -> dict[str, int]:
    """What an applied answer changes: rows of the user's memories, evidence, links, history, watermark."""
    return {name: await scalar(app, sql, u=app.settings.user) for name, sql in COUNTS.items()}


async def test_the_calling_model_builds_a_trait_from_a_task(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, _):
        for text in MORNING:
            await call(client, "remember", content=text)
        out = await call(client, "reflect", force=True)
        assert out["status"] == "needs_model" and out["llm"] == "host" and out["memories_pending"] == 5
        task, task_id = out["task"], out["task_id"]
        text = await client.call_tool("reflect", {"force": True})  # a second reflect replaces the task
        assert text.structured_content["task_id"] != task_id
        task, task_id = text.structured_content["task"], text.structured_content["task_id"]
        assert text.content[0].text == task  # the task is also the tool's text
        assert f'task_id="{task_id}"' in task and "call `recall` first" in task and '"new_behaviors"' in task
        older = await call(client, "recall", query="coffee and running in the morning")  # the model checks
        assert len(older["results"]) >= 3
        evidence = [
            aliases(task, "coffees before my 6am run"),
            aliases(task, "Morning run done"),
            aliases(task, "coffee and a jog"),
        ]
        reply = {
            "new_behaviors": [
                {
                    "content": "Starts the day with coffee and a run",
                    "evidence_ids": evidence,
                    "confidence": 0.45,
                    "context": "personal",
                }
            ]
        }
        done = await call(client, "reflect", task_id=task_id, answer=reply)
        assert done["status"] == "completed" and done["llm"] == "host" and done["traits_created"] == 1
        assert done["memories_pending"] == 0
        traits = await call(client, "get_user_traits", min_stage="candidate", include_evidence=True)
        trait = traits["traits"][0]
        assert trait["content"] == "Starts the day with coffee and a run" and len(trait["supporting_ids"]) == 3
        detail = json.loads((await client.read_resource(f"engrain://traits/{trait['id']}")).contents[0].text)
        assert {m["content"] for m in detail["supporting"]} == {MORNING[0], MORNING[1], MORNING[4]}
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert "Starts the day with coffee and a run" in profile


async def test_the_calling_model_rewords_a_stale_trait_and_it_keeps_its_evidence(host_settings):
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        for text in MORNING:
            await call(client, "remember", content=text)
        out = await call(client, "reflect", force=True)
        evidence = [aliases(out["task"], "coffees before my 6am run"), aliases(out["task"], "Morning run done")]
        behavior = {"content": "Starts the day with coffee and a run", "evidence_ids": evidence, "confidence": 0.45}
        await call(client, "reflect", task_id=out["task_id"], answer={"new_behaviors": [behavior]})
        clock.now += timedelta(days=3)
        await call(client, "remember", content="I switched from coffee to green tea before my morning runs")
        out = await call(client, "reflect", force=True)
        assert '"rewords": [{"trait_id", "new_content", "reason"}]' in out["task"]
        trait = aliases(out["task"], "Starts the day with coffee and a run")
        reword = {"trait_id": trait, "new_content": "Starts the day with tea and a run", "reason": "switched to tea"}
        done = await call(client, "reflect", task_id=out["task_id"], answer={"rewords": [reword]})
        assert done["traits_updated"] == 1
        listed = await call(client, "get_user_traits", include_evidence=True)
        assert [t["content"] for t in listed["traits"]] == ["Starts the day with tea and a run"]
        assert len(listed["traits"][0]["supporting_ids"]) == 2  # the same trait: its evidence stays
        detail = json.loads(
            (await client.read_resource(f"engrain://traits/{listed['traits'][0]['id']}")).contents[0].text
        )
        assert [h["reason"] for h in detail["history"] if h["action"] == "modify"] == [
            "reworded by reflection: switched to tea"
        ]
        clock.now += timedelta(days=1)
        await call(client, "remember", content="Green tea again this morning")
        unknown = await call_error(
            client,
            "reflect",
            task_id=(await call(client, "reflect", force=True))["task_id"],
            answer={"rewords": [{"trait_id": "t9", "new_content": "x"}]},
        )
        assert "rewords[0].trait_id: 't9' is not a trait this task showed" in unknown


async def test_the_answer_may_be_a_string_holding_json_and_is_applied_once(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        await call(client, "remember", content="I play chess every evening")
        task = await call(client, "reflect", force=True)
        reply = json.dumps(
            {"new_trends": [{"content": "Plays chess a lot", "evidence_ids": [aliases(task["task"], "chess")]}]}
        )
        await call(client, "reflect", task_id=task["task_id"], answer=reply)
        before = await counts(app)
        again = await call_error(client, "reflect", task_id=task["task_id"], answer=reply)
        assert "task_id: was already answered" in again and await counts(app) == before


@pytest.mark.parametrize(
    ("reply", "needle"),
    [
        ("{not json", "answer: no JSON object"),
        ({"new_trends": "Plays chess a lot"}, "answer: new_trends: must be a valid list"),
        (
            {"new_behaviors": [{"content": "x", "evidence_ids": "m1"}]},
            "new_behaviors[0].evidence_ids: must be a valid list",
        ),
        (
            {"reinforcements": [{"trait_id": "t1", "new_evidence_ids": ["m1"], "quality_grade": "Z"}]},
            "reinforcements[0].quality_grade",
        ),
        (
            {"new_trends": [{"content": "Plays chess", "evidence_ids": ["m1", "m7"]}]},
            "new_trends[0].evidence_ids[1]: 'm7' is not a memory this task showed",
        ),
        (
            {"reinforcements": [{"trait_id": "t9", "new_evidence_ids": ["m1"]}]},
            "reinforcements[0].trait_id: 't9' is not a trait this task showed",
        ),
    ],
)
async def test_a_bad_answer_is_refused_and_nothing_is_applied(host_settings, reply, needle):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        await call(client, "remember", content="I play chess every evening")
        task = await call(client, "reflect", force=True)
        before = await counts(app)
        message = await call_error(client, "reflect", task_id=task["task_id"], answer=reply)
        assert needle in message and "nothing was applied" in message
        assert await counts(app) == before
        fixed = {"new_trends": [{"content": "Plays chess a lot", "evidence_ids": ["m1"]}]}
        assert (await call(client, "reflect", task_id=task["task_id"], answer=fixed))["status"] == "completed"


async def test_another_users_task_or_an_expired_one_is_refused(host_settings):
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (alice, _):
        await call(alice, "remember", content="Alice paints watercolours")
        alices = await call(alice, "reflect", force=True)
    async with connect(host_settings(host_task_ttl=60), clock) as (bob, bob_app):
        stranger = str(uuid.uuid4())
        foreign = await call_error(bob, "reflect", task_id=alices["task_id"], answer={})
        unknown = await call_error(bob, "reflect", task_id=stranger, answer={})
        assert foreign.replace(alices["task_id"], "X") == unknown.replace(stranger, "X")
        await call(bob, "remember", content="Bob restores furniture")
        task = await call(bob, "reflect", force=True)
        clock.now += timedelta(seconds=61)
        before = await counts(bob_app)
        expired = await call_error(bob, "reflect", task_id=task["task_id"], answer={})
        assert "task_id: expired at" in expired and await counts(bob_app) == before


async def test_no_memory_is_consumed_without_a_model_and_a_later_model_sees_it(settings_factory):
    clock = Clock(NOW)
    settings = settings_factory(llm="none")
    async with connect(settings, clock) as (client, app):
        await call(client, "remember", content="I started learning the cello")
        out = await call(client, "reflect", force=True)
        assert out["status"] == "code_only" and out["memories_pending"] == 1
        assert await scalar(app, "SELECT last_reflected_at FROM user_state WHERE user_id = :u", u=settings.user) is None
    llm = ScriptedLLM(answer())
    clock.now += timedelta(minutes=5)
    async with connect(settings, clock, llm) as (client, _):
        out = await call(client, "reflect")
        assert out["status"] == "completed" and "I started learning the cello" in llm.prompts[0].user


async def test_a_fact_update_supersedes_the_old_fact_and_its_paraphrases(settings_factory):
    """A change no rule reads (reading/slots.py and reading/leaving.py read "I sold the Corolla" since issue 52): the
    model's `updates`."""

    def reply(prompt):
        return {
            **answer(),
            "updates": [
                {"old_id": alias(prompt, "I drive a Toyota Corolla."), "new_id": alias(prompt, "get around in a Tesla")}
            ],
        }

    settings = settings_factory(embedder="minilm-int8")
    async with connect(settings, Clock(NOW), ScriptedLLM(reply)) as (client, _):
        corolla = await call(client, "remember", content="I drive a Toyota Corolla.")
        paraphrase = await call(client, "remember", content="I drive a Corolla made by Toyota.")
        tesla = await call(client, "remember", content="The Corolla is gone, these days I get around in a Tesla")
        assert paraphrase["status"] == "created" and tesla["superseded"] is None
        assert (await call(client, "reflect", force=True))["status"] == "completed"
        found = await call(client, "recall", query="what car do I drive")
        ids = [hit["id"] for hit in found["results"]]
        assert tesla["id"] in ids and corolla["id"] not in ids and paraphrase["id"] not in ids


async def host_reflect(client, *replies, force: bool = True) -> tuple[dict, int]:
    """reflect, then answer each task it hands out (the main task, then a review task, if any) with the
    next reply — a function of the task text, as a model reads it — like the calling model would."""
    out = await call(client, "reflect", force=force)
    queue, answered = list(replies), 0
    while out.get("task_id"):
        reply = queue.pop(0)
        out = await call(
            client,
            "reflect",
            task_id=out["task_id"],
            answer=reply(Prompt("", out["task"])) if callable(reply) else reply,
        )
        answered += 1
    return out, answered


async def test_the_trait_lifecycle_driven_entirely_through_host_tasks(host_settings):
    """create → reinforce to established → upgrade → contradict → review → decay, no model on the server."""
    clock = Clock(T0)
    async with connect(host_settings(), clock) as (client, app):
        await call(
            client,
            "remember",
            content="Takes the stairs instead of the elevator at the office",
            said_at=(T0 - timedelta(days=1)).isoformat(),
        )
        await call(client, "remember", content="Walked to work instead of taking the bus")
        await host_reflect(
            client,
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
            force=False,
        )
        behavior = (await traits(client, min_stage="candidate"))[BEHAVIOR]
        assert behavior["stage"] == "candidate" and behavior["confidence"] == pytest.approx(0.5)

        clock.now += timedelta(days=1)
        await call(client, "remember", content="Biked to the grocery store")
        await host_reflect(
            client,
            lambda p: answer(
                reinforcements=[
                    {"trait_id": alias(p, BEHAVIOR), "new_evidence_ids": [alias(p, "Biked")], "quality_grade": "A"}
                ]
            ),
        )
        expected = reinforced(0.5 * math.exp(-0.005 / 1.5), "A", 1)  # told a day after the last: spaced
        behavior = (await traits(client))[BEHAVIOR]
        assert behavior["stage"] == "established" and behavior["confidence"] == pytest.approx(expected, abs=1e-6)

        clock.now += timedelta(days=1)
        await call(client, "remember", content="Bought a folding bike")
        await host_reflect(
            client,
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
        )
        preference = (await traits(client))[PREFERENCE]
        assert preference["subtype"] == "preference" and preference["stage"] == "established"
        # The profile shows the preference, not the behaviour it restates again (issue 42).
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert f"«{PREFERENCE}»" in profile and f"«{BEHAVIOR}»" not in profile

        clock.now += timedelta(days=1)
        await call(client, "remember", content="Drove to work every day this week")
        await call(client, "remember", content="Took a taxi to the airport")
        out, answered = await host_reflect(
            client,
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
        )
        assert answered == 2 and out["trigger_type"] == "review" and out["llm"] == "host"
        stored = await scalar(app, "SELECT json_agg(result) FROM host_tasks WHERE user_id = :u", u=app.settings.user)
        assert "Drove to work" not in json.dumps(stored)  # answered tasks keep ids and counts, never memory text
        reviewed = (await traits(client))[REWORDED]
        assert reviewed["id"] == preference["id"] and reviewed["contradiction_count"] == 2
        assert reviewed["stage"] == "emerging"

        clock.now += timedelta(days=1500)
        await call(client, "remember", content="A note years later")
        first = await call(client, "reflect", force=True)
        assert first["traits_dissolved"] == 0  # decay waits for the answer: it runs after the answer's reinforcements
        done = await call(client, "reflect", task_id=first["task_id"], answer=answer())
        assert done["status"] == "completed" and done["traits_dissolved"] >= 2  # nothing reinforced them
        detail = json.loads((await client.read_resource(f"engrain://traits/{preference['id']}")).contents[0].text)
        assert detail["stage"] == "dissolved"


async def test_a_host_task_round_trip_over_stdio(tmp_path):
    """The acceptance scenario with `engrain serve` as a subprocess, the way Claude Desktop runs it."""
    env = {k: v for k, v in engrain_env(tmp_path / "home", ENGRAIN_LLM="auto").items() if k != "ANTHROPIC_API_KEY"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=env)
    async with Client(params) as client:
        for text in MORNING:
            await call(client, "remember", content=text)
        task = await call(client, "reflect", force=True)
        assert task["status"] == "needs_model"
        evidence = [aliases(task["task"], "coffees"), aliases(task["task"], "coffee and a jog")]
        reply = {"new_behaviors": [{"content": "Starts the day with coffee and a run", "evidence_ids": evidence}]}
        done = await call(client, "reflect", task_id=task["task_id"], answer=json.dumps(reply))
        assert done["traits_created"] == 1 and done["llm"] == "host"
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert "Starts the day with coffee and a run" in profile


CONVERSATION = [
    {"role": "user", "content": "I just moved to Lisbon last month. My wife and I love surfing."},
    {"role": "assistant", "content": "Lisbon is great for surfing."},
]


async def test_ingestion_by_the_calling_model_replaces_the_provisional_statements(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        out = await call(client, "ingest_conversation", messages=CONVERSATION, session_id="c1")
        assert out["status"] == "needs_model" and out["method"] == "rules" and len(out["created"]) == 2
        assert "call `ingest_conversation` with" in out["task"]
        # The model sent the conversation a moment ago: the task refers to its messages, it does not echo them.
        assert "the 2 messages you sent to ingest_conversation" in out["task"] and "the user's are 1." in out["task"]
        assert not any(m["content"] in out["task"] for m in CONVERSATION)
        assert '"message": the number of the message' in out["task"]
        extraction = {
            "memories": [
                {
                    "content": "Moved to Lisbon in October 2026",
                    "kind": "episodic",
                    "importance": 8,
                    "event_time": "2026-10-15",
                    "temporality": "historical",
                    "category": "location",
                },
                {"content": "Surfs with his wife", "kind": "fact", "category": "preference"},
            ],
            "summary": "The user moved to Lisbon and surfs.",
        }
        bad = {"memories": [{"content": "Surfs", "kind": "opinion"}]}
        before = await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user)
        message = await call_error(client, "ingest_conversation", task_id=out["task_id"], answer=bad)
        assert "memories[0].kind" in message and "nothing was applied" in message
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == before
        wrong_tool = await call_error(client, "reflect", task_id=out["task_id"], answer={})
        assert "is a task for ingest_conversation" in wrong_tool
        done = await call(client, "ingest_conversation", task_id=out["task_id"], answer=extraction)
        assert done["method"] == "llm" and done["llm"] == "host" and len(done["created"]) == 2 and done["summary_id"]
        contents = await scalar(
            app,
            "SELECT array_agg(content ORDER BY content) FROM memories WHERE user_id = :u AND valid_until IS NULL"
            " AND kind <> 'reply'",
            u=app.settings.user,
        )
        assert contents == [
            "Conversation summary: The user moved to Lisbon and surfs.",
            "Moved to Lisbon in October 2026",
            "Surfs with his wife",
        ]
        again = await call_error(client, "ingest_conversation", task_id=out["task_id"], answer=extraction)
        assert "task_id: was already answered" in again


async def test_sampling_configured_with_a_client_that_cannot_sample_says_so(settings_factory):
    async with connect(settings_factory(llm="sampling"), Clock(NOW)) as (client, _):
        await call(client, "remember", content="I bake sourdough on weekends")
        out = await call(client, "reflect", force=True)
    assert out["status"] == "code_only" and out["llm"] == "none" and out["memories_pending"] == 1
    assert "declared no sampling capability" in out["error"]


async def test_the_profile_and_the_instructions_say_when_a_reflection_is_due(host_settings):
    """Due on evidence (issue 61): five memories told on three days of the user's time."""
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        for day, text in zip(TOLD_ON, MORNING, strict=True):
            await call(client, "remember", content=text, said_at=day)
        due = "Reflection due (5 new memories to digest): call reflect when the conversation allows."
        assert (await client.read_resource("engrain://profile")).contents[0].text.rstrip().endswith(due)
        assert (await app.profile.summary(app.settings.user)).endswith(due)
        status = json.loads((await client.read_resource("engrain://status")).contents[0].text)
        assert status["reflection"]["memories_pending"] == 5
        assert status["llm"]["route"] == {"client_samples": "sampling", "client_does_not_sample": "host"}


async def test_tasks_stored_before_a_field_existed_are_answered_with_its_default(host_settings):
    """A task's state is typed (services/prompting/task_states.py): a row stored by an older engrain, without the
    fields added since (a reflection task's evidence, an extraction's told times), reads with their defaults."""
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        for text in MORNING:
            await call(client, "remember", content=text)
        out = await call(client, "reflect", force=True)
        older = "UPDATE host_tasks SET plan = plan - CAST(:k AS text[]) WHERE id = CAST(:t AS uuid)"
        await execute(app, older, k=["evidence"], t=out["task_id"])
        behavior = {
            "content": "Starts the day with coffee and a run",
            "evidence_ids": [aliases(out["task"], "coffees before my 6am run"), aliases(out["task"], "Morning run")],
            "confidence": 0.45,
        }
        done = await call(client, "reflect", task_id=out["task_id"], answer={"new_behaviors": [behavior]})
        assert done["traits_created"] == 1
        ingest = await call(client, "ingest_conversation", messages=CONVERSATION, session_id="c2")
        await execute(app, older, k=["told", "said_at"], t=ingest["task_id"])
        answer = {"memories": [{"content": "Surfs on weekends", "kind": "fact"}]}
        stored = await call(client, "ingest_conversation", task_id=ingest["task_id"], answer=answer)
        assert stored["method"] == "llm" and len(stored["created"]) == 1


async def test_ingest_says_when_a_reflection_is_due_and_a_refusal_says_what_waits(host_settings):
    """Issue 42: `ingest_conversation` never said when to reflect, and a refused reflect said 0 memories waited."""
    said = [
        "I had two coffees before my 6am run",
        "I ran 10k at dawn today",
        "I drink an espresso after my morning run",
        "I went for a run before breakfast yesterday",
        "I bought new running shoes last week",
    ]
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        turns = [{"role": "user", "content": text, "said_at": day} for text, day in zip(said, TOLD_ON, strict=True)]
        out = await call(client, "ingest_conversation", messages=turns)
        extracted = {
            "memories": [{"content": text, "kind": "episodic", "message": i + 1} for i, text in enumerate(said)]
        }
        done = await client.call_tool("ingest_conversation", {"task_id": out["task_id"], "answer": extracted})
        due = "Reflection due (5 new memories to digest): call reflect when the conversation allows."
        assert done.content[0].text.rstrip().endswith(due), done.content[0].text
        task = await call(client, "reflect", force=True)
        await call(client, "reflect", task_id=task["task_id"], answer={"new_trends": []})  # the watermark moves
        clock.now += timedelta(seconds=5)  # within the minute after a reflection: not triggered
        await call(client, "remember", content="Tea instead of coffee today")
        refused = await client.call_tool("reflect", {})
        assert refused.structured_content["triggered"] is False
        assert refused.structured_content["memories_pending"] == 1
        assert "1 memory waiting (force=true reflects now)" in refused.content[0].text


async def test_the_due_line_follows_the_users_activity_through_a_fast_import(host_settings):
    """Issue 52, part 4: weekly sessions of a history fed seconds apart end with the due line once memories told on
    three days wait (issue 61) — and `reflect` agrees it is due — though the last reflection was seconds ago (it
    came after 5 of 25 sessions: the 60-second window and the 24-hour rule of the server's clock held it back)."""
    clock = Clock(NOW)
    due: list[int] = []
    async with connect(host_settings(), clock) as (client, _):
        for session in range(6):
            clock.now += timedelta(seconds=5)
            said = (datetime(2023, 3, 1, 18, tzinfo=UTC) + timedelta(weeks=session)).isoformat()
            texts = [f"Session {session}: I {verb} today" for verb in ("ran 5k", "painted", "cooked", "read", "swam")]
            turns = [{"role": "user", "content": text, "said_at": said} for text in texts]
            out = await call(client, "ingest_conversation", messages=turns)
            extracted = {
                "memories": [{"content": t, "kind": "episodic", "message": i + 1} for i, t in enumerate(texts)]
            }
            done = await client.call_tool("ingest_conversation", {"task_id": out["task_id"], "answer": extracted})
            if "Reflection due" not in done.content[0].text:
                continue
            due.append(session + 1)
            assert (
                done.content[0]
                .text.rstrip()
                .endswith("Reflection due (15 new memories to digest): call reflect when the conversation allows.")
            ), (session, done.content[0].text)
            task = await call(client, "reflect")  # not forced: due by the same rule the line follows
            assert task["status"] == "needs_model" and task["trigger_type"] in (
                "first_time",
                "importance_accumulated",
                "memories_accumulated",
            )
            await call(client, "reflect", task_id=task["task_id"], answer={"new_trends": []})
    assert due == [3, 6], due
