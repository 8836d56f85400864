"""How fast a client gets answers from a freshly started `engrain serve` (stdio), and how fast it is gone
when the client leaves, as JSON.

Each run uses a new, empty ENGRAIN_HOME, so it includes the embedded database's first
start (initdb) happening in the background. Measures, from the moment the process is
spawned: `initialize` done, `tools/list` done, and the first `remember` done (which has
to wait for the database and the model); then the server process's RSS (its database apart),
which on a machine's first start includes whatever making the model's ONNX export left behind.
Then the exit: from the client closing stdin to the process gone (`exit_s`) and to its postmaster
stopped (`postmaster_gone_s`); and a client that closes at once on a new home (`serve </dev/null`):
from the spawn to the process gone (`closed_at_once_s`, Python's imports included).

    python bench/startup.py [--runs 3] [--embedder auto]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
import psutil
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import scratch_home


def server_rss_mb() -> float:
    """The RSS of the `engrain serve` process this benchmark spawned, in MB."""
    servers = [p for p in psutil.Process().children() if p.cmdline()[1:4] == ["-m", "engrain", "serve"]]
    assert len(servers) == 1, servers
    return round(servers[0].memory_info().rss / 2**20, 1)


def _env(home: str, embedder: str) -> dict[str, str]:
    env = {**os.environ, "ENGRAIN_HOME": home, "ENGRAIN_EMBEDDER": embedder, "ENGRAIN_FETCH_MODELS": "false"}
    env.pop("ENGRAIN_DATABASE_URL", None)
    return env


def _postmaster_running(home: str) -> bool:
    try:
        return psutil.pid_exists(int((Path(home) / "pgdata" / "postmaster.pid").read_text().split("\n")[0]))
    except (OSError, ValueError):
        return False


async def one_run(embedder: str) -> dict[str, float]:
    home = scratch_home("engrain-bench-")
    params = StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=_env(home, embedder))
    start = time.perf_counter()
    async with Client(params) as client:
        initialized = time.perf_counter()
        await client.list_tools()
        listed = time.perf_counter()
        await client.call_tool("remember", {"content": "Benchmark start-up memory"})
        remembered = time.perf_counter()
        rss = server_rss_mb()
        server = next(p for p in psutil.Process().children() if p.cmdline()[1:4] == ["-m", "engrain", "serve"])
        leaving = time.perf_counter()
    while server.is_running() and server.status() != psutil.STATUS_ZOMBIE:
        await anyio.sleep(0.005)
    exited = time.perf_counter()
    while _postmaster_running(home):
        await anyio.sleep(0.01)
    stopped = time.perf_counter()
    return {
        "initialize_s": round(initialized - start, 3),
        "tools_list_s": round(listed - start, 3),
        "first_remember_s": round(remembered - start, 3),
        "server_rss_mb": rss,
        "exit_s": round(exited - leaving, 3),
        "postmaster_gone_s": round(stopped - leaving, 3),
        "closed_at_once_s": closed_at_once(embedder),
    }


def closed_at_once(embedder: str) -> float:
    """`engrain serve </dev/null` on a new home: from the spawn to the process gone."""
    home = scratch_home("engrain-bench-")
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "engrain", "serve"],
        env=_env(home, embedder),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return round(time.perf_counter() - began, 3)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedder", default="auto")
    args = parser.parse_args()
    runs = [await one_run(args.embedder) for _ in range(args.runs)]
    summary = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    print(json.dumps({"embedder": args.embedder, "runs": runs, "median": summary}, indent=2))


if __name__ == "__main__":
    anyio.run(main)
