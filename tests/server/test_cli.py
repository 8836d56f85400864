"""The command line on a clean home with the embedded database: jobs run (dry and real), status,
and the status resource of a server started afterwards reflecting those runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from mcp import Client, StdioServerParameters

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

    status = engrain(env, "status")
    assert status.returncode == 0, status.stderr[-2000:]
    report = json.loads(status.stdout)
    assert report["database"]["embedded"] is True and report["user"] == "cli-user"
    assert report["database"]["location"].endswith("pgdata") and report["database"]["size_bytes"] > 1_000_000
    assert set(report["counts"]) >= {"by_kind", "traits_by_stage"}
    assert report["embedder"]["id"].startswith("hash") and report["llm"]["provider"] == "none"
    assert set(report["scheduler"]["jobs"]) == {"expiry", "digest", "decay"}
    assert report["scheduler"]["jobs"]["decay"]["last_run"]["status"] == "completed"

    params = StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=env)
    async with Client(params) as client:
        resource = json.loads((await client.read_resource("engrain://status")).contents[0].text)
    jobs = resource["scheduler"]["jobs"]
    assert jobs["expiry"]["last_run"]["status"] == "completed"
    assert jobs["digest"]["last_run"]["stats"]["llm"] == "none"
    assert resource["scheduler"]["enabled_in_this_server"] is False
