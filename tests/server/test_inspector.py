"""The MCP Inspector's CLI, a real third-party client, against `engrain serve` over stdio.

Skipped where Node's npx is not installed; it fetches the Inspector from the npm registry.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TOOLS

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
pytestmark = pytest.mark.skipif(shutil.which("npx") is None, reason="needs Node's npx")


def inspector(pg_url: str, home: Path, *args: str) -> dict:
    engrain = str(Path(sys.executable).with_name("engrain"))
    env_args = [
        f"ENGRAIN_DATABASE_URL={pg_url}",
        f"ENGRAIN_HOME={home}",
        "ENGRAIN_EMBEDDER=hash",
        "ENGRAIN_FETCH_MODELS=false",
        "ENGRAIN_USER=inspector-user",
        "ENGRAIN_SCHEDULER=off",
    ]
    cmd = ["npx", "-y", INSPECTOR, "--cli"]
    for pair in env_args:
        cmd += ["-e", pair]
    cmd += [engrain, "serve", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Schema portability" not in done.stderr, done.stderr[-2000:]  # its lint of tools/list: no warning
    return json.loads(done.stdout)


def test_inspector_lists_tools_and_round_trips_a_memory(pg_url, tmp_path):
    tools = {t["name"]: t for t in inspector(pg_url, tmp_path, "--method", "tools/list")["tools"]}
    assert set(tools) == set(TOOLS)
    assert all("inputSchema" in t and "outputSchema" in t for t in tools.values())
    stored = inspector(
        pg_url,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "remember",
        "--tool-arg",
        "content=Takes the 7:40 train to work every weekday",
    )
    assert stored["isError"] is False
    found = inspector(
        pg_url, tmp_path, "--method", "tools/call", "--tool-name", "recall", "--tool-arg", "query=train to work"
    )
    assert found["structuredContent"]["results"][0]["id"] == stored["structuredContent"]["id"]
