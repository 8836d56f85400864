"""Concurrent MCP clients over streamable HTTP against one `engrain serve --transport http`, as JSON.

Starts the server on 127.0.0.1 (embedded Postgres in a temporary home unless ENGRAIN_DATABASE_URL
is set), gives each client a bearer token (the clients are spread over --users users), stores a
few hundred memories per user, then runs N clients for T seconds, each doing a realistic mix of
remember and recall. Reports throughput, p50/p95/p99 per tool and overall, and errors (which
must be 0). Talks only to 127.0.0.1, and stops on its own.

    python bench/load.py                      # 16 clients, 30 s
    python bench/load.py --clients 32 --seconds 60
    python bench/load.py --reflecting 2         # and 2 more clients answering reflection tasks meanwhile

Throughput and the overall percentiles count the remember/recall clients' calls; the reflecting clients'
rounds (a task asked and answered) are reported apart, under "reflect".
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import scratch_home
from bench.recall import memory, percentiles, query
from tests.http_server import http_client, http_server

# A reflection answer with every key and nothing in it: what a calling model sends when it finds nothing new.
EMPTY_ANSWER = {k: [] for k in ("new_trends", "new_behaviors", "reinforcements", "contradictions", "upgrades", "links")}


async def run(args: argparse.Namespace) -> dict:
    tokens = {f"load-{uuid.uuid4().hex}": f"load-user-{n}" for n in range(args.users)}
    token_list = list(tokens)
    home = Path(scratch_home("engrain-load-"))
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    with http_server(os.environ.get("ENGRAIN_DATABASE_URL"), home, tokens, ENGRAIN_EMBEDDER=args.embedder) as server:

        async def preload(token: str, seed: int) -> None:
            rng = random.Random(seed)
            async with http_client(server.mcp, token) as client:
                for i in range(args.preload):
                    await client.call_tool("remember", {"content": memory(rng, i)})

        async with anyio.create_task_group() as tg:
            for n, token in enumerate(token_list):
                tg.start_soon(preload, token, n)

        deadline = time.perf_counter() + args.seconds

        async def worker(n: int) -> None:
            rng = random.Random(1000 + n)
            async with http_client(server.mcp, token_list[n % len(token_list)]) as client:
                i = 0
                while time.perf_counter() < deadline:
                    i += 1
                    if rng.random() < args.remember_share:
                        tool, arguments = "remember", {"content": memory(rng, 100_000 * (n + 1) + i)}
                    else:
                        tool, arguments = "recall", {"query": query(rng)}
                    t0 = time.perf_counter()
                    try:
                        result = await client.call_tool(tool, arguments)
                        failed = result.is_error
                    except Exception:
                        failed = True
                    latencies[tool].append(time.perf_counter() - t0)
                    errors[tool] += int(failed)

        async def reflector(n: int) -> None:
            """A client that digests its user's memories the whole time, as a calling model answering the host
            route's reflection tasks would (an empty answer: the server's planning and applying still run)."""
            async with http_client(server.mcp, token_list[n % len(token_list)]) as client:
                while time.perf_counter() < deadline:
                    t0 = time.perf_counter()
                    try:
                        asked = await client.call_tool("reflect", {"force": True})
                        task = (asked.structured_content or {}).get("task_id")
                        failed = asked.is_error
                        if task and not failed:
                            done = await client.call_tool("reflect", {"task_id": task, "answer": EMPTY_ANSWER})
                            failed = done.is_error
                    except Exception:
                        failed = True
                    latencies["reflect"].append(time.perf_counter() - t0)
                    errors["reflect"] += int(failed)

        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for n in range(args.clients):
                tg.start_soon(worker, n)
            for n in range(args.reflecting):
                tg.start_soon(reflector, n)
        elapsed = time.perf_counter() - started
    every = [x for tool, samples in latencies.items() if tool != "reflect" for x in samples]
    return {
        "date": datetime.now(UTC).date().isoformat(),
        "clients": args.clients,
        "users": args.users,
        "seconds": round(elapsed, 1),
        "embedder": args.embedder,
        "preloaded_per_user": args.preload,
        "remember_share": args.remember_share,
        "reflecting_clients": args.reflecting,
        "calls": len(every),
        "throughput_per_s": round(len(every) / elapsed, 1),
        "overall": percentiles(every),
        "tools": {tool: percentiles(samples) for tool, samples in sorted(latencies.items())},
        "errors": dict(errors) | {"total": sum(errors.values())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--preload", type=int, default=250, help="memories stored per user before measuring")
    parser.add_argument("--remember-share", type=float, default=0.3, help="fraction of calls that are remember")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument(
        "--reflecting", type=int, default=0, help="more clients that answer reflection tasks all the time"
    )
    print(json.dumps(anyio.run(run, parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
