"""Day-one memory, item 3 (issue 43): the imported history is kept by the rules at once and queued, in pieces, for
a model to read properly — the calling model through host tasks (`reflect` hands out the oldest piece, taking
turns with reflections; an answered `ingest_conversation` task hands out the next), or the server's own model in
the scheduler's digest. An extraction replaces its piece's provisional statements; the queue shows in
`engrain://status`; importing again queues nothing; one user's pieces never reach another."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mcp.types import CreateMessageResult, TextContent

from engrain.providers.llm import Prompt
from engrain.reading import chats
from tests.conftest import DATA, Clock, call, connect, running, scalar
from tests.scripted import alias, answer

pytestmark = pytest.mark.anyio
CHATS = DATA / "chats"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
MUNICH = {
    "memories": [
        {
            "content": "I live in Munich with my two cats",
            "kind": "fact",
            "said_at": "2023-05-08 12:02",
            "temporality": "current",
            "key": "user · home",
        },
        {"content": "I ran the Berlin marathon in September 2023", "event_time": "2023-09", "said_at": "2023-05-08"},
    ],
    "summary": "Marathon training while living in Munich.",
}


def history() -> list[chats.Chat]:
    return [c for p in ("chatgpt/conversations.json", "claude/conversations.json") for c in chats.read(CHATS / p)]


async def waiting(client: Any) -> dict[str, Any]:
    return json.loads((await client.read_resource("engrain://status")).contents[0].text)["imports"]


async def live(app: Any, source: str) -> list[str]:
    """The live memories of the user's own from one conversation (the assistant's replies, which a model's reading
    never replaces, are not)."""
    sql = (
        "SELECT array_agg(content ORDER BY content) FROM memories WHERE user_id = :u AND source = :s "
        "AND valid_until IS NULL AND kind <> 'reply'"
    )
    return await scalar(app, sql, u=app.settings.user, s=source) or []


async def test_the_calling_model_reads_the_imported_history_oldest_first_until_none_waits(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        user = app.settings.user
        report = await app.chat_import.run(user, history(), app.clock())
        # Three conversations with words of the user's (the empty Claude one has none): each a piece.
        assert report.queued == 3 and (await waiting(client))["pieces_waiting"] == 3
        assert (await waiting(client))["oldest"] == "2023-05-08T12:00:00+00:00"
        rules = await live(app, "chatgpt:c1-marathon")
        assert "I live in Munich with my two cats, so I run along the Isar." in rules

        out = await call(client, "reflect")
        task = out["task"]
        assert out["status"] == "needs_model" and "3 pieces of the imported chat history" in out["reason"]
        # The oldest conversation, whole as the model has not seen it: each message at its time, as data.
        assert "the conversation «Marathon training», 2023-05-08" in task and "call `ingest_conversation`" in task
        assert "[2023-05-08 12:02] user: «I live in Munich with my two cats, so I run along the Isar.»" in task
        assert "assistant: «Great goal! How many weeks do you have?»" in task  # what the user answered
        assert "Hamburg" not in task and "range(42)" not in task  # the abandoned branch, code

        done = await call(client, "ingest_conversation", task_id=out["task_id"], answer=MUNICH)
        assert done["method"] == "llm" and done["status"] == "stored" and done["imports_waiting"] == 2
        # The piece's provisional statements are replaced by the extraction, told when their messages were.
        assert await live(app, "chatgpt:c1-marathon") == [
            "Conversation summary: Marathon training while living in Munich.",
            "I live in Munich with my two cats",
            "I ran the Berlin marathon in September 2023",
        ]
        told = await scalar(
            app,
            "SELECT told_at FROM memories WHERE user_id = :u AND content = 'I live in Munich with my two cats'",
            u=user,
        )
        assert told == datetime(2023, 5, 8, 12, 2, tzinfo=UTC)
        assert (await waiting(client))["pieces_waiting"] == 2

        # Reflections and pieces take turns: after a piece, a reflection if one is due, then the next piece.
        handed: list[str] = []
        kinds: list[str] = []
        for _ in range(8):
            due = (await app.reflection.should_reflect(user)).triggered
            out = await call(client, "reflect")
            if out.get("task") is None:
                break
            if "imported chat history" in out["task"]:
                kinds.append("piece")
                handed.append(out["task"].split("the conversation ", 1)[1].split(",", 1)[0])
                await call(client, "ingest_conversation", task_id=out["task_id"], answer={"memories": []})
            else:
                assert due  # a reflection only when one is due
                kinds.append("reflection")
                await call(client, "reflect", task_id=out["task_id"], answer=answer())
        assert kinds == ["reflection", "piece", "piece"]
        assert handed == ["«日语学习»", "«School and allergies»"]  # oldest first
        assert (await waiting(client))["pieces_waiting"] == 0
        assert await live(app, "claude:cl-1") == []  # answered with nothing: the model's reading wins

        again = await app.chat_import.run(user, history(), app.clock())
        assert (again.kept, again.queued, again.unchanged) == (0, 0, 3)  # the empty conversation has no row


async def test_an_answered_conversation_hands_out_the_oldest_imported_piece_next(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        await app.chat_import.run(app.settings.user, history(), app.clock())
        today = [{"role": "user", "content": "I started a new job at Siemens this week."}]
        out = await call(client, "ingest_conversation", messages=today)
        assert out["status"] == "needs_model" and "the 1 message you sent" in out["task"]
        done = await call(client, "ingest_conversation", task_id=out["task_id"], answer={"memories": []})
        assert done["status"] == "needs_model" and "the conversation «Marathon training»" in done["task"]
        assert done["imports_waiting"] == 3
        text = (await client.call_tool("ingest_conversation", {"task_id": done["task_id"], "answer": MUNICH})).content
        assert (
            "imported chat history waiting for a model: 2 pieces (the next reflect call hands you one)" in text[0].text
        )


async def test_a_trait_that_rests_on_a_statement_the_extraction_replaces_keeps_it(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        user = app.settings.user
        await app.chat_import.run(user, history(), app.clock())
        forced = await call(client, "reflect", force=True)
        runs = {"content": "Runs along rivers", "confidence": 0.5, "context": "personal"}
        runs["evidence_ids"] = [alias(forced["task"], "run along the Isar")]
        await call(client, "reflect", task_id=forced["task_id"], answer=answer(new_behaviors=[runs]))
        piece = await call(client, "reflect")
        assert "«Marathon training»" in piece["task"]
        await call(client, "ingest_conversation", task_id=piece["task_id"], answer={"memories": []})
        traits = (await call(client, "get_user_traits", min_stage="trend"))["traits"]
        assert [t["content"] for t in traits] == ["Runs along rivers"]  # not dissolved with its evidence
        assert traits[0]["first_observed"].startswith("2023-05-08")  # when its evidence was told, not imported
        sql = "SELECT valid_until IS NOT NULL FROM memories WHERE user_id = :u AND content LIKE 'I live in Munich%'"
        assert await scalar(app, sql, u=user) is True  # ended (out of recall), not erased
        assert "run along the Isar" not in (await client.call_tool("recall", {"query": "Isar"})).content[0].text


async def test_results_say_when_the_imported_history_waits_for_the_calling_model(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        await app.chat_import.run(app.settings.user, list(chats.read(CHATS / "notes")), app.clock())
        text = (await client.call_tool("recall", {"query": "hiking"})).content[0].text
        # One memory is no reflection's worth; the two notes wait for the model to read them.
        assert text.endswith(
            "The user's imported chat history waits to be read (2 pieces): call reflect when the conversation allows."
        )


async def test_a_forced_reflection_and_another_user_are_not_handed_the_history(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        await app.chat_import.run("someone-else", history(), app.clock())
        await call(client, "remember", content="I bake sourdough every Sunday")
        mine = await call(client, "reflect")
        assert "imported" not in (mine.get("task") or "") and "Munich" not in json.dumps(mine)
        await app.chat_import.run(app.settings.user, history(), app.clock())
        forced = await call(client, "reflect", force=True)
        assert forced["task"] and "update engrain's model of the user" in forced["task"]


async def test_a_client_that_samples_is_handed_the_pieces_as_tasks_too(host_settings):
    """Sampling answers one prompt in the call; a piece is read through a task as with any client, in turns with
    the reflections its model samples (nothing is sampled on the history's turn)."""
    sampled: list[str] = []

    async def sample(context: Any, params: Any) -> CreateMessageResult:
        sampled.append(params.messages[0].content.text)
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=json.dumps(answer())), model="m"
        )

    async with connect(host_settings(), Clock(NOW), sampling_callback=sample) as (client, app):
        await app.chat_import.run(app.settings.user, history(), app.clock())
        first = await call(client, "reflect")
        assert first["status"] == "needs_model" and "«Marathon training»" in first["task"] and sampled == []
        await call(client, "ingest_conversation", task_id=first["task_id"], answer=MUNICH)
        second = await call(client, "reflect")  # a reflection is due after a piece: sampled, in this call
        assert second["llm"] == "sampling" and second["status"] == "completed" and len(sampled) == 1
        third = await call(client, "reflect")
        assert "«日语学习»" in third["task"] and len(sampled) == 1


