"""Odd input from new adversarial probes (issue 39): dates no person means, values stored before the checks,
odd encodings, periods, races between link and forget, a batch with its last item too long. Each is refused
with the field and the limit named, or read right; a reading path never fails on what is stored."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import anyio
import pytest

from engrain.errors import InvalidInput
from engrain.reading.enrich import content_hash
from engrain.services.memories.portability import import_jsonl
from tests.conftest import Clock, call, call_error, connect, execute, line_ids, scalar

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)  # a Thursday


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("remember", {"content": "I visited Rome.", "said_at": "0001-01-01"}, "said_at"),
        ("remember", {"content": "We met.", "event_time": "0001-01-01"}, "event_time"),
        ("remember", {"content": "We met.", "event_time": "9999-12-31"}, "event_time"),
        ("remember_many", {"items": [{"content": "We met.", "said_at": "1850-03-01"}]}, "items[0].said_at"),
        (
            "ingest_conversation",
            {"messages": [{"role": "user", "content": "I live in Oslo", "said_at": "0001-01-01"}]},
            "messages[0].said_at",
        ),
        ("recall", {"query": "trips", "since": "December 9999"}, "since"),
    ],
)
async def test_a_date_no_person_means_is_refused_with_its_field_and_range(settings_factory, tool, args, field):
    """0001-01-01 was accepted, stored as -infinity, and broke every later recall that met it."""
    async with connect(settings_factory(), Clock(NOW)) as (client, app):
        error = await call_error(client, tool, **args)
        assert f"{field}:" in error and ("1000-01-01 to 2999-12-31" in error or "before 1900" in error)
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == 0


async def test_a_date_in_the_text_that_no_person_means_is_no_date(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        out = await call(client, "remember", content="The conference is in December 9999.")
        assert out["event_time"] is None
        with pytest.raises(Exception, match="period"):
            await client.read_resource("engrain://intentions/December%209999")


async def test_reading_paths_never_fail_on_a_stored_value(settings_factory):
    """Rows stored before the checks (a told time of -infinity, an event in the year 1, a naive time):
    recall, the profile, the intentions and the memory resource answer, showing no date for them."""
    async with connect(settings_factory(), Clock(NOW)) as (client, app):
        home = await call(client, "remember", content="I live in Lisbon.")
        odd = await call(client, "remember", content="I live in Lisbon and love its trams.")
        plan = await call(client, "remember", content="I will visit Rome next spring.")
        await execute(app, "UPDATE memories SET told_at = '-infinity' WHERE id = CAST(:i AS uuid)", i=odd["id"])
        await execute(app, "UPDATE memories SET event_time = '0001-01-01' WHERE id = CAST(:i AS uuid)", i=plan["id"])
        found = await client.call_tool("recall", {"query": "where do I live"})
        assert not found.is_error and home["id"][:8] in found.content[0].text
        assert not (await client.call_tool("recall", {"query": "Rome"})).is_error
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert "Lisbon" in profile
        assert (await client.read_resource("engrain://intentions")).contents[0].text
        detail = json.loads((await client.read_resource(f"engrain://memories/{plan['id']}")).contents[0].text)
        assert detail["id"] == plan["id"]


async def test_metadata_of_any_shape_is_read_as_far_as_it_makes_sense(settings_factory):
    """A memory's metadata is read through one type (reading/metadata.MemoryMetadata): a key engrain knows that
    holds a value of another shape (as an import may carry) reads as absent; keys it does not know are kept."""
    async with connect(settings_factory(), Clock(NOW)) as (client, app):
        home = await call(client, "remember", content="I live in Lisbon.")
        run = await call(client, "remember", content="I run every Sunday morning.")
        odd = {"slot": 5, "slot_value": ["x"], "recurrence": {"every": "day"}, "may_replace": "not an id", "mine": 1}
        odd["emotion"] = {"arousal": "very high"}  # recall's recency read it as a number: "internal error"
        for memory in (home, run):
            await execute(
                app,
                "UPDATE memories SET metadata = CAST(:m AS jsonb) WHERE id = CAST(:i AS uuid)",
                m=json.dumps(odd),
                i=memory["id"],
            )
        found = await client.call_tool("recall", {"query": "where do I live"})
        assert not found.is_error and home["id"][:8] in found.content[0].text
        assert all(not hit["habit"] for hit in found.structured_content["results"])
        assert not (await client.call_tool("reflect", {"force": True})).is_error
        assert "Lisbon" in (await client.read_resource("engrain://profile")).contents[0].text
        moved = await call(client, "remember", content="I live in Porto now.")
        assert moved["superseded"] is None  # the odd row fills no slot any more
        detail = json.loads((await client.read_resource(f"engrain://memories/{home['id']}")).contents[0].text)
        assert detail["metadata"]["mine"] == 1


def _memory(user: str, **fields: object) -> dict[str, object]:
    text = str(fields.pop("content", "A note"))
    row: dict[str, object] = {
        "type": "memory",
        "id": str(uuid.uuid4()),
        "user_id": user,
        "namespace": "default",
        "kind": "fact",
        "content": text,
        "content_hash": content_hash(text),
        "importance": 5,
        "tags": [],
        "temporality": "current",
        "created_at": "2025-01-01T00:00:00+00:00",
        "told_at": "2025-01-01T00:00:00+00:00",
        "updated_at": "2025-01-01T00:00:00+00:00",
        "pinned": False,
        "access_count": 0,
        "metadata": {},
    }
    return row | fields


HEADER = json.dumps({"type": "header", "format": "engrain-export", "version": 1, "vectors": False})


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (lambda u: json.dumps(_memory(u, event_time="0001-01-01T00:00:00+00:00")), "event_time"),
        (lambda u: json.dumps(_memory(u, told_at="1500-01-01T00:00:00+00:00")), "told_at"),
        (lambda u: json.dumps(_memory(u, metadata="a string")), "metadata: must be a JSON object"),
        (lambda u: json.dumps(_memory(u, tags="work")), "tags: must be a list"),
        (lambda u: json.dumps(_memory(u, created_at="yesterday")), "created_at"),
        (lambda u: "[" * 100_000, "nested too deeply"),
        (lambda u: json.dumps(_memory(u)).encode()[:-2] + b"\xff\xfe}", "not UTF-8"),
    ],
)
async def test_import_refuses_what_the_tools_refuse_with_the_line_number(settings_factory, line, says):
    """Import accepted the same dates, and a metadata given as a string, with the same effect; deep nesting
    and invalid UTF-8 ended in a traceback. Each is refused naming line 2, and nothing is written."""
    async with connect(settings_factory()) as (_, app):
        bad = line(app.settings.user)
        lines = [HEADER.encode() + b"\n", (bad if isinstance(bad, bytes) else bad.encode()) + b"\n"]
        with pytest.raises(InvalidInput) as refused:
            await import_jsonl(app.database, lines)
        assert "line 2" in str(refused.value) and says in str(refused.value)
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == 0


@pytest.mark.parametrize("days", [0, 1, 2, 3])
async def test_this_week_in_chinese_is_ahead_until_its_sunday(settings_factory, days):
    """`engrain://intentions/这周` (the README's example) answered "names no period ahead" from Thursday on."""
    now = NOW + timedelta(days=days)  # Thursday to Sunday
    async with connect(settings_factory(), Clock(now)) as (client, _):
        plan = await call(client, "remember", content="Dinner with Mei on Sunday evening", said_at="2026-11-23")
        shown = (await client.read_resource("engrain://intentions/%E8%BF%99%E5%91%A8")).contents[0].text
        assert "2026-11-29" in shown.splitlines()[0]  # its Sunday is its last day
        assert line_ids(shown) == [plan["id"][:8]]


async def test_a_decomposed_umlaut_reads_as_the_word(settings_factory):
    """ "nächste Woche" typed as "a" plus a combining diaeresis (NFD) was not read."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        composed = (await client.read_resource("engrain://intentions/n%C3%A4chste%20Woche")).contents[0].text
        decomposed = (await client.read_resource("engrain://intentions/na%CC%88chste%20Woche")).contents[0].text
        assert composed.splitlines()[0] == decomposed.splitlines()[0]
        stored = await call(client, "remember", content="Ich fliege na\u0308chste Woche nach Wien")
        assert stored["event_time"] is not None


async def test_a_link_racing_a_forget_is_linked_or_not_found_never_an_outage(settings_factory):
    """48 of 100 such races answered "database unavailable (IntegrityError)… retry"."""
    async with connect(settings_factory()) as (client, _):
        pairs = [
            (
                await call(client, "remember", content=f"Note {n} about the garden"),
                await call(client, "remember", content=f"Idea {n} for the kitchen"),
            )
            for n in range(20)
        ]
        answers: list[str] = []

        async def link(a: str, b: str) -> None:
            result = await client.call_tool("link", {"source_id": a, "target_id": b})
            answers.append("linked" if not result.is_error else result.content[0].text)

        async def forget(a: str) -> None:
            await call(client, "forget", memory_id=a)

        async with anyio.create_task_group() as tg:
            for a, b in pairs:
                tg.start_soon(link, a["id"], b["id"])
                tg.start_soon(forget, a["id"])
        odd = [answer for answer in answers if answer != "linked" and "source_id: no memory with id" not in answer]
        assert odd == []


async def test_two_concurrent_forgets_delete_once(settings_factory):
    """Both answered "deleted"."""
    async with connect(settings_factory()) as (client, _):
        for n in range(10):
            memory = await call(client, "remember", content=f"A passing thought number {n}")
            results: list = []

            async def forget(mid: str = memory["id"], results: list = results) -> None:
                results.append(await client.call_tool("forget", {"memory_id": mid}))

            async with anyio.create_task_group() as tg:
                tg.start_soon(forget)
                tg.start_soon(forget)
            assert sorted(r.is_error for r in results) == [False, True]
            assert "memory_id: no memory with id" in next(r for r in results if r.is_error).content[0].text


async def test_a_batch_is_checked_whole_before_any_item_is_read(settings_factory):
    """A remember_many whose last item was too long was refused after every other item was read (120 s for
    5,000). The checks that need no reading run first: the last item's length is named, not the first item's
    unreadable date."""
    async with connect(settings_factory()) as (client, app):
        items = [{"content": "A note", "said_at": "the day the music died"}]
        items += [{"content": f"Note {n}"} for n in range(3)] + [{"content": "x" * 8_001}]
        error = await call_error(client, "remember_many", items=items)
        assert "items[4].content" in error and "8,000" in error
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == 0
