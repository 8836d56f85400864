"""The command line on a clean home with the embedded database: jobs run (dry and real), status (a summary for a
person, the whole report with --json, exit 1 when the database cannot be reached, no model loaded), and the
status resource of a server started afterwards reflecting those runs."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from mcp import Client, StdioServerParameters

from engrain.services.status.report import NOT_LOADED
from tests.conftest import DATA, engrain_env

pytestmark = pytest.mark.anyio


def engrain(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engrain", *args], env=env, capture_output=True, text=True, timeout=180, check=False
    )


async def test_jobs_and_status_on_the_embedded_database(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ENGRAIN_DATABASE_URL"}
    env |= {
        "ENGRAIN_HOME": str(tmp_path / "home"),
        "ENGRAIN_EMBEDDER": "hash",
        "ENGRAIN_FETCH_MODELS": "false",
        "ENGRAIN_USER": "cli-user",
        "ENGRAIN_LLM": "none",
        "ENGRAIN_SCHEDULER": "off",
    }

    dry = engrain(env, "jobs", "run", "all", "--dry-run")
    assert dry.returncode == 0, dry.stderr[-2000:]
    assert [r["status"] for r in json.loads(dry.stdout)] == ["dry-run"] * 3

    real = engrain(env, "jobs", "run", "all")
    assert real.returncode == 0, real.stderr[-2000:]
    results = json.loads(real.stdout)
    assert [(r["job"], r["status"]) for r in results] == [
        ("expiry", "completed"),
        ("digest", "completed"),
        ("decay", "completed"),
    ]

    one = engrain(env, "jobs", "run", "expiry")
    assert one.returncode == 0 and json.loads(one.stdout)[0]["job"] == "expiry"
    assert engrain(env, "jobs", "run", "nonsense").returncode == 2  # argparse: a clear usage error

    status = engrain(env, "status", "--json")
    assert status.returncode == 0, status.stderr[-2000:]
    report = json.loads(status.stdout)
    assert report["database"]["embedded"] is True and report["user"] == "cli-user"
    assert report["database"]["location"].endswith("pgdata") and report["database"]["size_bytes"] > 1_000_000
    assert set(report["counts"]) >= {"by_kind", "traits_by_stage"}
    assert report["embedder"]["reason"] == "ENGRAIN_EMBEDDER=hash" and report["llm"]["provider"] == "none"
    assert set(report["scheduler"]["jobs"]) == {"expiry", "digest", "decay"}
    assert report["scheduler"]["jobs"]["decay"]["last_run"]["status"] == "completed"

    params = StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=env)
    async with Client(params) as client:
        resource = json.loads((await client.read_resource("engrain://status")).contents[0].text)
    jobs = resource["scheduler"]["jobs"]
    assert jobs["expiry"]["last_run"]["status"] == "completed"
    assert jobs["digest"]["last_run"]["stats"]["llm"] == "none"
    assert resource["scheduler"]["enabled_in_this_server"] is False


def test_status_with_an_unreachable_database_exits_1_and_says_so(tmp_path):
    """The worker's healthcheck (docker-compose.yml) is `engrain status`: a database that is down is a failure."""
    env = engrain_env(tmp_path / "home", ENGRAIN_DATABASE_URL="postgresql://engrain:hunter2@127.0.0.1:1/engrain")
    done = engrain(env, "status")
    assert done.returncode == 1, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("database: "))
    assert "external PostgreSQL postgresql+asyncpg://engrain:***@127.0.0.1:1/engrain: UNREACHABLE" in line, line
    assert "Connect call failed" in line
    assert "Traceback" not in done.stderr and "hunter2" not in done.stdout + done.stderr
    whole = engrain(env, "status", "--json")
    assert whole.returncode == 1
    database = json.loads(whole.stdout)["database"]
    assert database["ok"] is False and database["embedded"] is False and "127.0.0.1:1" in database["location"]


def test_status_gives_up_on_a_database_that_never_answers(tmp_path):
    """A server that takes the connection and says nothing (a firewall's black hole, a hung Postgres): asyncpg
    would wait 60 s, and a second opening after it; the command waits a few seconds and says so."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections are taken by the kernel and never answered
        port = silent.getsockname()[1]
        env = engrain_env(tmp_path / "home", ENGRAIN_DATABASE_URL=f"postgresql://u:p@127.0.0.1:{port}/x")
        done = engrain(env, "status")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "UNREACHABLE (no answer from the database within 5 s)" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr


def test_status_summarises_one_user_without_loading_a_model(tmp_path):
    """A dozen lines for a person, naming the user and where the name came from, the counts, what waits for a
    model; and no embedding model loaded to say so (the manager logs "embedder … serves" when one loads)."""
    home = tmp_path / "home"
    imported = engrain(engrain_env(home), "import-chats", str(DATA / "chats" / "notes"), "--user", "ana")
    assert imported.returncode == 0, imported.stderr
    env = engrain_env(home, ENGRAIN_USER="ana")
    env.pop("ENGRAIN_EMBEDDER")  # auto: a model a server would load, and none is loaded here

    done = engrain(env, "status")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "engrain status: user 'ana' (from ENGRAIN_USER)"
    assert "memories: 2 (1 episodic, 1 fact); 0 archived or replaced" in lines and "traits: none yet" in lines
    assert any(line.startswith("database: embedded PostgreSQL at ") and ", reachable, " in line for line in lines)
    embedder = next(line for line in lines if line.startswith("embedder: "))
    assert embedder.startswith("embedder: auto (auto: the packaged ") and NOT_LOADED in embedder, embedder
    assert "vectors stored: 2 by hash-v2-384" in embedder
    assert any(line.startswith("waiting for a model: 2 pieces of imported chat history") for line in lines), lines
    assert len(lines) <= 20
    assert "serves" not in done.stderr, done.stderr

    whole = engrain(env, "status", "--json")
    assert whole.returncode == 0
    report = json.loads(whole.stdout)
    assert report["user"] == "ana" and report["counts"]["by_kind"] == {"episodic": 1, "fact": 1}
    assert report["embedder"]["state"] == "not started" and report["embedder"]["id"] is None
    assert report["imports"]["pieces_waiting"] == 2
    assert "serves" not in whole.stderr, whole.stderr


def test_serve_in_a_terminal_says_it_waits_for_a_client(tmp_path):
    """A person who runs `engrain serve` by hand sees why nothing happens (stdio is the protocol); a client, whose
    stdin is a pipe, is told nothing of it."""
    import pty

    from tests.conftest import engrain_env

    leader, follower = pty.openpty()
    server = subprocess.Popen(
        [sys.executable, "-m", "engrain", "serve"],
        stdin=follower,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=engrain_env(tmp_path),
        text=True,
    )
    try:
        first = server.stderr.readline()
    finally:
        server.terminate()
        server.wait(timeout=30)
        os.close(leader)
        os.close(follower)
    assert "waiting for a client" in first and "engrain connect" in server.stderr.read() + first
