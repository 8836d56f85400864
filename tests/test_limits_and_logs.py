"""The per-user memory quota, and structured logs: JSON lines with a request id, no memory contents."""

from __future__ import annotations

import json
import logging

import pytest

from engrain import logs
from tests.conftest import call, call_error, connect, scalar

pytestmark = pytest.mark.anyio


async def test_quota_refuses_new_memories_with_a_clear_error(settings_factory):
    settings = settings_factory(max_memories_per_user=3)
    async with connect(settings) as (client, app):
        for text in ("Likes oolong tea", "Lives in Ghent", "Works as a luthier"):
            await call(client, "remember", content=text)
        error = await call_error(client, "remember", content="Has a cat named Miso")
        assert "quota" in error and "ENGRAIN_MAX_MEMORIES_PER_USER" in error and "3" in error
        assert (await call(client, "remember", content="Lives in Ghent"))["status"] == "duplicate"
        batch = await call_error(
            client,
            "ingest_conversation",
            messages=[
                {"role": "user", "content": "I really love climbing in the Alps."},
                {"role": "user", "content": "I have two kids who both play the violin."},
            ],
        )
        assert "quota" in batch
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=settings.user) == 3
        forgotten = await call(client, "recall", query="oolong tea")
        await call(client, "forget", memory_id=forgotten["results"][0]["id"])
        assert (await call(client, "remember", content="Has a cat named Miso"))["status"] == "created"


async def test_json_logs_carry_request_ids_and_never_contents(settings_factory, capsys):
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    logs.configure("INFO", as_json=True)
    try:
        async with connect(settings_factory()) as (client, _):
            await call(client, "remember", content="My secret diary entry about Zanzibar")
            await call(client, "recall", query="Zanzibar diary")
            await call_error(client, "forget", memory_id="not-an-id")
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    tool_lines = [e for e in lines if e["logger"] == "engrain.tools.common"]
    assert [e["message"].split()[:2] for e in tool_lines] == [
        ["remember", "ok"],
        ["recall", "ok"],
        ["forget", "invalid"],
    ]
    assert len({e["request_id"] for e in tool_lines}) == 3 and "-" not in {e["request_id"] for e in tool_lines}
    assert all({"time", "level", "logger", "message", "request_id"} <= set(e) for e in lines)
    assert not [e for e in lines if "Zanzibar" in e["message"]]
