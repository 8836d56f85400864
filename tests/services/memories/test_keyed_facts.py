"""A key for every single-valued fact (issue 42, items 1–3), through a real MCP client: the issue's examples
(a move stated in passing, a new phone, a new gym) show the new value first in `recall` and the profile; a
correction replaces a value, not a memory (what the old memory said besides stays findable, marked); the
calling model's key — on `remember`, in an extraction answer, in a reflection answer — wins where the rules
read none; a bad key is refused by name."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import Clock, call, call_error, connect
from tests.scripted import alias

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("old", "new", "question", "stale", "fresh"),
    [
        (
            "I live in Manchester with my partner Sam and our daughter Ada.",
            "We moved into our new house in Bristol last weekend.",
            "where do I live",
            "Manchester",
            "Bristol",
        ),
        ("My phone is an iPhone 12.", "I just got a new phone, a Pixel 8.", "what phone do I have", "iPhone", "Pixel"),
        ("My gym is PureGym.", "I switched gyms to The Gym Group.", "which gym do I go to", "PureGym", "Gym Group"),
    ],
)
async def test_a_new_value_said_in_passing_comes_first_in_recall_and_the_profile(
    settings_factory, old, new, question, stale, fresh
):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        first = await call(client, "remember", content=old, said_at="2026-10-01")
        # Other facts in between, some sharing words with the question ("my brother lives in Leeds").
        for other in ("My brother lives in Leeds.", "My mother lives in York.", "I work at Arup as an engineer."):
            await call(client, "remember", content=other, said_at="2026-10-02")
        second = await client.call_tool("remember", {"content": new})
        assert second.structured_content["superseded"] == first["id"]
        assert f"replaces {first['id'][:8]}" in second.content[0].text and ", key user · " in second.content[0].text
        recalled = await client.call_tool("recall", {"query": question})
        ids = [hit["id"] for hit in recalled.structured_content["results"]]
        assert ids[0] == second.structured_content["id"]
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert fresh in profile
        # The old value never passes as current: where its memory still shows (it said more), it is marked.
        for text in (recalled.content[0].text, profile):
            stale_lines = [line for line in text.splitlines() if stale in line]
            assert all(f"replaced by {second.structured_content['id'][:8]}" in line for line in stale_lines), text


@pytest.mark.parametrize(
    ("old", "new", "question", "still_true", "tag"),
    [
        (
            "I live in Manchester with my partner Sam and our daughter Ada.",
            "We moved into our new house in Bristol last weekend.",
            "who is my partner",
            "partner Sam",
            "home",
        ),
        (
            "I work at Arup as an engineer, in the bridges team.",
            "I joined Atkins last month.",
            "which team was I in",
            "bridges team",
            "employer",
        ),
        (
            "I have three dogs, had them three years.",
            "We have four dogs now.",
            "how long have I had the dogs",
            "three years",
            "number of dogs",
        ),
    ],
)
async def test_a_correction_replaces_the_value_and_the_rest_of_the_old_memory_stays(
    settings_factory, old, new, question, still_true, tag
):
    """A move, a job change, a count change: the old memory said more than the value (the partner and the
    daughter, the team, how long the dogs have been there). It stays live and findable, no longer holds the
    key, and every text marks what replaced its value; a memory that says nothing more is superseded whole."""
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        first = await call(client, "remember", content=old, said_at="2026-10-01")
        second = await call(client, "remember", content=new)
        assert second["superseded"] == first["id"]
        mark = f"{tag} replaced by {second['id'][:8]}"
        found = await client.call_tool("recall", {"query": question})
        hit = next(h for h in found.structured_content["results"] if h["id"] == first["id"])
        assert hit["replaced"] == mark and f"{mark}] «{old}»" in found.content[0].text
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        assert still_true in profile and f"{mark}] «{old}»" in profile
        stored = json.loads((await client.read_resource(f"engrain://memories/{first['id']}")).contents[0].text)
        assert stored["valid_until"] is None and stored["history"][-1]["action"] == "replace_value"
        # Forgetting the correction gives the old memory its key back, unmarked.
        await call(client, "forget", memory_id=second["id"])
        again = await client.call_tool("recall", {"query": question})
        back = next(h for h in again.structured_content["results"] if h["id"] == first["id"])
        assert back["replaced"] is None and "replaced by" not in again.content[0].text
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        bare = await call(client, "remember", content="I live in Berlin.", said_at="2026-10-01")
        await call(client, "remember", content="I live in Lisbon now.")
        gone = json.loads((await client.read_resource(f"engrain://memories/{bare['id']}")).contents[0].text)
        assert gone["valid_until"] is not None and gone["history"][-1]["action"] == "supersede"


async def test_the_callers_key_replaces_what_the_rules_cannot_read(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        old = await call(client, "remember", content="I train at the climbing gym on Hope Street.", key="user · gym")
        assert old["key"] == "user · gym"
        new = await call(client, "remember", content="Joined Boulder Brighton, so long Hope Street.", key="gym")
        assert new["superseded"] == old["id"] and new["key"] == "user · gym"
        other = await call(client, "remember", content="Mei is due on 3 March.", key="Mei · due date")
        assert other["superseded"] is None and other["key"] == "mei · due date"
        batch = await call(
            client, "remember_many", items=[{"content": "Mei's baby is now due on 10 March.", "key": "Mei · due date"}]
        )
        assert batch["results"][0]["superseded"] == other["id"]
        message = await call_error(client, "remember", content="I like tea.", key=" · ")
        assert "key: names no attribute; write whose · what" in message


async def test_an_extraction_answer_carries_the_key_the_model_read(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, _):
        phone = await call(client, "remember", content="My phone is an iPhone 12.", said_at="2026-11-01")
        messages = [
            {"role": "user", "content": "Finally treated myself, the Fairphone arrived today!"},
            {"role": "assistant", "content": "Enjoy it!"},
        ]
        task = await call(client, "ingest_conversation", messages=messages)
        assert '"key": "whose · what' in task["task"]
        answer = {"memories": [{"content": "Got a Fairphone 5", "kind": "fact", "key": "user · phone", "message": 1}]}
        done = await call(client, "ingest_conversation", task_id=task["task_id"], answer=answer)
        found = await call(client, "recall", query="what phone do I have")
        ids = [hit["id"] for hit in found["results"]]
        assert done["created"][0] in ids and phone["id"] not in ids


async def test_a_reflection_answer_keys_memories_and_names_the_fact_an_update_replaces(host_settings):
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, _):
        gym = await call(client, "remember", content="Climbing at The Arch three times a week.", said_at="2026-11-01")
        flat = await call(client, "remember", content="Renting the flat on Elm Road.", said_at="2026-11-02")
        sister = "My sister lives in Leeds with her wife Jo."
        leeds = await call(client, "remember", content=sister, said_at="2026-11-03")
        moved = await call(client, "remember", content="Signed for the house on Park Lane.", said_at="2026-11-20")
        york = await call(client, "remember", content="Jo and my sister moved to York.", said_at="2026-11-21")
        task = await call(client, "reflect", force=True)
        text = task["task"]
        assert '"keys": [{"memory_id"' in text
        answer = {
            "keys": [{"memory_id": alias(text, "The Arch"), "key": "user · gym"}],
            "updates": [
                {"old_id": alias(text, "Elm Road"), "new_id": alias(text, "Park Lane"), "key": "user · home"},
                {"old_id": alias(text, "Leeds"), "new_id": alias(text, "to York"), "key": "sister · home"},
            ],
        }
        await call(client, "reflect", task_id=task["task_id"], answer=answer)
        clock.now += timedelta(days=1)
        later = await call(client, "remember", content="My gym is The Castle now.")
        assert later["superseded"] == gym["id"]
        home = await call(client, "remember", content="I live in Leith now.")
        assert home["superseded"] == moved["id"]
        stale = json.loads((await client.read_resource(f"engrain://memories/{flat['id']}")).contents[0].text)
        assert stale["valid_until"] is not None  # it said nothing but the home: superseded whole
        # The sister's old home is replaced; her wife Jo, named only there, stays findable, marked.
        kept = await client.call_tool("recall", {"query": "who is Jo"})
        assert f"sister's home replaced by {york['id'][:8]}] «My sister lives in Leeds" in kept.content[0].text
        assert leeds["id"] in [h["id"] for h in kept.structured_content["results"]]
        bad = await call(client, "reflect", force=True)
        wrong = {"keys": [{"memory_id": alias(bad["task"], "The Castle"), "key": ":"}]}
        message = await call_error(client, "reflect", task_id=bad["task_id"], answer=wrong)
        assert "keys[0].key" in message
