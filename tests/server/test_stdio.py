"""`engrain serve` as a subprocess over stdio, the way Claude Desktop runs it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import TOOLS, engrain_env
from tests.http_server import http_server

pytestmark = pytest.mark.anyio


def server_params(**env: str) -> StdioServerParameters:
    full = {**os.environ, "ENGRAIN_EMBEDDER": "hash", "ENGRAIN_FETCH_MODELS": "false", **env}
    return StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=full)


async def test_stdio_round_trip(pg_url, tmp_path):
    params = server_params(
        ENGRAIN_DATABASE_URL=pg_url, ENGRAIN_HOME=str(tmp_path), ENGRAIN_USER="stdio-user", ENGRAIN_SCHEDULER="off"
    )  # the shared test database is no place for jobs over all users
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == set(TOOLS)
        stored = await client.call_tool("remember", {"content": "Prefers window seats on trains"})
        assert not stored.is_error
        found = await client.call_tool("recall", {"query": "train seat preference"})
        assert found.structured_content["results"][0]["id"] == stored.structured_content["id"]
        batch = await client.call_tool(
            "remember_many", {"items": [{"content": "Grows chillies on the balcony"}, {"content": "Cycles to work"}]}
        )
        assert not batch.is_error and batch.structured_content["created"] == 2
        found = await client.call_tool("recall", {"query": "chillies balcony"})
        assert found.structured_content["results"][0]["id"] == batch.structured_content["results"][0]["id"]
        bad = await client.call_tool("remember", {"content": "\x00"})
        assert bad.is_error and "NUL" in bad.content[0].text


async def test_two_servers_share_one_embedded_database(tmp_path, monkeypatch):
    """No ENGRAIN_DATABASE_URL: both processes start the embedded Postgres in the same home at once,
    migrate concurrently, see each other's writes, and the last one out stops the database."""
    home = tmp_path / "home"
    env = {"ENGRAIN_HOME": str(home), "ENGRAIN_USER": "shared-user"}
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    ids: dict[str, str] = {}

    async def run(name: str, ready: anyio.Event, other_ready: anyio.Event) -> None:
        async with Client(server_params(**env)) as client:
            result = await client.call_tool("remember", {"content": f"Memory written by server {name}"})
            assert not result.is_error, result.content
            ids[name] = result.structured_content["id"]
            ready.set()
            await other_ready.wait()
            other = "b" if name == "a" else "a"
            found = await client.call_tool("recall", {"query": f"written by server {other}"})
            assert ids[other] in [r["id"] for r in found.structured_content["results"]]

    a_ready, b_ready = anyio.Event(), anyio.Event()
    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "a", a_ready, b_ready)
            tg.start_soon(run, "b", b_ready, a_ready)
    await postmaster_stopped(home)


async def postmaster_stopped(home: Path) -> None:
    """Wait (≤ 30 s) until the embedded Postgres in `home` has stopped."""
    with anyio.fail_after(30):
        while (home / "pgdata" / "postmaster.pid").exists():
            await anyio.sleep(0.2)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_sigterm_stops_the_embedded_database(tmp_path, transport):
    """Clients, Docker and systemd stop a server with SIGTERM; its default action would skip the
    exit hooks and leave the embedded Postgres running after the server is gone."""
    home = tmp_path / "home"
    if transport == "http":
        with http_server(None, home, {"sigterm-test-token-123": "u1"}) as running:
            process = running.process
            assert (home / "pgdata" / "postmaster.pid").exists()
        code = process.returncode  # http_server sent SIGTERM and waited
    else:
        process = subprocess.Popen(
            [sys.executable, "-m", "engrain", "serve"],
            env=engrain_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        handles = home / "pgdata" / ".handle_pids.json"
        with anyio.fail_after(120):  # a first start runs initdb
            while not (handles.exists() and str(process.pid) in handles.read_text()):
                await anyio.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(30):
            while (code := process.poll()) is None:
                await anyio.sleep(0.1)
        process.stdin.close()
        process.stdout.close()
    assert code == 128 + signal.SIGTERM
    await postmaster_stopped(home)
