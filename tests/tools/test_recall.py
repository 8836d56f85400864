"""recall through a real MCP client: each scoring term on crafted rows, filters, links, budget, errors."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, timedelta

import anyio
import pytest

from tests.conftest import Clock, call, call_error, connect, execute, scalar

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def first_score(b: dict) -> float:
    """SPEC §6, with the lexical and temporal evidence added after the base's cap."""
    base = min(1.0, b["vector"] + (0.05 if b["text"] else 0.0))
    relevance = base + 0.5 * b["lexical"] + b["temporal"] + b["slot"] + b["bridge"]
    return b["penalty"] * relevance * (1 - 0.15 * (1 - b["recency"]) + 0.15 * b["importance"] + b["trait_boost"])


def expected_score(b: dict) -> float:
    """The score a hit reports: less what it loses for resembling a better hit."""
    return first_score(b) - b["redundancy"]


async def twin(app, template_id: str, content: str, **columns) -> str:
    """A crafted row with exactly the template's vector, so only the named columns differ."""
    new_id = uuid.uuid4()
    sets = ", ".join(f"{k} = :{k}" for k in columns)
    await execute(
        app,
        "WITH added AS (INSERT INTO memories (id, user_id, namespace, kind, content, content_hash, "
        "importance, temporality, created_at, told_at, updated_at) "
        "SELECT :new, user_id, namespace, kind, :content, md5(:content), importance, "
        "temporality, created_at, told_at, updated_at FROM memories WHERE id = :tid RETURNING user_id, id) "
        "INSERT INTO memory_vectors SELECT a.user_id, a.id, v.embedder, v.embedding FROM added a "
        "JOIN memory_vectors v ON v.user_id = a.user_id AND v.id = :tid",
        new=new_id,
        content=content,
        tid=uuid.UUID(template_id),
    )
    if columns:
        await execute(app, f"UPDATE memories SET {sets} WHERE id = :id", id=new_id, **columns)
    return str(new_id)


async def set_columns(app, memory_id: str, **columns) -> None:
    sets = ", ".join(f"{k} = :{k}" for k in columns)
    await execute(app, f"UPDATE memories SET {sets} WHERE id = :id", id=uuid.UUID(memory_id), **columns)


