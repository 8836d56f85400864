"""Start-up and shutdown (issue 39), with real `engrain` processes: a request that comes while the date reader
loads waits for it (the race forced by a slowed import); a client that closes at once sees the process gone
while its database is still opening; and whatever ends the last process of a home — a clean exit, SIGTERM,
SIGKILL in the middle of a batch or an import — its postmaster stops, and its keeper with it. The bounds
are generous: they measure that a process is gone, not how fast the machine is."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.conftest import ROOT, engrain_env, initialize_request
from tests.server.test_lifecycle import holding_a_handle, no_postmaster, stdio_params

pytestmark = pytest.mark.anyio
SLOW_IMPORT = ROOT / "tests" / "slow_import"  # a sitecustomize that slows one module's import
GONE = 60  # seconds within which a stopped process must be gone, on a machine as busy as CI's


def keepers(home: Path) -> list[int]:
    import psutil

    return [
        p.pid
        for p in psutil.process_iter(["cmdline"])
        if "engrain.storage.embedded" in (p.info["cmdline"] or []) and str(home / "pgdata") in (p.info["cmdline"] or [])
    ]


async def nothing_left(home: Path) -> None:
    await no_postmaster(home, GONE)
    with anyio.fail_after(GONE):
        while keepers(home):
            await anyio.sleep(0.2)


def _spawn(env: dict[str, str], *command: str, stdin: int | None = subprocess.PIPE) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "engrain", *(command or ("serve",))],
        env=env,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _send(process: subprocess.Popen[bytes], *messages: dict) -> None:
    assert process.stdin is not None
    for message in messages:
        process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _call(request_id: int, tool: str, arguments: dict) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


@pytest.mark.parametrize("slowed", ["dateparser.languages.loader", "dateparser.search"])
def test_a_request_waits_for_the_date_reader_and_never_races_it(pg_url, tmp_path, slowed):
    """A Chinese `remember` sent at once after start, while the start-up thread imports dateparser (its import
    slowed by 3 s here, as on a loaded machine): it answered "internal error" (the two imports deadlocked on
    dateparser's modules). It now waits for the one loading and is stored."""
    env = engrain_env(
        tmp_path,
        ENGRAIN_DATABASE_URL=pg_url,
        ENGRAIN_USER=f"race-{uuid.uuid4().hex[:8]}",
        PYTHONPATH=os.pathsep.join([str(SLOW_IMPORT), str(ROOT)]),
        ENGRAIN_TEST_SLOW_IMPORT=slowed,
        ENGRAIN_TEST_SLOW_SECONDS="3",
    )
    process = _spawn(env)
    _send(
        process,
        initialize_request(1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        _call(2, "remember", {"content": "我下周三去北京出差"}),
    )
    assert process.stdout is not None and process.stderr is not None
    assert json.loads(process.stdout.readline())["id"] == 1
    answer = json.loads(process.stdout.readline())
    process.stdin.close()  # type: ignore[union-attr]
    process.wait(GONE)
    log = process.stderr.read().decode()
    assert not answer["result"].get("isError"), answer
    assert answer["result"]["structuredContent"]["event_time"].startswith("20")
    assert "Deadlock" not in log and "background task failed" not in log, log


def _black_hole() -> socket.socket:
    """A TCP port that accepts connections and never answers: a database that never opens."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    return listener


async def test_a_client_that_closes_at_once_does_not_wait_for_the_database(tmp_path):
    """`engrain serve </dev/null` took 7 s to exit: it waited for the database first. Here the database never
    answers (asyncpg would wait a minute for it): the process is still gone within moments."""
    with _black_hole() as hole:
        url = f"postgresql://engrain@127.0.0.1:{hole.getsockname()[1]}/engrain"
        process = _spawn(engrain_env(tmp_path, ENGRAIN_DATABASE_URL=url), stdin=subprocess.DEVNULL)
        with anyio.fail_after(30):  # before: a minute of connect timeout, then the end-of-session digest's
            while process.poll() is None:
                await anyio.sleep(0.1)
    assert process.returncode == 0, process.stderr.read().decode()  # type: ignore[union-attr]


async def test_a_clean_exit_stops_the_postmaster_and_its_keeper(tmp_path):
    home = tmp_path / "home"
    async with Client(stdio_params(home)) as client:
        assert not (await client.call_tool("remember", {"content": "I keep bees"})).is_error
        assert keepers(home)  # one keeper per running postmaster
    await nothing_left(home)


async def test_sigterm_stops_the_postmaster(tmp_path):
    home = tmp_path / "home"
    process = _spawn(engrain_env(home))
    await holding_a_handle(home, process)
    process.send_signal(signal.SIGTERM)
    process.wait(GONE)
    assert process.returncode == 128 + signal.SIGTERM
    await nothing_left(home)


def _export_count(env: dict[str, str], user: str) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "engrain", "export", "--user", user, "--no-vectors"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return sum(1 for line in done.stdout.splitlines() if '"type":"memory"' in line)


@pytest.mark.parametrize("work", ["remember_many", "import"])
async def test_sigkill_in_the_middle_of_a_write_leaves_no_postmaster_and_nothing_half_written(tmp_path, work):
    """kill -9 of the server in the middle of a `remember_many` of 5,000 memories, or of `engrain import` of
    5,000: the postmaster was still up 90 s later. Its keeper stops it; the batch is there whole or not at
    all."""
    home = tmp_path / "home"
    user = f"kill-{uuid.uuid4().hex[:8]}"
    env = engrain_env(home, ENGRAIN_USER=user)
    items = [{"content": f"Batch note {n} about the allotment and its {n % 17} beds"} for n in range(5_000)]
    if work == "remember_many":
        process = _spawn(env)
        await holding_a_handle(home, process)
        _send(
            process,
            initialize_request(1),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            _call(2, "remember_many", {"items": items}),
        )
    else:
        exported = tmp_path / "notes.jsonl"
        rows = [{"type": "header", "format": "engrain-export", "version": 1, "vectors": False}]
        rows += [_row(user, item["content"]) for item in items]
        exported.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        process = _spawn(env, "import", str(exported), stdin=subprocess.DEVNULL)
        await holding_a_handle(home, process)
    await anyio.sleep(0.5)
    process.kill()
    process.wait()
    await nothing_left(home)
    assert _export_count(env, user) in (0, 5_000)
    await nothing_left(home)


def _row(user: str, content: str) -> dict:
    from engrain.reading.enrich import content_hash

    return {
        "type": "memory",
        "id": str(uuid.uuid4()),
        "user_id": user,
        "namespace": "default",
        "kind": "fact",
        "content": content,
        "content_hash": content_hash(content),
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
