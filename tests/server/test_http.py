"""Streamable HTTP and SSE with bearer tokens, through real MCP clients and plain HTTP requests:
401 without a valid token, /healthz, /metrics, and two users who cannot reach each other's memories
by any tool or resource, even with each other's ids."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import uuid

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import call, call_error
from tests.http_server import http_client, http_server, sse_client

pytestmark = pytest.mark.anyio
RUN = uuid.uuid4().hex[:8]
ALICE, BOB = f"alice-{RUN}", f"bob-{RUN}"
TOKENS = {f"tok-alice-{RUN}-secret": ALICE, f"tok-bob-{RUN}-secret-x": BOB}
ALICE_TOKEN, BOB_TOKEN = list(TOKENS)


@pytest.fixture(scope="module")
def server(pg_url, tmp_path_factory):
    with http_server(pg_url, tmp_path_factory.mktemp("http"), TOKENS) as running:
        yield running


def test_a_missing_token_gets_401_and_a_wrong_one_403_that_says_so(server):
    """A wrong token gave 401, which MCP clients take as the start of OAuth (the Inspector answered "Interactive
    OAuth requires a TTY"); this server has none, and advertises none: a wrong token reads as a wrong token."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    assert httpx.post(server.mcp, json=body, headers=headers).status_code == 401
    wrong = httpx.post(server.mcp, json=body, headers=headers | {"Authorization": "Bearer not-a-valid-token-at-all"})
    assert wrong.status_code == 403 and 'error="invalid_token"' in wrong.headers["www-authenticate"]
    assert "not known to this server" in wrong.json()["error_description"]
    assert "resource_metadata" not in wrong.headers["www-authenticate"]
    assert httpx.get(f"{server.url}/.well-known/oauth-protected-resource/mcp").status_code == 404
    ok = httpx.post(server.mcp, json=body, headers=headers | {"Authorization": f"Bearer {ALICE_TOKEN}"})
    assert ok.status_code == 200


async def test_client_without_token_cannot_connect(server):
    with pytest.raises(Exception):  # noqa: B017 - the transport surfaces the 401 as its own error type
        async with http_client(server.mcp, None) as client:
            await client.list_tools()


def test_healthz_needs_no_token_and_checks_the_database(server):
    response = httpx.get(f"{server.url}/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok", "database": "ok"}


async def test_metrics_behind_the_token(server):
    assert httpx.get(f"{server.url}/metrics").status_code == 401
    assert (
        httpx.get(f"{server.url}/metrics", headers={"Authorization": "Bearer nope-nope-nope-nope"}).status_code == 403
    )
    async with http_client(server.mcp, ALICE_TOKEN) as client:
        await call(client, "remember", content="Metrics check: I like green tea")
        await call_error(client, "forget", memory_id=str(uuid.uuid4()))
    text = httpx.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {ALICE_TOKEN}"}).text
    assert 'engrain_tool_calls_total{tool="remember"}' in text
    assert 'engrain_tool_errors_total{kind="not_found",tool="forget"}' in text
    assert 'engrain_tool_duration_seconds_bucket{le="0.05",tool="remember"}' in text
    overflow = next(line for line in text.splitlines() if line.startswith("engrain_db_pool_overflow "))
    assert float(overflow.split()[1]) >= 0  # issue 39: SQLAlchemy counts it from minus the pool size
    assert "engrain_db_pool_checked_out" in text and "engrain_db_pool_size" in text


async def test_two_users_cannot_reach_each_others_memories(server):
    async with http_client(server.mcp, ALICE_TOKEN) as alice, http_client(server.mcp, BOB_TOKEN) as bob:
        secret = await call(alice, "remember", content="Alice's bank PIN hint is the cat's birthday")
        other = await call(alice, "remember", content="Alice walks the dog every morning")
        await call(alice, "link", source_id=secret["id"], target_id=other["id"], relation="related_to")
        mine = await call(bob, "remember", content="Bob collects vinyl records of jazz")

        found = await call(bob, "recall", query="bank PIN hint cat birthday")
        assert all(hit["id"] not in (secret["id"], other["id"]) for hit in found["results"])
        for tool, args in [
            ("forget", {"memory_id": secret["id"]}),
            ("link", {"source_id": mine["id"], "target_id": secret["id"], "relation": "related_to"}),
            ("link", {"source_id": secret["id"], "target_id": mine["id"], "relation": "related_to"}),
            ("remember", {"content": "Bob overrides Alice", "supersedes": secret["id"]}),
        ]:
            error = await call_error(bob, tool, **args)
            assert "no memory with id" in error  # exactly what an unknown id gets
        with pytest.raises(MCPError):
            await bob.read_resource(f"engrain://memories/{secret['id']}")
        recent = json.loads((await bob.read_resource("engrain://memories/recent")).contents[0].text)
        assert {m["id"] for m in recent} == {mine["id"]}
        await call(bob, "reflect", force=True)  # reflects on Bob's memories only
        traits = await call(bob, "get_user_traits")
        assert traits["traits"] == []
        profile = (await bob.read_resource("engrain://profile")).contents[0].text
        assert "PIN" not in profile and "dog" not in profile

        # Alice still has all of hers, untouched by Bob's attempts.
        again = await call(alice, "recall", query="bank PIN hint cat birthday")
        assert again["results"][0]["id"] == secret["id"]
        assert {link["id"] for link in again["results"][0]["links"]} == {other["id"]}


async def test_sse_transport_with_token(pg_url, tmp_path):
    with http_server(pg_url, tmp_path / "sse", TOKENS, transport="sse", ENGRAIN_METRICS_PUBLIC="1") as running:
        assert httpx.get(f"{running.url}/sse", timeout=5).status_code == 401
        assert httpx.get(f"{running.url}/metrics").status_code == 200  # ENGRAIN_METRICS_PUBLIC=1
        async with sse_client(f"{running.url}/sse", BOB_TOKEN) as client:
            stored = await call(client, "remember", content="Bob learned to bake sourdough over SSE")
            found = await call(client, "recall", query="sourdough baking")
            assert found["results"][0]["id"] == stored["id"]
        async with sse_client(f"{running.url}/sse", ALICE_TOKEN) as client:
            assert stored["id"] not in {h["id"] for h in (await call(client, "recall", query="sourdough"))["results"]}


async def test_many_sessions_share_one_engine_and_one_scheduler(fresh_database_url, tmp_path):
    """Scheduler on: the catch-up tick runs once for the process, not once per session."""
    with http_server(
        fresh_database_url,
        tmp_path / "one",
        TOKENS,
        args=("--log-json",),
        ENGRAIN_SCHEDULER="on",
        ENGRAIN_SCHEDULER_INTERVAL="3600",
    ) as running:
        for _ in range(3):
            async with http_client(running.mcp, ALICE_TOKEN) as a, http_client(running.mcp, BOB_TOKEN) as b:
                await call(a, "remember", content=f"Session note {uuid.uuid4().hex}")
                await call(b, "recall", query="session note")
        status = json.loads((await _status(running.mcp)).contents[0].text)
        assert status["scheduler"]["enabled_in_this_server"] is True
        metrics = httpx.get(f"{running.url}/metrics", headers={"Authorization": f"Bearer {ALICE_TOKEN}"}).text
        log = running.logs()
    for job in ("expiry", "digest", "decay"):
        assert f'engrain_job_runs_total{{job="{job}",status="completed"}} 1.0' in metrics
        assert f'engrain_job_duration_seconds_count{{job="{job}"}} 1.0' in metrics
    assert log.count("database ready") == 1
    entries = [json.loads(line) for line in log.splitlines() if line.startswith("{")]  # --log-json
    tools = [e for e in entries if e["logger"] == "engrain.tools.common"]
    assert len(tools) >= 6 and all(len(e["request_id"]) == 12 for e in tools)
    assert not [e for e in entries if "Session note" in e["message"]]  # contents never logged
    for job in ("expiry", "digest", "decay"):
        assert log.count(f"job {job} completed") == 1, log[-3000:]


async def _status(url: str):
    async with http_client(url, ALICE_TOKEN) as client:
        return await client.read_resource("engrain://status")


@pytest.mark.skipif(shutil.which("npx") is None, reason="needs Node's npx")
def test_inspector_over_http_with_and_without_the_header(server):
    cmd = ["npx", "-y", "@modelcontextprotocol/inspector@2.12.0", "--cli", server.mcp, "--method", "tools/list"]
    listed = subprocess.run(
        [*cmd, "--header", f"Authorization: Bearer {ALICE_TOKEN}"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert {"remember", "recall"} <= {t["name"] for t in json.loads(listed.stdout)["tools"]}
    refused = subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False)
    assert refused.returncode != 0
    wrong = subprocess.run(
        [*cmd, "--header", "Authorization: Bearer not-a-token-of-this-server"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert wrong.returncode != 0 and "not known to this server" in wrong.stdout + wrong.stderr
    assert "OAuth" not in wrong.stdout + wrong.stderr


def test_a_token_removed_from_the_file_stops_working_within_seconds(pg_url, tmp_path):
    keep, revoke = f"tok-keep-{RUN}-secret", f"tok-revoke-{RUN}-secret"
    token_file = tmp_path / "tokens"
    token_file.write_text(f"{keep}:{ALICE}\n{revoke}:{BOB}\n")
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

    def status(token: str) -> int:
        return httpx.post(server.mcp, json=body, headers=headers | {"Authorization": f"Bearer {token}"}).status_code

    with http_server(pg_url, tmp_path / "home", token_file) as server:
        assert status(revoke) == 200
        token_file.write_text(f"# {BOB} left\n{keep}:{ALICE}\n")
        deadline = time.monotonic() + 5
        while status(revoke) == 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert status(revoke) == 403
        assert status(keep) == 200


@pytest.mark.parametrize("header", ["Bearer  {token}", "bearer {token}", "Bearer \t{token}"])
def test_every_endpoint_reads_the_bearer_header_alike(server, header):
    authorization = header.format(token=ALICE_TOKEN)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    mcp = httpx.post(
        server.mcp,
        json=body,
        headers={
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Authorization": authorization,
        },
    )
    metrics = httpx.get(f"{server.url}/metrics", headers={"Authorization": authorization})
    assert mcp.status_code == metrics.status_code == 200