async def test_the_servers_own_model_reads_the_queue_in_the_digest(settings_factory):
    prompts: list[Prompt] = []

    class Model:
        name = "scripted"

        async def complete(self, prompt: Prompt) -> str:
            prompts.append(prompt)
            if "extract long-term memories" in prompt.system:
                return json.dumps(MUNICH if "Marathon training" in prompt.user else {"memories": []})
            return json.dumps(answer())

    async with running(settings_factory(), Clock(NOW), llm=Model()) as app:
        user = app.settings.user
        await app.chat_import.run(user, history(), app.clock())
        mine = "FROM chat_imports WHERE user_id = :u AND"
        # Other tests' users share the database: a run reads theirs too, a few pieces a user, oldest users first.
        for _ in range(30):
            [digest] = await app.scheduler.run_many(["digest"])
            assert digest.stats["imported"]["pieces_read"] >= 1 and digest.stats["imported"]["pieces_failed"] == 0
            if not await scalar(app, f"SELECT count(*) {mine} extracted_at IS NULL", u=user):
                break
        extractions = [p.user for p in prompts if "extract long-term memories" in p.system]
        assert any("«Marathon training», 2023-05-08" in e for e in extractions)
        assert "I live in Munich with my two cats" in await live(app, "chatgpt:c1-marathon")
        assert "I'm allergic to shellfish, so please remember that for recipes." not in await live(app, "claude:cl-1")
        assert await scalar(app, f"SELECT count(*) {mine} extracted_at IS NULL", u=user) == 0
        assert await scalar(app, f"SELECT count(*) {mine} messages <> '[]'::jsonb", u=user) == 0


