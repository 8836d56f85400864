"""No text of one user reaches another user's session, and a forget keeps no words (issue 23, items 1, 2)."""

from __future__ import annotations

import json
import uuid

import pytest
from mcp import Client

from tests.conftest import call, call_error, scalar
from tests.http_server import http_client, http_server, sse_client

pytestmark = pytest.mark.anyio
RUN = uuid.uuid4().hex[:8]
ALICE, BOB = f"alice-{RUN}", f"bob-{RUN}"
ALICE_TOKEN, BOB_TOKEN = f"tok-alice-{RUN}-private", f"tok-bob-{RUN}-private-x"
PRIVATE = "I will see the oncologist Dr Quill tomorrow about the biopsy results"
MARKERS = ("Quill", "oncologist", "biopsy")


def leaks(text: str) -> list[str]:
    return [m for m in MARKERS if m in text]


async def everything_bob_can_read(bob: Client) -> str:
    """The instructions, every resource and template, and every tool's answer, as one text."""
    seen = [bob.instructions or ""]
    for resource in (await bob.list_resources()).resources:
        for content in (await bob.read_resource(str(resource.uri))).contents:
            seen.append(getattr(content, "text", "") or "")
    seen += [t.uri_template for t in (await bob.list_resource_templates()).resource_templates]
    for name, args in [
        ("recall", {"query": "doctor appointment about the test results"}),
        ("recall", {"query": "what is coming up tomorrow"}),
        ("get_user_traits", {}),
        ("reflect", {"force": True}),
        ("remember", {"content": "Bob repairs old radios"}),
    ]:
        result = await bob.call_tool(name, args)
        seen += [getattr(c, "text", "") for c in result.content]
        seen.append(json.dumps(result.structured_content or {}))
    for prompt in (await bob.list_prompts()).prompts:
        got = await bob.get_prompt(prompt.name)
        seen += [getattr(m.content, "text", "") for m in got.messages]
    return "\n".join(seen)


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_another_users_appointment_never_reaches_a_session(pg_url, tmp_path, transport):
    """ENGRAIN_USER=alice in the server's environment (as a stdio setup leaves it): over HTTP and SSE each
    caller is its token's user, and bob's session carries nothing of alice's, even at initialize."""
    tokens = {ALICE_TOKEN: ALICE, BOB_TOKEN: BOB}
    client = http_client if transport == "http" else sse_client
    path = "/mcp" if transport == "http" else "/sse"
    with http_server(pg_url, tmp_path, tokens, transport=transport, ENGRAIN_USER=ALICE) as server:
        async with client(server.url + path, ALICE_TOKEN) as alice:
            await call(alice, "remember", content=PRIVATE)
            await call(alice, "remember", content="I will call Dr Quill's office on Friday")
        assert leaks(server.logs()) == []
    # A server started after alice's memories exist, as after a restart: bob's session is the first.
    with http_server(pg_url, tmp_path, tokens, transport=transport, ENGRAIN_USER=ALICE) as server:
        async with client(server.url + path, BOB_TOKEN) as bob:
            assert leaks(await everything_bob_can_read(bob)) == []
        assert leaks(server.logs()) == []


async def test_forget_keeps_a_category_never_the_users_words(session):
    client, app = session
    memory = await call(client, "remember", content="I have diabetes type 2")
    refused = await call_error(client, "forget", memory_id=memory["id"], reason="forget that I have diabetes")
    assert "reason" in refused and "user_request" in refused
    assert await scalar(app, "SELECT count(*) FROM memories WHERE id = :id", id=uuid.UUID(memory["id"])) == 1
    await call(client, "forget", memory_id=memory["id"], reason="private")
    await call(client, "forget", memory_id=(await call(client, "remember", content="Second note"))["id"])
    reasons = await scalar(
        app,
        "SELECT json_agg(reason ORDER BY at) FROM memory_history WHERE user_id = :u AND action = 'forget'",
        u=app.settings.user,
    )
    assert reasons == ["private", "user_request"]
    tool = next(t for t in (await client.list_tools()).tools if t.name == "forget")
    assert "user_request" in json.dumps(tool.input_schema["properties"]["reason"])


async def test_the_caller_is_resolved_never_an_argument(session):
    """Who is calling is resolved by the server (tools/common.Caller through the SDK's resolvers): no tool
    lists a user argument, and one sent anyway is refused by name (issue 39: it was dropped silently, as every
    argument a tool does not take was), nothing stored."""
    client, app = session
    tools = (await client.list_tools()).tools
    assert all("user" not in (t.input_schema.get("properties") or {}) for t in tools)
    refused = await call_error(client, "remember", content="My bike is green", user="somebody-else")
    assert "user: is not an argument of remember" in refused
    assert await scalar(app, "SELECT count(*) FROM memories WHERE content = 'My bike is green'") == 0
    stored = await call(client, "remember", content="My bike is green")
    owner = await scalar(app, "SELECT user_id FROM memories WHERE id = :id", id=uuid.UUID(stored["id"]))
    assert owner == app.settings.user
