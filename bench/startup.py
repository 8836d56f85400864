"""How fast a client gets answers from a freshly started `engrain serve` (stdio), as JSON.

Each run uses a new, empty ENGRAIN_HOME, so it includes the embedded database's first
start (initdb) happening in the background. Measures, from the moment the process is
spawned: `initialize` done, `tools/list` done, and the first `remember` done (which has
to wait for the database and the model); then the server process's RSS (its database apart),
which on a machine's first start includes whatever making the model's ONNX export left behind.

    python bench/startup.py [--runs 3] [--embedder auto]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


async def one_run(embedder: str) -> dict[str, float]:
    home = scratch_home("engrain-bench-")
    env = {**os.environ, "ENGRAIN_HOME": home, "ENGRAIN_EMBEDDER": embedder, "ENGRAIN_FETCH_MODELS": "false"}
    env.pop("ENGRAIN_DATABASE_URL", None)
    params = StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=env)
    start = time.perf_counter()
    async with Client(params) as client:
        initialized = time.perf_counter()
        await client.list_tools()
        listed = time.perf_counter()
        await client.call_tool("remember", {"content": "Benchmark start-up memory"})
        remembered = time.perf_counter()
        rss = server_rss_mb()
    return {
        "initialize_s": round(initialized - start, 3),
        "tools_list_s": round(listed - start, 3),
        "first_remember_s": round(remembered - start, 3),
        "server_rss_mb": rss,
    }


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
