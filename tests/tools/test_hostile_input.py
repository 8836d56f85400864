"""Property-based: arbitrary unicode, huge strings, NUL bytes, SQL metacharacters, wrong types and
other users' ids thrown at every tool through a real MCP client. The server never crashes, always
answers (a result or an error), never writes part of a refused call, and keeps serving."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import TOOLS, call, connect

EXAMPLES_PER_TOOL = 100
SQL = [
    "'; DROP TABLE memories; --",
    '" OR 1=1 --',
    "$1",
    ":user",
    "%s",
    "\\x00",
    "memories.*",
    "); DELETE FROM memory_links; --",
    "' UNION SELECT content FROM memories --",
    '{"$ne": null}',
]
COUNTED = {
    table: f"SELECT count(*) FROM {table} WHERE user_id = $1"
    for table in ("memories", "memory_links", "memory_history", "reflection_cycles")
} | {
    "trait_evidence": "SELECT count(*) FROM trait_evidence e JOIN memories m ON m.id = e.trait_id WHERE m.user_id = $1"
}


def texts() -> st.SearchStrategy[str]:
    unicode_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
    words = st.lists(
        st.sampled_from(
            [
                "Anna",
                "likes",
                "tea",
                "in",
                "Lisbon",
                "yesterday",
                "the",
                "project",
                "→",
                "🍵",
                "naïve",
                "東京",
                "'",
                ";",
                "--",
            ]
        ),
        min_size=1,
        max_size=12,
    ).map(" ".join)
    return st.one_of(
        words,
        words,
        words,
        unicode_text,
        st.sampled_from(SQL),
        unicode_text.map(lambda t: t + "\x00" + t),
        st.integers(1, 40_000).map(lambda n: "é" * n),  # around and far past every length limit
        st.just(""),
        st.just("   "),
        st.just("😀" * 3000),
    )


def anything(ids: list[str]) -> st.SearchStrategy[Any]:
    """Values of any JSON type, for the wrong-type cases."""
    scalar = st.one_of(
        texts(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.booleans(), st.none(), st.sampled_from(ids)
    )
    return st.one_of(scalar, st.lists(scalar, max_size=30), st.dictionaries(st.text(max_size=10), scalar, max_size=4))


def _types(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return schema.get("anyOf") or [schema]


def for_schema(name: str, schema: dict[str, Any], defs: dict[str, Any], ids: list[str]) -> st.SearchStrategy[Any]:
    """Mostly values of the declared type (so the call reaches the service layer's checks), sometimes
    of another type: ids get real ids of both users, unknown and malformed ones."""
    options: list[st.SearchStrategy[Any]] = []
    for option in _types(schema):
        if "$ref" in option:
            option = defs[option["$ref"].rsplit("/", 1)[-1]]
        kind = option.get("type")
        if "enum" in option:
            options.append(st.sampled_from(option["enum"]))
        elif kind == "string" and (name.endswith("_id") or name == "supersedes"):
            options.append(st.one_of(st.sampled_from(ids), st.just(str(uuid.uuid4())), texts()))
        elif kind == "string":
            options.append(texts())
        elif kind == "integer":
            options.append(st.one_of(st.integers(-5, 120), st.integers(-(2**63), 2**63)))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "null":
            options.append(st.none())
        elif kind == "array":
            items = option.get("items", {})
            options.append(st.lists(for_schema("", items, defs, ids), max_size=25))
        elif kind == "object" or "properties" in option:
            options.append(
                st.fixed_dictionaries(
                    {prop: for_schema(prop, sub, defs, ids) for prop, sub in option.get("properties", {}).items()}
                )
            )
    typed = st.one_of(*options) if options else anything(ids)
    wrong_type = st.sampled_from([False, False, False, True])  # one in four
    return wrong_type.flatmap(lambda wrong: anything(ids) if wrong else typed)


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal("asyncio") as p:
        yield p


@pytest.fixture(scope="module")
def world(portal, settings_factory_module):
    """One victim and one attacker on one server; the attacker knows the victim's ids."""
    attacker_settings = settings_factory_module()
    cm = portal.wrap_async_context_manager(connect(attacker_settings))
    client, app = cm.__enter__()

    async def setup() -> dict[str, Any]:
        victim = settings_factory_module()
        async with connect(victim) as (vc, _):
            theirs = [(await call(vc, "remember", content=f"Victim secret {i}"))["id"] for i in range(3)]
        own = [(await call(client, "remember", content=f"Attacker note {i}"))["id"] for i in range(3)]
        tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        return {"victim": victim.user, "theirs": theirs, "own": own, "tools": tools}

    info = portal.call(setup)
    yield client, app, attacker_settings.user, info
    cm.__exit__(None, None, None)


async def counts(app, user: str) -> dict[str, int]:
    db = await app.database()
    out = {}
    async with db.engine.connect() as conn:
        for table, sql in COUNTED.items():
            out[table] = (await conn.exec_driver_sql(sql, (user,))).scalar()
    return out


def test_the_sweep_covers_every_tool(world):
    assert set(world[3]["tools"]) == set(TOOLS)


@pytest.mark.parametrize("tool", TOOLS)
def test_any_input_gets_an_answer_and_no_partial_write(world, portal, tool):
    client, app, me, info = world
    props = info["tools"][tool].get("properties", {})
    required = set(info["tools"][tool].get("required", []))
    ids = info["theirs"] + info["own"]
    defs = info["tools"][tool].get("$defs", {})

    @settings(
        max_examples=EXAMPLES_PER_TOOL,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        chosen = {name for name in props if name in required or data.draw(st.sampled_from([True, False, False]))}
        args = {name: data.draw(for_schema(name, props[name], defs, ids)) for name in sorted(chosen)}

        async def attempt() -> None:
            before_me, before_victim = await counts(app, me), await counts(app, info["victim"])
            with anyio.fail_after(60):
                result = await client.call_tool(tool, args)
            assert result.content, "every answer carries text"
            if result.is_error:
                assert await counts(app, me) == before_me, (tool, args, result.content[0].text)
            assert await counts(app, info["victim"]) == before_victim
            alive = await client.call_tool("recall", {"query": "note"})
            assert not alive.is_error

        portal.call(attempt)

    check()


def test_victims_memories_survive_the_barrage(world, portal):
    client, _, _, info = world

    async def still_there() -> None:
        for memory_id in info["theirs"]:
            error = (await client.call_tool("forget", {"memory_id": memory_id})).content[0].text
            assert "no memory with id" in error

    portal.call(still_there)
