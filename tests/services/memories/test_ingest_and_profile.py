"""ingest_conversation (with and without a model), the trait and profile resources, and the
profile summary in the server instructions."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime

import pytest
from mcp import Client, MCPError

from engrain.server.app import create_server
from engrain.server.state import AppState
from tests.conftest import Clock, call, call_error, connect, execute, scalar
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
CONVERSATION = [
    {"role": "user", "content": "Hi! Well, I just moved to Lisbon last month. My wife and I love surfing."},
    {"role": "assistant", "content": "Lisbon is great for surfing. Do you surf at Carcavelos?"},
    {"role": "user", "content": "Yes, most weekends. What's a good wetsuit thickness for winter?"},
    {"role": "user", "content": "By the way, my deploy routine is: run tests → build image → push → restart."},
]


async def test_rules_keep_first_person_statements(settings_factory):
    async with connect(settings_factory(llm="none")) as (client, app):
        out = await call(client, "ingest_conversation", messages=CONVERSATION, session_id="conv-1")
        assert out["method"] == "rules" and out["llm"] == "none" and out["summary_id"] is None
        sql = "SELECT array_agg(content ORDER BY created_at) FROM memories WHERE user_id = :u AND kind <> 'reply'"
        contents = await scalar(app, sql, u=app.settings.user)
        assert "I just moved to Lisbon last month." in contents
        assert "My wife and I love surfing." in contents
        assert not [c for c in contents if c.endswith("?") or "Carcavelos" in c]
        # What the assistant said is kept as its reply (issue 51), never among the user's statements.
        replies = await scalar(
            app, "SELECT array_agg(content) FROM memories WHERE kind = 'reply' AND user_id = :u", u=app.settings.user
        )
        assert "Lisbon is great for surfing. Do you surf at Carcavelos?" in replies and len(out["replies"]) == len(
            replies
        )
        kinds = await scalar(
            app, "SELECT json_object_agg(content, kind) FROM memories WHERE user_id = :u", u=app.settings.user
        )
        assert kinds["By the way, my deploy routine is: run tests → build image → push → restart."] == "procedural"
        assert (
            await scalar(app, "SELECT count(DISTINCT source) FROM memories WHERE user_id = :u", u=app.settings.user)
            == 1
        )
        again = await call(client, "ingest_conversation", messages=CONVERSATION, session_id="conv-1")
        assert again["created"] == [] and len(again["duplicates"]) == len(out["created"])


async def test_llm_extraction_with_linked_summary(settings_factory):
    llm = ScriptedLLM(
        {
            "memories": [
                {
                    "content": "Moved to Lisbon in October 2026",
                    "kind": "episodic",
                    "importance": 8,
                    "category": "location",
                    "event_time": "2026-10-15",
                    "temporality": "historical",
                },
                {
                    "content": "Surfs with his wife most weekends",
                    "kind": "fact",
                    "importance": 6,
                    "category": "preference",
                },
                {
                    "content": "Deploy routine",
                    "kind": "procedural",
                    "procedure_steps": ["run tests", "build image", "push"],
                },
                {"content": "", "kind": "fact"},
                {"content": "bad date", "event_time": "the twelfth of never"},
                "not an object",
            ],
            "summary": "The user talked about moving to Lisbon and surfing.",
        }
    )
    async with connect(settings_factory(), Clock(datetime(2026, 11, 22, tzinfo=UTC)), llm) as (client, app):
        out = await call(client, "ingest_conversation", messages=CONVERSATION)
        assert out["method"] == "llm" and out["llm"] == "scripted" and len(out["created"]) == 4
        assert "Today is 2026-11-22 (Sunday)" in llm.prompts[0].user
        detail = json.loads((await client.read_resource(f"engrain://memories/{out['summary_id']}")).contents[0].text)
        assert detail["kind"] == "episodic" and detail["content"].startswith("Conversation summary:")
        assert {link["id"] for link in detail["links"]} == set(out["created"])
        assert {link["relation"] for link in detail["links"]} == {"summarizes"}
        moved = json.loads((await client.read_resource(f"engrain://memories/{out['created'][0]}")).contents[0].text)
        assert moved["event_time"].startswith("2026-10-15") and moved["importance"] == 8
        assert moved["temporality"] == "historical"
        steps = await scalar(
            app, "SELECT metadata -> 'procedure_steps' FROM memories WHERE id = :id", id=uuid.UUID(out["created"][2])
        )
        assert steps == ["run tests", "build image", "push"]


async def test_malformed_llm_output_falls_back_to_rules(settings_factory):
    async with connect(settings_factory(), llm=ScriptedLLM("nope", "still nope")) as (client, _):
        out = await call(client, "ingest_conversation", messages=CONVERSATION)
        assert out["method"] == "rules" and len(out["created"]) >= 2


@pytest.mark.parametrize(
    ("messages", "needle"),
    [
        ([], "messages: must not be empty"),
        ([{"role": "user", "content": "I like \x00 tea"}], "messages[0].content: contains a NUL byte"),
        ([{"role": "user", "content": "x" * 200_001}], "messages: 200,001 characters in all"),
        ([{"role": "robot", "content": "hi"}], "role"),
    ],
)
async def test_bad_conversations_write_nothing(settings_factory, messages, needle):
    async with connect(settings_factory(llm="none")) as (client, app):
        assert needle in await call_error(client, "ingest_conversation", messages=messages)
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == 0


async def test_ingest_through_client_sampling(settings_factory):
    async def callback(context, params):
        from mcp.types import CreateMessageResult, TextContent

        text = json.dumps({"memories": [{"content": "Surfs in Lisbon", "kind": "fact"}], "summary": "Surfing."})
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model="m")

    async with connect(settings_factory(llm="sampling"), sampling_callback=callback) as (client, _):
        out = await call(client, "ingest_conversation", messages=CONVERSATION)
        assert out["method"] == "llm" and out["llm"] == "sampling" and out["summary_id"]


async def test_traits_resources_and_profile(settings_factory):
    llm = ScriptedLLM(
        lambda p: answer(
            new_behaviors=[
                {
                    "content": "Works best in the early morning",
                    "confidence": 0.5,
                    "context": "work",
                    "evidence_ids": [alias(p, "5am")],
                }
            ]
        )
    )
    async with connect(settings_factory(), llm=llm) as (client, app):
        await call(client, "remember", content="Wrote the report at 5am, most productive time", pinned=True)
        await call(client, "remember", content="Conference talk", event_time="2099-05-01")
        await call(client, "reflect")
        listed = json.loads((await client.read_resource("engrain://traits")).contents[0].text)
        assert [t["content"] for t in listed] == ["Works best in the early morning"]
        await execute(
            app,
            "UPDATE memories SET trait_stage = 'established', trait_confidence = 0.7 WHERE id = :id",
            id=uuid.UUID(listed[0]["id"]),
        )
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        trait = listed[0]["id"][:8]
        assert f"## Established traits\n- [established, 0.70] «Works best in the early morning» ({trait})" in profile
        assert re.search(r"## Pinned\n- \[said \d{4}-\d\d-\d\d\] «Wrote the report at 5am", profile)
        assert "· happened 2099-05-01, plan] «Conference talk»" in profile.split("## Upcoming plans\n", 1)[1]
        with pytest.raises(MCPError, match="no memory with id"):
            await client.read_resource(f"engrain://traits/{uuid.uuid4()}")
        # A new server for the same user carries the profile in its instructions.
        second = AppState(app.settings)
        server = create_server(second)
        async with Client(server) as other:
            await other.call_tool("get_user_traits", {})
            await second.drain()
            assert "Works best in the early morning" in (server.instructions or "")


async def test_get_user_traits_filters(settings_factory):
    async with connect(settings_factory(llm="none")) as (client, app):
        for content, stage, subtype, context, c in [
            ("Core value", "core", "core", "general", 0.9),
            ("Pref", "established", "preference", "work", 0.7),
            ("Beh", "emerging", "behavior", "work", 0.4),
            ("Cand", "candidate", "behavior", "social", 0.2),
            ("Trend", "trend", "behavior", "general", 0.2),
            ("Gone", "dissolved", "behavior", "general", 0.05),
        ]:
            await execute(
                app,
                "INSERT INTO memories (id, user_id, kind, content, content_hash, trait_stage, "
                "trait_subtype, trait_context, trait_confidence) VALUES (gen_random_uuid(), :u, "
                "'trait', :c, md5(:c), :s, :t, :x, :conf)",
                u=app.settings.user,
                c=content,
                s=stage,
                t=subtype,
                x=context,
                conf=c,
            )

        async def names(**args):
            return [t["content"] for t in (await call(client, "get_user_traits", **args))["traits"]]

        assert await names() == ["Core value", "Pref", "Beh", "Cand"]  # what is forming is shown by default
        assert await names(min_stage="emerging") == ["Core value", "Pref", "Beh"]
        assert await names(min_stage="trend") == ["Core value", "Pref", "Beh", "Cand", "Trend"]
        assert await names(min_stage="trend", context="work") == ["Pref", "Beh"]
        assert await names(subtype="behavior") == ["Beh", "Cand"]
        assert await names(limit=1) == ["Core value"]
        assert "limit: 0 is out of range" in await call_error(client, "get_user_traits", limit=0)


async def test_a_models_null_date_and_a_summary_are_read_as_the_model_gave_them(settings_factory):
    """`"event_time": null` written out by the model is its reading (no date), not a gap for the rules to fill;
    a summary retelling "every week" is no habit of the user's (issue 52, part 6)."""
    llm = ScriptedLLM(
        {
            "memories": [
                {"content": "I want to visit Kyoto in 2027 someday", "event_time": None, "temporality": "current"},
                {"content": "I finished the Berlin marathon in 2023", "temporality": "historical"},
            ],
            "summary": "The user talked about running every week and a dream trip to Kyoto.",
        }
    )
    async with connect(settings_factory(), Clock(datetime(2026, 11, 22, tzinfo=UTC)), llm) as (client, app):
        out = await call(client, "ingest_conversation", messages=CONVERSATION)
        kyoto, marathon = out["created"]
        rows = await scalar(
            app,
            "SELECT json_object_agg(id::text, json_build_object('event', event_time, 'meta', metadata))"
            " FROM memories WHERE user_id = :u",
            u=app.settings.user,
        )
        found = (await client.call_tool("recall", {"query": "running every week"})).content[0].text
    assert rows[kyoto]["event"] is None  # the rules would read 2027 from the sentence
    assert rows[marathon]["event"].startswith("2023-01-01")  # a date left out is still read from the text
    assert "recurrence" not in rows[out["summary_id"]]["meta"]
    assert "Conversation summary" in found and "habit" not in found