@pytest.fixture
async def clocked(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as pair:
        yield pair


async def by_id(client, query: str, **args) -> dict[str, dict]:
    out = await call(client, "recall", explain=True, query=query, **args)
    return {r["id"]: r for r in out["results"]}


async def test_score_is_the_spec_formula(clocked):
    client, _ = clocked
    for text in (
        "Lena plays the cello in an orchestra",
        "Lena's orchestra rehearses on Thursdays",
        "The cello was a gift from her grandmother",
        "I repaired my bicycle chain",
    ):
        await call(client, "remember", content=text, importance=7)
    out = await call(client, "recall", explain=True, query="Lena cello orchestra")
    assert out["results"]
    for hit in out["results"]:
        assert hit["score"] == pytest.approx(expected_score(hit["breakdown"]), abs=1e-5)
    scores = [h["score"] for h in out["results"] if h["source"] == "search"]
    assert scores == sorted(scores, reverse=True)
    assert out["results"][0]["breakdown"]["text"] is True


async def test_when_questions_prefer_memories_that_say_when(clocked):
    client, _ = clocked
    dated = await call(client, "remember", content="Mia moved to Porto yesterday", event_time="2026-11-20")
    undated = await call(client, "remember", content="Mia moved to Porto for the food and the ocean")
    when = await by_id(client, "When did Mia move to Porto?")
    assert when[dated["id"]]["breakdown"]["temporal"] == pytest.approx(0.1)
    assert when[undated["id"]]["breakdown"]["temporal"] == 0.0
    assert next(iter(when)) == dated["id"]
    for hit in when.values():
        assert hit["score"] == pytest.approx(expected_score(hit["breakdown"]), abs=1e-5)
    plain = await by_id(client, "Mia moved to Porto")  # not a question about time: no temporal term
    assert {h["breakdown"]["temporal"] for h in plain.values()} == {0.0}


async def test_a_period_named_in_the_query_prefers_memories_dated_in_it(clocked):
    client, _ = clocked
    march = await call(client, "remember", content="Tapas dinner with Leo", event_time="2026-03-14")
    june = await call(client, "remember", content="Tapas dinner with Leo and Ana", event_time="2026-06-02")
    hits = await by_id(client, "tapas dinner with Leo in March 2026")
    assert hits[march["id"]]["breakdown"]["temporal"] == pytest.approx(0.15)
    assert hits[june["id"]]["breakdown"]["temporal"] == 0.0
    assert next(iter(hits)) == march["id"]
    last_week = await by_id(client, "tapas with Leo last week")  # NOW is 2026-11-22: neither is that recent
    assert {h["breakdown"]["temporal"] for h in last_week.values()} == {0.0}


async def test_two_turn_questions_bridge_through_a_name_the_question_lacks(settings_factory, fresh_database_url):
    """ "Why did my dog need the vet?": the vet turn is a top hit and names the dog (Biscuit); the turn that
    says Biscuit is the user's dog shares that rarer word and is bridged, though it never says "vet". (Its own
    database: which words are rare comes from the whole table's statistics, and other tests' users have dogs named
    Biscuit — in a full run the name was common there and nothing was bridged.)"""
    async with connect(settings_factory(database_url=fresh_database_url), Clock(NOW)) as (client, _):
        await _bridged_through_the_dogs_name(client)


async def _bridged_through_the_dogs_name(client) -> None:
    adopted = await call(client, "remember", content="We adopted a dog and named him Biscuit")
    vet = await call(client, "remember", content="Biscuit had a small infection and saw the vet")
    for text in (
        "My sister's dog loves the beach",
        "A dog at the park chased a ball",
        "Dogs are not allowed in our office",
        "The shelter needs volunteers to walk a dog",
    ):
        await call(client, "remember", content=text)
    hits = await by_id(client, "why did my dog need the vet", limit=20)
    assert hits[adopted["id"]]["breakdown"]["bridge"] == pytest.approx(0.1)
    assert {h["breakdown"]["bridge"] for i, h in hits.items() if i not in (vet["id"], adopted["id"])} == {0.0}
    for hit in hits.values():
        assert hit["score"] == pytest.approx(expected_score(hit["breakdown"]), abs=1e-5)


async def test_a_rare_query_word_weighs_more_than_a_common_one(settings_factory, fresh_database_url):
    """`lexical` weighs each query word by its rarity among all memories (the column statistics ANALYZE
    keeps): a memory sharing the rare word with the query outranks one sharing only the common word. The
    statistics are read once and kept for a minute; a recall after that gets the renewed ones. (Its own
    database: the statistics are of the whole table.)"""
    async with connect(settings_factory(database_url=fresh_database_url), Clock(NOW)) as (client, app):
        app.recall.rarity.ttl = 0.0  # each reading is due for renewal at once
        for i in range(40):
            await call(client, "remember", content=f"Music practice session number {i} went well")
        common = await call(client, "remember", content="Music on the radio this morning")
        rare = await call(client, "remember", content="Ordered a theremin online")

        def weights(hits: dict[str, dict]) -> tuple[float, float]:
            return hits[common["id"]]["breakdown"]["lexical"], hits[rare["id"]]["breakdown"]["lexical"]

        no_statistics = weights(await by_id(client, "music theremin"))
        assert no_statistics[0] == pytest.approx(no_statistics[1])  # both words weigh the same
        await execute(app, "ANALYZE memories")
        # The kept reading answers at once while the new one is read in the background.
        assert weights(await by_id(client, "music theremin")) == pytest.approx(no_statistics)
        await app.drain()
        hits = await by_id(client, "music theremin")
        assert weights(hits)[1] > 0.8 > 0.2 > weights(hits)[0]
        assert hits[rare["id"]]["score"] > hits[common["id"]]["score"]
        for hit in hits.values():
            assert hit["score"] == pytest.approx(expected_score(hit["breakdown"]), abs=1e-5)


async def test_recency_counts_on_the_users_timeline_from_the_told_time(settings_factory):
    """Recency is how long before the user's clock a memory was told (docs/SPEC.md §6): the clock runs from
    the latest told time at the server's speed, so an imported history ranks as on its last day; when the
    event happened does not enter it."""
    clock = Clock(NOW)
    async with connect(settings_factory(), clock) as (client, app):
        a = await call(client, "remember", content="Concert of the Berlin Philharmonic")
        told_lately = await twin(
            app,
            a["id"],
            "Concert of the Berlin Philharmonic, told yesterday about long ago",
            created_at=NOW,
            told_at=NOW - 1 * DAY,
            event_time=NOW - 365 * DAY,
        )
        told_long_ago = await twin(
            app,
            a["id"],
            "Concert of the Berlin Philharmonic, told a year ago about yesterday",
            created_at=NOW,
            told_at=NOW - 365 * DAY,
            event_time=NOW - 1 * DAY,
        )
        await execute(app, "DELETE FROM memories WHERE id = :id", id=uuid.UUID(a["id"]))
        decay = 30 * 86400
        for days_later in (0, 10):
            clock.now = NOW + days_later * DAY
            hits = await by_id(client, "Berlin Philharmonic concert")
            # Both were imported just now; the latest told time is yesterday's: the user's clock stands there,
            # and moves on with the days that pass after.
            recency = {m: hits[m]["breakdown"]["recency"] for m in (told_lately, told_long_ago)}
            assert recency[told_lately] == pytest.approx(math.exp(-days_later * 86400 / decay), rel=1e-6)
            assert recency[told_long_ago] == pytest.approx(math.exp(-(364 + days_later) * 86400 / decay), rel=1e-6)
            assert hits[told_lately]["score"] > hits[told_long_ago]["score"]


async def test_arousal_slows_decay(clocked):
    client, app = clocked
    a = await call(client, "remember", content="The car accident on the highway")
    calm = await twin(app, a["id"], "The car accident on the highway (calm)", told_at=NOW - 30 * DAY)
    intense = await twin(
        app,
        a["id"],
        "The car accident on the highway (intense)",
        told_at=NOW - 30 * DAY,
        metadata='{"emotion": {"valence": -0.8, "arousal": 1.0}}',
    )
    await execute(app, "UPDATE memories SET metadata = CAST(metadata AS jsonb) WHERE id = :id", id=uuid.UUID(intense))
    hits = await by_id(client, "car accident highway")
    assert hits[calm]["breakdown"]["recency"] == pytest.approx(math.exp(-1), rel=1e-6)
    assert hits[intense]["breakdown"]["recency"] == pytest.approx(math.exp(-1 / 1.5), rel=1e-6)
    assert hits[intense]["score"] > hits[calm]["score"]


async def test_prospective_memory_whose_date_passed_is_halved(clocked):
    client, app = clocked
    a = await call(client, "remember", content="Flight to Tokyo with Ken")
    overdue = await twin(
        app, a["id"], "Flight to Tokyo with Ken (planned)", temporality="prospective", event_time=NOW - 2 * DAY
    )
    upcoming = await twin(
        app, a["id"], "Flight to Tokyo with Ken (upcoming)", temporality="prospective", event_time=NOW + 2 * DAY
    )
    hits = await by_id(client, "Tokyo flight")
    assert hits[overdue]["breakdown"]["penalty"] == 0.5
    assert hits[upcoming]["breakdown"]["penalty"] == 1.0
    assert hits[a["id"]]["breakdown"]["penalty"] == 1.0
    ratio = (hits[overdue]["score"] + hits[overdue]["breakdown"]["redundancy"]) / first_score(
        {**hits[overdue]["breakdown"], "penalty": 1.0}
    )
    assert ratio == pytest.approx(0.5, rel=1e-4)


async def test_importance_raises_the_score(clocked):
    client, app = clocked
    a = await call(client, "remember", content="Allergic to peanuts", importance=2)
    important = await twin(app, a["id"], "Allergic to peanuts (severe)", importance=9)
    hits = await by_id(client, "peanut allergy")
    assert hits[important]["breakdown"]["importance"] == pytest.approx(0.9)
    assert hits[a["id"]]["breakdown"]["importance"] == pytest.approx(0.2)
    assert hits[important]["score"] > hits[a["id"]]["score"]


async def test_trait_boost_and_hidden_stages(clocked):
    client, app = clocked
    a = await call(client, "remember", content="Prefers dark roast coffee in the morning")
    ids = {}
    for stage in ("core", "established", "emerging", "candidate", "trend", "dissolved"):
        ids[stage] = await twin(
            app,
            a["id"],
            f"Prefers dark roast coffee ({stage})",
            kind="trait",
            trait_stage=stage,
            trait_subtype="preference",
            trait_confidence=0.5,
        )
    hits = await by_id(client, "dark roast coffee")
    assert hits[ids["core"]]["breakdown"]["trait_boost"] == 0.25
    assert hits[ids["established"]]["breakdown"]["trait_boost"] == 0.15
    assert hits[ids["emerging"]]["breakdown"]["trait_boost"] == 0.05
    assert hits[a["id"]]["breakdown"]["trait_boost"] == 0.0
    assert hits[ids["core"]]["stage"] == "core"
    for hidden in ("candidate", "trend", "dissolved"):
        assert ids[hidden] not in hits
    order = [r["id"] for r in (await call(client, "recall", explain=True, query="dark roast coffee"))["results"]]
    assert order[:3] == [ids["core"], ids["established"], ids["emerging"]]
    no_traits = await by_id(client, "dark roast coffee", include_traits=False)
    assert set(no_traits) == {a["id"]}


async def test_link_expansion_adds_at_most_three(clocked):
    client, _ = clocked
    hub = await call(client, "remember", content="Quantum chromodynamics reading group")
    others = []
    for text in (
        "Bought new hiking boots",
        "Sister's wedding in June",
        "Car needs new tyres",
        "Learning to play the ukulele",
        "Favourite tea is oolong",
    ):
        other = await call(client, "remember", content=text)
        await call(client, "link", source_id=hub["id"], target_id=other["id"], relation="same_topic")
        others.append(other["id"])
    out = await call(client, "recall", explain=True, query="quantum chromodynamics", limit=1)
    search = [r for r in out["results"] if r["source"] == "search"]
    linked = [r for r in out["results"] if r["source"] == "linked"]
    assert [r["id"] for r in search] == [hub["id"]]
    assert len(linked) == 3
    assert all(r["linked_from"] == hub["id"] and r["relation"] == "same_topic" for r in linked)
    assert {r["id"] for r in linked} <= set(others)
    assert len(search[0]["links"]) == 5
    plain = await call(client, "recall", explain=True, query="quantum chromodynamics", limit=1, include_links=False)
    assert [r["id"] for r in plain["results"]] == [hub["id"]]


async def test_since_until_filter_on_event_time_then_created_at(clocked):
    client, app = clocked
    old = await call(client, "remember", content="Marathon in Valencia", event_time="2024-12-01")
    new = await call(client, "remember", content="Half marathon in Lisbon")
    await set_columns(app, new["id"], created_at=NOW - 3 * DAY)
    hits = await by_id(client, "marathon", since="2025-01-01")
    assert set(hits) == {new["id"]}
    hits = await by_id(client, "marathon", until="last month")
    assert set(hits) == {old["id"]}
    hits = await by_id(client, "marathon", since="2024-11-01", until="2024-12-31")
    assert set(hits) == {old["id"]}


async def test_kind_and_namespace_filters(clocked):
    client, _ = clocked
    fact = await call(client, "remember", content="Uses Neovim for editing code", namespace="work")
    proc = await call(client, "remember", content="Editing setup: install Neovim → copy dotfiles → sync plugins")
    assert set(await by_id(client, "Neovim", kinds=["procedural"])) == {proc["id"]}
    assert set(await by_id(client, "Neovim", namespace="work")) == {fact["id"]}
    assert set(await by_id(client, "Neovim")) == {fact["id"], proc["id"]}


async def test_max_tokens_keeps_the_best_that_fit(clocked):
    client, _ = clocked
    short = await call(client, "remember", content="Gardening: tomatoes on the balcony", importance=9)
    await call(client, "remember", content="Gardening notes: " + "compost and mulch and water " * 40)
    out = await call(client, "recall", explain=True, query="gardening", max_tokens=20)
    assert [r["id"] for r in out["results"]] == [short["id"]]
    assert out["truncated_by_tokens"] is True


async def test_recall_counts_accesses(clocked):
    client, app = clocked
    out = await call(client, "remember", content="Daughter's name is Mila")
    await call(client, "recall", explain=True, query="daughter name")
    await call(client, "recall", explain=True, query="Mila")
    await app.drain()
    count, last = await scalar(
        app,
        "SELECT ARRAY[access_count::text, last_accessed_at::text] FROM memories WHERE id = :id",
        id=uuid.UUID(out["id"]),
    )
    assert count == "2" and last is not None


async def test_rows_of_another_embedder_fall_back_to_full_text(clocked):
    client, app = clocked
    out = await call(client, "remember", content="The boat is moored in Kiel harbour")
    await execute(app, "UPDATE memory_vectors SET embedder = 'old-model-v0' WHERE id = :id", id=uuid.UUID(out["id"]))
    hits = await by_id(client, "Kiel harbour")
    assert hits[out["id"]]["breakdown"]["vector"] == 0.0
    assert hits[out["id"]]["breakdown"]["text"] is True


async def test_other_users_memories_never_surface(settings_factory):
    async with connect(settings_factory()) as (alice, _):
        await call(alice, "remember", content="Alice's bank PIN hint is her first cat")
    async with connect(settings_factory()) as (bob, _):
        assert (await call(bob, "recall", query="bank PIN hint first cat"))["results"] == []


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"query": ""}, "query: must not be empty"),
        ({"query": "x" * 2001}, "query: is 2,001 characters long; the limit is 2,000"),
        ({"query": "a\x00b"}, "query: contains a NUL byte"),
        ({"query": "ok", "limit": 101}, "limit: 101 is out of range"),
        ({"query": "ok", "limit": 0}, "limit: 0 is out of range"),
        ({"query": "ok", "since": "not a date at all"}, "since:"),
        ({"query": "ok", "max_tokens": 0}, "max_tokens: 0 is out of range"),
    ],
)
async def test_bad_recall_input(session, args, needle):
    client, _ = session
    assert needle in await call_error(client, "recall", **args)


