"""remember through a real MCP client: enrichment, dedup, supersede, and bad input that writes nothing."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import Clock, call, call_error, connect, scalar

pytestmark = pytest.mark.anyio


async def test_creates_with_inferred_fields(session):
    client, app = session
    out = await call(client, "remember", content="I adore sushi, especially salmon nigiri")
    assert out["status"] == "created"
    assert out["kind"] == "fact" and out["temporality"] == "current" and out["importance"] == 5
    assert out["category"] == "preference"
    row = await scalar(app, "SELECT embedder FROM memory_vectors WHERE id = :id", id=uuid.UUID(out["id"]))
    assert row == "hash-v2-384"
    told = await scalar(
        app, "SELECT action || ': ' || new_content FROM memory_history WHERE memory_id = :id", id=uuid.UUID(out["id"])
    )
    assert told == "create: I adore sushi, especially salmon nigiri"


async def test_relative_dates_resolve_against_the_clock(settings_factory):
    clock = Clock(datetime(2026, 11, 22, 10, 0, tzinfo=UTC))  # a Sunday
    async with connect(settings_factory(), clock) as (client, _):
        went = await call(client, "remember", content="I went hiking in the Alps yesterday")
        assert went["event_time"].startswith("2026-11-21")
        assert went["kind"] == "episodic" and went["temporality"] == "historical"
        plan = await call(client, "remember", content="Dentist appointment in 3 days")
        assert plan["event_time"].startswith("2026-11-25") and plan["temporality"] == "prospective"
        met = await call(client, "remember", content="We met Anna last Wednesday at the cafe")
        assert met["event_time"].startswith("2026-11-18")
        move = await call(client, "remember", content="I'm moving to Lisbon next month")
        assert move["event_time"].startswith("2026-12") and move["temporality"] == "prospective"
        plain = await call(client, "remember", content="We may adopt a cat")
        assert plain["event_time"] is None


async def test_procedures_become_procedural(session):
    client, _ = session
    arrows = await call(client, "remember", content="Release: bump version → tag → push → publish")
    assert arrows["kind"] == "procedural"
    assert arrows["procedure_steps"] == ["bump version", "tag", "push", "publish"]
    words = await call(
        client, "remember", content="To brew coffee, first grind the beans, then heat water to 94C, finally pour slowly"
    )
    assert words["kind"] == "procedural"
    assert words["procedure_steps"] == ["grind the beans", "heat water to 94C", "pour slowly"]


async def test_client_arguments_win(session):
    client, _ = session
    out = await call(
        client,
        "remember",
        content="Moved to Porto yesterday",
        kind="fact",
        importance=9,
        event_time="2020-05-01",
        category="home",
        tags=["move", "move", "porto"],
        pinned=True,
    )
    assert out["kind"] == "fact" and out["importance"] == 9 and out["category"] == "home"
    assert out["event_time"].startswith("2020-05-01")


async def test_exact_duplicate_bumps_access(session):
    client, app = session
    first = await call(client, "remember", content="My cat is called Miso")
    again = await call(client, "remember", content="  my cat is called miso. ")
    assert again["status"] == "duplicate" and again["id"] == first["id"]
    assert await scalar(app, "SELECT access_count FROM memories WHERE id = :id", id=uuid.UUID(first["id"])) == 1
    assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == 1


async def test_near_duplicate_merges_into_one_row(session):
    client, app = session
    first = await call(client, "remember", content="I work as a backend engineer at Acme Corp in Berlin", importance=4)
    near = await call(client, "remember", content="I work as a Backend-Engineer at ACME Corp. in Berlin", importance=7)
    assert near["status"] == "merged" and near["id"] == first["id"] and near["importance"] == 7
    assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == 1
    other = await call(client, "remember", content="I work as a frontend engineer at Acme Corp in Berlin")
    assert other["status"] == "created"
    actions = await scalar(
        app, "SELECT array_agg(action ORDER BY id) FROM memory_history WHERE memory_id = :id", id=uuid.UUID(first["id"])
    )
    # Merged with its near-duplicate; then another job, a single-valued fact (reading/slots.py), replaced its
    # job — not all of it: "at Acme Corp in Berlin" still holds (services/memories/replacing.py).
    assert actions == ["create", "merge", "replace_value"] and other["superseded"] == first["id"]


async def test_supersede_hides_the_old_memory(session):
    client, app = session
    old = await call(client, "remember", content="I live in Hamburg")
    new = await call(client, "remember", content="I live in Munich now", supersedes=old["id"])
    assert new["superseded"] == old["id"]
    found = await call(client, "recall", query="where do I live")
    ids = [r["id"] for r in found["results"]]
    assert new["id"] in ids and old["id"] not in ids
    assert await scalar(app, "SELECT valid_until IS NOT NULL FROM memories WHERE id = :id", id=uuid.UUID(old["id"]))
    # The same text may be remembered again once the old row is no longer live.
    again = await call(client, "remember", content="I live in Hamburg")
    assert again["status"] == "created" and again["id"] != old["id"]


async def _count(app) -> int:
    return await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"content": ""}, "content: must not be empty"),
        ({"content": "   \n\t "}, "content: must not be empty"),
        ({"content": "x" * 8001}, "content: is 8,001 characters long; the limit is 8,000"),
        ({"content": "null\x00byte"}, "content: contains a NUL byte"),
        ({"content": "ok", "importance": 11}, "importance: 11 is out of range"),
        ({"content": "ok", "kind": "trait"}, "kind"),
        ({"content": "ok", "supersedes": "not-a-uuid"}, "supersedes: 'not-a-uuid' is not a memory id"),
        ({"content": "ok", "supersedes": str(uuid.uuid4())}, "supersedes: no memory with id"),
        ({"content": "ok", "event_time": "the day after never"}, "event_time:"),
        ({"content": "ok", "tags": ["t"] * 21}, "tags: 21 tags; the limit is 20"),
        ({"content": "ok", "namespace": "bad namespace!"}, "namespace:"),
    ],
)
async def test_bad_input_is_rejected_and_writes_nothing(session, args, needle):
    client, app = session
    message = await call_error(client, "remember", **args)
    assert needle in message
    assert await _count(app) == 0
    assert await scalar(app, "SELECT count(*) FROM memory_history WHERE user_id = :u", u=app.settings.user) == 0
    ok = await call(client, "remember", content="the server keeps serving")
    assert ok["status"] == "created"


async def test_exactly_8000_characters_is_accepted(session):
    client, _ = session
    assert (await call(client, "remember", content="a" * 7999 + "b"))["status"] == "created"


async def test_unicode_and_sql_metacharacters_round_trip(session):
    client, app = session
    text = "Robert'); DROP TABLE memories;-- likes 寿司 🍣 and naïve café ‮"
    out = await call(client, "remember", content=text)
    assert await scalar(app, "SELECT content FROM memories WHERE id = :id", id=uuid.UUID(out["id"])) == text
    found = await call(client, "recall", query="'; DROP TABLE memories; -- 寿司")
    assert out["id"] in [r["id"] for r in found["results"]]


async def test_another_users_id_is_unknown(settings_factory):
    async with connect(settings_factory()) as (alice, _):
        theirs = await call(alice, "remember", content="Alice's secret recipe uses saffron")
    async with connect(settings_factory()) as (bob, bob_app):
        message = await call_error(bob, "remember", content="Bob's note", supersedes=theirs["id"])
        assert f"supersedes: no memory with id {theirs['id']}" in message
        assert await _count(bob_app) == 0


async def test_recallable_as_soon_as_remember_returns(session):
    client, _ = session
    for i in range(5):
        out = await call(client, "remember", content=f"Project codename number {i} is Falcon{i}")
        found = await call(client, "recall", query=f"Falcon{i}", limit=1)
        assert found["results"][0]["id"] == out["id"]


async def test_event_time_may_be_relative_for_client_too(settings_factory):
    clock = Clock(datetime(2026, 11, 22, 10, 0, tzinfo=UTC))
    async with connect(settings_factory(), clock) as (client, _):
        out = await call(client, "remember", content="Call the bank", event_time="tomorrow")
        assert out["temporality"] == "prospective"
        assert datetime.fromisoformat(out["event_time"]) - clock.now < timedelta(days=2)


async def test_supersede_by_text_that_already_exists_still_retires_the_old(session):
    client, app = session
    old = await call(client, "remember", content="My phone is a Pixel 6")
    existing = await call(client, "remember", content="My phone is an iPhone 15")
    out = await call(client, "remember", content="My phone is an iPhone 15", supersedes=old["id"])
    assert out["status"] == "duplicate" and out["id"] == existing["id"] and out["superseded"] == old["id"]
    assert await scalar(app, "SELECT valid_until IS NOT NULL FROM memories WHERE id = :id", id=uuid.UUID(old["id"]))


async def test_supersede_never_merges_into_a_look_alike(session):
    client, _ = session
    old = await call(client, "remember", content="Team standup is at 9:30")
    await call(client, "remember", content="I work as a backend engineer at Acme Corp in Berlin")
    out = await call(
        client, "remember", content="I work as a backend engineer at ACME Corp. in Berlin", supersedes=old["id"]
    )
    assert out["status"] == "created" and out["superseded"] == old["id"]


async def test_remember_many_dedups_and_validates_all_or_nothing(session):
    client, app = session
    known = await call(client, "remember", content="Owns a red kayak")
    items = [
        {"content": "Owns a red kayak"},
        {"content": "Speaks Finnish", "tags": ["language"]},
        {"content": "speaks finnish."},
        {"content": "Went to Tallinn on 2024-05-02", "importance": 7},
        {"content": "Release: build → test → ship", "namespace": "work"},
    ]
    out = await call(client, "remember_many", items=items)
    results = out["results"]
    assert [r["status"] for r in results] == ["duplicate", "created", "duplicate", "created", "created"]
    assert (out["created"], out["duplicates"]) == (3, 2)
    assert results[0]["id"] == known["id"] and results[2]["id"] == results[1]["id"]
    assert results[3]["kind"] == "episodic" and results[3]["event_time"].startswith("2024-05-02")
    assert results[3]["importance"] == 7
    assert results[4]["kind"] == "procedural" and results[4]["procedure_steps"] == ["build", "test", "ship"]
    assert await scalar(app, "SELECT tags FROM memories WHERE id = :id", id=uuid.UUID(results[1]["id"])) == ["language"]
    found = await call(client, "recall", query="Tallinn")
    assert found["results"][0]["id"] == results[3]["id"]
    before = await _count(app)
    bad = await call_error(client, "remember_many", items=[{"content": "fine"}, {"content": "bad\x00"}])
    assert "items[1].content: contains a NUL byte" in bad
    wrong_kind = await call_error(
        client, "remember_many", items=[{"content": "fine"}, {"content": "x", "kind": "trait"}]
    )
    assert "items" in wrong_kind and "kind" in wrong_kind and "'fact', 'episodic' or 'procedural'" in wrong_kind
    too_many = await call_error(client, "remember_many", items=[{"content": f"note {i}"} for i in range(5_001)])
    assert "items: 5001 memories; the limit is 5,000 per batch" in too_many
    assert await _count(app) == before
    assert await call(client, "remember_many", items=[]) == {
        "results": [],
        "created": 0,
        "duplicates": 0,
        "redacted": None,
        "words_only": None,
    }


async def test_remember_many_keeps_internal_metadata(session):
    """Benchmarks and imports inside the server pass metadata (a LoCoMo dia_id) the tool does not offer."""
    from engrain.services.memories.requests import RememberRequest as BatchItem

    _, app = session
    [out] = await app.memories.remember_many(
        app.settings.user, [BatchItem(content="Plays the oud", metadata={"d": "1"})]
    )
    assert await scalar(app, "SELECT metadata ->> 'd' FROM memories WHERE id = :id", id=uuid.UUID(out.id)) == "1"


async def test_concurrent_batches_with_the_same_texts_store_each_once(session):
    import anyio

    from engrain.services.memories.requests import RememberRequest as BatchItem

    _, app = session
    texts = [f"Shared memory number {i}" for i in range(200)]
    results = []

    async def store(order):
        results.append(await app.memories.remember_many(app.settings.user, [BatchItem(content=t) for t in order]))

    async with anyio.create_task_group() as tg:
        tg.start_soon(store, texts)
        tg.start_soon(store, list(reversed(texts)))
        tg.start_soon(store, texts[50:] + texts[:50])
    assert await _count(app) == 200
    ids = {r.id for batch in results for r in batch}
    assert len(ids) == 200 and sum(r.status == "created" for batch in results for r in batch) == 200


async def test_one_text_told_at_once_by_several_calls_is_stored_once(session):
    """Several `remember`s of one text at the same moment: one row, one vector, one 'create' in its history;
    the others are told it is a duplicate (a writer that lost the race to the unique index writes nothing)."""
    import anyio

    from engrain.services.memories.requests import RememberRequest

    _, app = session
    statuses: list[str] = []

    async def tell() -> None:
        out = await app.memories.remember(app.settings.user, RememberRequest(content="I keep bees on the roof"))
        statuses.append(out.status)

    async with anyio.create_task_group() as tg:
        for _ in range(8):
            tg.start_soon(tell)
    assert sorted(statuses) == ["created"] + ["duplicate"] * 7
    assert await _count(app) == 1
    assert await scalar(app, "SELECT count(*) FROM memory_vectors WHERE user_id = :u", u=app.settings.user) == 1
    creates = "SELECT count(*) FROM memory_history WHERE user_id = :u AND action = 'create'"
    assert await scalar(app, creates, u=app.settings.user) == 1
