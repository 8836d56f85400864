"""The MCP surface as a client sees it: tools and schemas, resources, prompt, instructions."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client, MCPError

from tests.conftest import TOOLS, Clock, call, call_error, connect, line_ids, scalar

pytestmark = pytest.mark.anyio


async def test_tools_have_schemas_and_annotations(session):
    client, _ = session
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == set(TOOLS)
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert tool.description
    assert tools["recall"].annotations.read_only_hint is True
    assert tools["get_user_traits"].annotations.read_only_hint is True
    assert set(tools["reflect"].input_schema["properties"]) == {"force", "task_id", "answer"}  # host tasks
    assert tools["forget"].annotations.destructive_hint is True
    assert tools["remember"].input_schema["required"] == ["content"]
    assert set(tools["recall"].output_schema["properties"]) >= {"results", "query"}
    assert set(tools["remember"].output_schema["properties"]) >= {
        "id",
        "status",
        "kind",
        "temporality",
        "event_time",
        "importance",
        "procedure_steps",
    }


async def test_results_carry_text_and_structured_content(session):
    client, _ = session
    result = await client.call_tool("remember", {"content": "Favourite band is Radiohead"})
    assert result.content[0].text.startswith("created: ")
    assert result.structured_content["status"] == "created"


async def test_instructions_and_prompt(session):
    client, _ = session
    assert "recall" in client.instructions and "remember" in client.instructions
    prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["memory-guide"]
    prompt = await client.get_prompt("memory-guide")
    assert "Recall first" in prompt.messages[0].content.text


async def test_resources_are_listed(session):
    client, _ = session
    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    assert {
        "engrain://memories/recent",
        "engrain://intentions",
        "engrain://status",
        "engrain://traits",
        "engrain://profile",
    } <= uris
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert {"engrain://memories/{memory_id}", "engrain://traits/{trait_id}"} <= templates


async def read_json(client: Client, uri: str):
    result = await client.read_resource(uri)
    return json.loads(result.contents[0].text)


async def test_recent_memories(session):
    client, _ = session
    first = await call(client, "remember", content="Plays chess on Sundays")
    second = await call(client, "remember", content="Plays padel on Tuesdays")
    recent = await read_json(client, "engrain://memories/recent")
    assert {m["id"] for m in recent} == {first["id"], second["id"]}


async def test_memory_detail_has_links_and_history(session):
    client, _ = session
    old = await call(client, "remember", content="Drives a 2012 Golf")
    new = await call(client, "remember", content="Drives a 2024 ID.3", supersedes=old["id"])
    await call(client, "link", source_id=old["id"], target_id=new["id"], relation="causal")
    detail = await read_json(client, f"engrain://memories/{old['id']}")
    assert detail["content"] == "Drives a 2012 Golf" and detail["valid_until"] is not None
    assert [h["action"] for h in detail["history"]] == ["create", "supersede"]
    assert detail["links"][0]["id"] == new["id"] and detail["links"][0]["relation"] == "causal"


async def test_memory_resource_of_unknown_other_user_or_malformed_id(settings_factory):
    async with connect(settings_factory()) as (alice, _):
        theirs = await call(alice, "remember", content="Alice's private note")
    async with connect(settings_factory()) as (bob, _):
        for bad in (theirs["id"], theirs["id"][:8], str(uuid.uuid4())):  # a short id is the caller's own too
            with pytest.raises(MCPError, match="no memory with id"):
                await bob.read_resource(f"engrain://memories/{bad}")
        with pytest.raises(MCPError, match="not a memory id"):
            await bob.read_resource("engrain://memories/not-an-id")


async def test_intentions_split_upcoming_and_overdue(settings_factory):
    clock = Clock(datetime(2026, 11, 22, 9, 0, tzinfo=UTC))
    async with connect(settings_factory(), clock) as (client, _):
        soon = await call(client, "remember", content="Dentist appointment next Tuesday")
        undated = await call(client, "remember", content="I plan to learn Portuguese")
        await call(client, "remember", content="I like green tea")
        clock.now += timedelta(days=10)
        late = await call(client, "remember", content="Renew passport", event_time="2026-12-03", importance=8)
        intentions = (await client.read_resource("engrain://intentions")).contents[0].text
    assert line_ids(intentions, "Overdue") == [soon["id"][:8]]
    assert line_ids(intentions, "Upcoming") == [late["id"][:8], undated["id"][:8]]
    assert f"- [said 2026-12-02 · happened 2026-12-03, plan] «Renew passport» ({late['id'][:8]})" in intentions


async def test_status_reports_database_embedder_and_counts(session):
    client, app = session
    await call(client, "remember", content="Status check memory")
    status = await read_json(client, "engrain://status")
    assert status["database"]["ok"] is True
    assert status["embedder"]["id"] == "hash-v2-384" and status["embedder"]["state"] == "ready"
    assert status["counts"]["by_kind"] == {"fact": 1}
    assert status["user"] == app.settings.user
    assert status["llm"]["provider"] in ("none", "sampling") and status["reflection"]["last_cycle"] is None
    assert set(status["scheduler"]["jobs"]) == {"expiry", "digest", "decay"}
    assert status["scheduler"]["enabled_in_this_server"] is False


async def test_pin_memory_keeps_a_memory_in_view_until_unpinned(settings_factory):
    """pin_memory through MCP: pinned (by full or short id) it is listed under the profile's Pinned and its
    history says so; pinning again changes nothing; unpinned it leaves the list; a trait, another user's
    memory or an unknown id is not found."""
    async with connect(settings_factory()) as (other, _):
        theirs = await call(other, "remember", content="Somebody else's note")
    async with connect(settings_factory()) as (client, app):
        kept = await call(client, "remember", content="My blood type is O negative")
        pinned = await client.call_tool("pin_memory", {"memory_id": kept["id"][:8]})
        assert pinned.structured_content == {"id": kept["id"], "pinned": True, "changed": True}
        assert pinned.content[0].text == f"pinned {kept['id']}"
        again = await call(client, "pin_memory", memory_id=kept["id"])
        assert again["changed"] is False
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert kept["id"][:8] in "".join(line_ids(profile, "Pinned"))
        assert await scalar(app, "SELECT pinned FROM memories WHERE id = CAST(:i AS uuid)", i=kept["id"]) is True
        unpinned = await call(client, "pin_memory", memory_id=kept["id"], pinned=False)
        assert unpinned == {"id": kept["id"], "pinned": False, "changed": True}
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert kept["id"][:8] not in "".join(line_ids(profile, "Pinned"))
        history = await scalar(
            app,
            "SELECT string_agg(action, ',' ORDER BY at, action) FROM memory_history WHERE memory_id = CAST(:i AS uuid)",
            i=kept["id"],
        )
        assert set(history.split(",")) == {"create", "pin", "unpin"}
        for missing in (theirs["id"], str(uuid.uuid4())):
            assert "no memory with id" in await call_error(client, "pin_memory", memory_id=missing)


async def test_resource_reads_and_their_errors_are_counted_as_tools_are(session):
    """Every resource maps its failures once (resource_errors): an unknown id is not found (-32602), a date no
    person means is invalid, both with their message; reads and errors reach /metrics by resource and kind."""
    from engrain.metrics import REGISTRY

    client, _ = session

    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    reads, missing, invalid = (
        sample("engrain_resource_calls_total", resource="memory"),
        sample("engrain_resource_errors_total", resource="memory", kind="not_found"),
        sample("engrain_resource_errors_total", resource="profile_as_of", kind="invalid"),
    )
    with pytest.raises(MCPError, match="no memory with id") as unknown:
        await client.read_resource(f"engrain://memories/{uuid.uuid4()}")
    assert unknown.value.error.code == -32602
    with pytest.raises(MCPError, match="as_of"):
        await client.read_resource("engrain://profile/as-of/0001-01-01")
    assert sample("engrain_resource_calls_total", resource="memory") == reads + 1
    assert sample("engrain_resource_errors_total", resource="memory", kind="not_found") == missing + 1
    assert sample("engrain_resource_errors_total", resource="profile_as_of", kind="invalid") == invalid + 1
    assert sample("engrain_resource_duration_seconds_count", resource="memory") >= 1