async def test_recall_times_out_with_a_clear_error(settings_factory):
    async with connect(settings_factory(recall_timeout_ms=200)) as (client, app):
        await call(client, "remember", content="Something to find")
        db = await app.database()
        async with db.engine.connect() as blocker:
            transaction = await blocker.begin()
            from sqlalchemy import text

            await blocker.execute(text("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE"))
            with anyio.fail_after(10):
                message = await call_error(client, "recall", query="something")
            await transaction.rollback()
        assert "recall took longer than ENGRAIN_RECALL_TIMEOUT_MS=200 ms" in message
        assert (await call(client, "recall", explain=True, query="something"))["results"]


async def test_very_old_memories_score_zero_recency_instead_of_failing(clocked):
    client, _ = clocked
    out = await call(client, "remember", content="Grandfather was born in Porto", said_at="1901-03-04")
    await call(client, "remember", content="I like port wine")  # the user's latest told time is now
    hits = await by_id(client, "grandfather born Porto")
    assert hits[out["id"]]["breakdown"]["recency"] < 1e-300  # exp underflow is clamped, not an error


async def test_a_fact_about_long_ago_is_not_stale(clocked):
    client, _ = clocked
    out = await call(client, "remember", content="Grandmother was born in Porto", event_time="1901-03-04")
    hits = await by_id(client, "grandmother born Porto")
    assert hits[out["id"]]["breakdown"]["recency"] == pytest.approx(1.0)


