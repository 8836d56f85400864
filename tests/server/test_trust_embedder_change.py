"""A home stored with one embedder, read by commands that run with another (issue 50, item 1): `engrain
export` never exited when the memories had been embedded by another model (it loaded a model, switched to the
multilingual one, re-embedded every memory, then waited for ever on a model load its close had cancelled).
Read-only commands load no model they do not need and re-embed nothing; every command exits; the server is
the one that brings the home's vectors in step with the model it serves."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from engrain.services.status.report import NOT_LOADED
from tests.conftest import engrain_env
from tests.server.test_lifecycle import no_postmaster

pytestmark = pytest.mark.anyio

CHATGPT = Path(__file__).resolve().parents[1] / "data" / "chats" / "chatgpt" / "conversations.json"
BOUND = 120  # s: generous, on a busy shared CI machine; each command here ends in seconds
# Most of them not in English: under `auto`, the home asks for the packaged multilingual model.
MEMORIES = [
    "我住在上海，离公司很近",
    "我每周四晚上去游泳",
    "Mein Hund heißt Bello und ist drei Jahre alt",
    "Ich arbeite als Tontechniker in einem Studio",
    "Me encanta el fútbol y voy al estadio los domingos",
    "J'habite à Lyon depuis 2019",
    "我的猫叫小白",
    "Mi hermana vive en Madrid",
    "I adore sushi",
    "My sister is a doctor in Toronto",
]


def command_env(home: Path, **settings: str) -> dict[str, str]:
    """The environment of a command run as a user would after an upgrade: no ENGRAIN_EMBEDDER (`auto`)."""
    env = engrain_env(home, **settings)
    env.pop("ENGRAIN_EMBEDDER")
    return env


def run(home: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engrain", *command],
        env=command_env(home),
        capture_output=True,
        text=True,
        timeout=BOUND,
    )


async def store_with_hash(home: Path) -> None:
    env = engrain_env(home, ENGRAIN_USER="me")
    params = StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=env)
    with anyio.fail_after(BOUND):
        async with Client(params) as client:
            for text in MEMORIES:
                assert not (await client.call_tool("remember", {"content": text})).is_error
    await no_postmaster(home)


async def test_read_only_commands_on_a_home_of_another_embedder_exit_and_change_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    home = tmp_path / "home"
    await store_with_hash(home)

    exported = run(home, "export", "--user", "me")
    assert exported.returncode == 0, exported.stderr
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    memories = [row for row in rows if row["type"] == "memory"]
    assert sorted(m["content"] for m in memories) == sorted(MEMORIES)
    assert {m["embedder"] for m in memories} == {"hash-v2-384"}  # exported as stored: nothing re-embedded
    # No model is loaded to export: nothing about one in its log.
    assert "embedder" not in exported.stderr and "re-embed" not in exported.stderr, exported.stderr

    status = run(home, "status", "--json", "--user", "me")
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    embedder = report["embedder"]
    # Which model a server would serve for this home and why, without loading it; the vectors stored by another.
    assert embedder["reason"] == "auto: the packaged multilingual model; many memories are not in English"
    assert embedder["state"] == "not started" and embedder["id"] is None and embedder["message"] == NOT_LOADED
    assert report["counts"]["by_embedder"] == {"hash-v2-384": len(MEMORIES)}
    assert "embedder" not in status.stderr and "re-embedded" not in status.stderr, status.stderr

    backup = tmp_path / "backup.jsonl"
    backup.write_text(exported.stdout)
    checked = run(home, "import", "--dry-run", str(backup))
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["memory"] == {"read": len(MEMORIES), "added": 0}
    elsewhere = tmp_path / "elsewhere"  # into an empty home, a dry run counts what it would add and adds nothing
    counted = run(elsewhere, "import", "--dry-run", str(backup))
    assert json.loads(counted.stdout)["memory"] == {"read": len(MEMORIES), "added": len(MEMORIES)}
    assert not [line for line in run(elsewhere, "export").stdout.splitlines() if '"type":"memory"' in line]
    await no_postmaster(elsewhere)
    chats = run(home, "import-chats", "--dry-run", "--user", "me", str(CHATGPT))
    assert chats.returncode == 0 and "would keep" in chats.stdout, chats.stderr

    again = run(home, "export", "--user", "me")  # none of them re-embedded anything either
    assert {json.loads(line).get("embedder") for line in again.stdout.splitlines()} >= {"hash-v2-384"}
    assert "use:multilingual-v3" not in again.stdout
    await no_postmaster(home)


async def test_a_server_on_such_a_home_re_embeds_it_and_reindex_finishes_what_is_left(tmp_path, monkeypatch):
    """The server re-embeds in the background and its exit does not wait for it; `engrain reindex` finishes
    (and a second server would resume) what an exit left; afterwards status shows nothing stale."""
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    home = tmp_path / "home"
    await store_with_hash(home)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "engrain", "serve"], env=command_env(home, ENGRAIN_USER="me")
    )
    with anyio.fail_after(BOUND):
        async with Client(params) as client:
            found = await client.call_tool("recall", {"query": "我平时做什么运动？", "limit": 1})
            assert not found.is_error
    await no_postmaster(home)

    reindexed = run(home, "reindex")
    assert reindexed.returncode == 0, reindexed.stderr
    assert json.loads(reindexed.stdout)["embedder"] == "use:multilingual-v3"
    status = json.loads(run(home, "status", "--json", "--user", "me").stdout)
    assert "stale_rows" not in status["embedder"] and status["counts"]["by_embedder"] == {
        "use:multilingual-v3": len(MEMORIES)
    }
    await no_postmaster(home)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_a_command_stopped_while_its_model_loads_exits_at_once(tmp_path, monkeypatch, signum):
    """Ctrl-C or SIGTERM while `engrain reindex` waits for its model: the process is gone with 128 + the signal,
    and so is its postmaster."""
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    home = tmp_path / "home"
    await store_with_hash(home)
    process = subprocess.Popen(
        [sys.executable, "-m", "engrain", "reindex"],
        env=command_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    deadline = time.monotonic() + BOUND
    while "database ready" not in (line := process.stderr.readline()) and time.monotonic() < deadline:
        assert line, "the command ended before its database opened"
    os.kill(process.pid, signum)
    assert process.wait(BOUND) == 128 + signum
    await no_postmaster(home)