async def test_secrets_never_reach_the_queue_and_a_conversation_that_grew_queues_only_what_is_new(settings_factory):
    at = datetime(2025, 4, 1, 9, 0, tzinfo=UTC)
    said = [
        chats.ChatMessage("user", "I run the billing service. My API key is sk-ant-api03-" + "x" * 40 + " btw.", at),
        chats.ChatMessage("assistant", "Please rotate that key.", at + timedelta(minutes=1)),
    ]
    later = [chats.ChatMessage("user", "I moved the billing service to Frankfurt.", at + timedelta(days=3))]
    async with running(settings_factory(), Clock(NOW)) as app:
        user = app.settings.user
        first = await app.chat_import.run(user, [chats.Chat("chatgpt:b", "Billing", at, said)], app.clock())
        assert (first.kept, first.queued) == (2, 1)
        stored = await scalar(app, "SELECT messages::text FROM chat_imports WHERE user_id = :u", u=user)
        assert "sk-ant" not in stored and "Please rotate that key." in stored
        grown = await app.chat_import.run(user, [chats.Chat("chatgpt:b", "Billing", at, said + later)], app.clock())
        assert (grown.kept, grown.queued, grown.messages) == (1, 1, 1)  # the new message only, as piece 1
        pieces = await scalar(
            app, "SELECT array_agg(piece || ':' || upto ORDER BY piece) FROM chat_imports WHERE user_id = :u", u=user
        )
        assert pieces == ["0:2", "1:3"]
