"""link and forget through a real MCP client."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import call, call_error, connect, execute, scalar

pytestmark = pytest.mark.anyio


async def test_link_is_bidirectional_and_idempotent(session):
    client, app = session
    a = await call(client, "remember", content="Started learning Rust")
    b = await call(client, "remember", content="Rust book chapter 4 on ownership")
    first = await call(client, "link", source_id=a["id"], target_id=b["id"], relation="elaborates")
    again = await call(client, "link", source_id=a["id"], target_id=b["id"], relation="elaborates")
    assert first["status"] == "created" and again["status"] == "exists"
    assert await scalar(app, "SELECT count(*) FROM memory_links WHERE user_id = :u", u=app.settings.user) == 2
    found = await call(client, "recall", query="Rust book ownership chapter", limit=1)
    assert found["results"][0]["links"] == [{"id": a["id"], "relation": "elaborates"}]


@pytest.mark.parametrize(
    ("which", "needle"),
    [
        ("malformed", "source_id: 'nope' is not a memory id"),
        ("unknown", "target_id: no memory with id"),
        ("self", "target_id: a memory cannot be linked to itself"),
        ("relation", "relation: is 41 characters long; the limit is 40"),
        ("nul", "relation: contains a NUL byte"),
    ],
)
async def test_bad_links(session, which, needle):
    client, app = session
    a = await call(client, "remember", content="Anchor memory")
    args = {
        "malformed": {"source_id": "nope", "target_id": a["id"]},
        "unknown": {"source_id": a["id"], "target_id": str(uuid.uuid4())},
        "self": {"source_id": a["id"], "target_id": a["id"]},
        "relation": {"source_id": a["id"], "target_id": str(uuid.uuid4()), "relation": "r" * 41},
        "nul": {"source_id": a["id"], "target_id": a["id"], "relation": "x\x00"},
    }[which]
    assert needle in await call_error(client, "link", **args)
    assert await scalar(app, "SELECT count(*) FROM memory_links WHERE user_id = :u", u=app.settings.user) == 0


async def test_cannot_link_or_forget_another_users_memory(settings_factory):
    async with connect(settings_factory()) as (alice, _):
        theirs = await call(alice, "remember", content="Alice's diary entry")
    async with connect(settings_factory()) as (bob, bob_app):
        mine = await call(bob, "remember", content="Bob's own note")
        message = await call_error(bob, "link", source_id=mine["id"], target_id=theirs["id"])
        assert f"target_id: no memory with id {theirs['id']}" in message
        message = await call_error(bob, "forget", memory_id=theirs["id"])
        assert f"memory_id: no memory with id {theirs['id']}" in message
        unknown = await call_error(bob, "forget", memory_id=str(uuid.uuid4()))
        assert unknown.replace(unknown.split()[-1], "") == message.replace(message.split()[-1], "")
        assert await scalar(bob_app, "SELECT count(*) FROM memories WHERE id = :id", id=uuid.UUID(theirs["id"])) == 1


async def test_forget_removes_row_links_and_vector_and_keeps_no_content(session):
    client, app = session
    a = await call(client, "remember", content="My old phone number is 555-0100")
    b = await call(client, "remember", content="Phone contract renewal in March")
    await call(client, "link", source_id=a["id"], target_id=b["id"])
    out = await call(client, "forget", memory_id=a["id"], reason="user_request")
    assert out == {"id": a["id"], "deleted": True, "traits_dissolved": []}
    mid = uuid.UUID(a["id"])
    assert await scalar(app, "SELECT count(*) FROM memories WHERE id = :id", id=mid) == 0
    assert await scalar(app, "SELECT count(*) FROM memory_links WHERE source_id = :id OR target_id = :id", id=mid) == 0
    rows = await scalar(
        app,
        "SELECT json_agg(json_build_array(action, old_content, new_content, reason) ORDER BY id)"
        " FROM memory_history WHERE memory_id = :id",
        id=mid,
    )
    assert rows[-1] == ["forget", None, None, "user_request"]
    assert all("555-0100" not in str(r) for r in rows if r[0] == "forget")
    assert a["id"] not in [r["id"] for r in (await call(client, "recall", query="phone number"))["results"]]
    again = await call_error(client, "forget", memory_id=a["id"])
    assert "memory_id: no memory with id" in again


async def test_forget_dissolves_traits_that_lose_their_last_support(session):
    client, app = session
    run1 = await call(client, "remember", content="Went running at 6am on Monday")
    run2 = await call(client, "remember", content="Went running at 6am on Thursday")
    sole, shared = uuid.uuid4(), uuid.uuid4()
    for trait_id, content in ((sole, "Is an early riser"), (shared, "Runs regularly")):
        await execute(
            app,
            "INSERT INTO memories (id, user_id, kind, content, content_hash, trait_subtype, trait_stage, "
            "trait_confidence) VALUES (:id, :u, 'trait', :c, md5(:c), 'behavior', 'emerging', 0.4)",
            id=trait_id,
            u=app.settings.user,
            c=content,
        )
    await execute(
        app,
        "INSERT INTO trait_evidence (user_id, trait_id, memory_id, polarity, quality) VALUES "
        "(:u, :sole, :r1, 'supporting', 'C'), (:u, :shared, :r1, 'supporting', 'C'), "
        "(:u, :shared, :r2, 'supporting', 'C')",
        u=app.settings.user,
        sole=sole,
        shared=shared,
        r1=uuid.UUID(run1["id"]),
        r2=uuid.UUID(run2["id"]),
    )
    out = await call(client, "forget", memory_id=run1["id"])
    assert out["traits_dissolved"] == [str(sole)]
    assert await scalar(app, "SELECT trait_stage FROM memories WHERE id = :id", id=sole) == "dissolved"
    assert await scalar(app, "SELECT trait_stage FROM memories WHERE id = :id", id=shared) == "emerging"
    assert await scalar(app, "SELECT count(*) FROM trait_evidence WHERE trait_id = :id", id=shared) == 1
    assert await scalar(app, "SELECT action FROM memory_history WHERE memory_id = :id", id=sole) == "dissolve"