async def test_text_with_nothing_to_embed_scores_zero_similarity_not_nan(clocked):
    """A zero vector (punctuation, emoji) has no direction: its cosine is 0, never NaN."""
    client, _ = clocked
    await call(client, "remember", content="😀")
    await call(client, "remember", content="Emoji fan: 😀 every day")
    for query in ("emoji fan", "😀"):
        out = await call(client, "recall", explain=True, query=query)
        for hit in out["results"]:
            assert math.isfinite(hit["breakdown"]["vector"]) and math.isfinite(hit["score"])


async def test_recall_as_of_answers_from_what_was_known_then(settings_factory):
    clock = Clock(NOW)
    async with connect(settings_factory(), clock) as (client, _):
        berlin = await call(client, "remember", content="I live in Berlin")
        await call(client, "remember", content="I work as a sound engineer")
        await call(client, "remember", content="My sister lives in Porto")
        clock.now = NOW + 10 * DAY
        lisbon = await call(client, "remember", content="I live in Lisbon now", supersedes=berlin["id"])
        clock.now = NOW + 20 * DAY

        async def homes(**args) -> set[str]:
            out = await call(client, "recall", explain=True, query="where do I live", **args)
            return {h["id"] for h in out["results"]} & {berlin["id"], lisbon["id"]}

        assert await homes(as_of=(NOW + 5 * DAY).isoformat()) == {berlin["id"]}
        assert await homes(as_of=(NOW + 15 * DAY).isoformat()) == {lisbon["id"]}
        assert await homes() == {lisbon["id"]}
        assert await homes(as_of=(NOW - DAY).isoformat()) == set()  # before anything was known
        past = await call(client, "recall", explain=True, query="where do I live", as_of="2026-11-25")
        assert past["as_of"].startswith("2026-11-25")
        assert "as_of" in await call_error(client, "recall", query="x", as_of="not a date at all")


async def test_a_paraphrase_of_a_better_hit_makes_room(clocked):
    """Diversity: a row with the same vector as a better-ranked one loses the full 30 % of its score; a
    different memory just below them moves up past the paraphrase."""
    client, app = clocked
    first = await call(client, "remember", content="Biscuit stole a sock from the laundry basket", importance=9)
    paraphrase = await twin(app, first["id"], "Biscuit stole a sock from the laundry, again", importance=8)
    other = await call(client, "remember", content="Biscuit was adopted from the shelter in May", importance=5)
    out = await call(client, "recall", explain=True, query="Biscuit", limit=3)
    ids = [h["id"] for h in out["results"]]
    hits = {h["id"]: h for h in out["results"]}
    assert hits[first["id"]]["breakdown"]["redundancy"] == 0.0
    lost = hits[paraphrase]["breakdown"]["redundancy"]
    assert lost == pytest.approx(0.3 * first_score(hits[paraphrase]["breakdown"]), abs=1e-5)
    assert first_score(hits[paraphrase]["breakdown"]) > first_score(hits[other["id"]]["breakdown"])
    assert ids == [first["id"], other["id"], paraphrase]
    for hit in out["results"]:
        assert hit["score"] == pytest.approx(expected_score(hit["breakdown"]), abs=1e-5)
