"""Does the costliest input a client or a model may send stall another user? (issue 39)

Two users of one `engrain serve --transport http` process (an embedded database, hash embedder, host route):
user A recalls in a loop from this process; meanwhile user B, from a process of its own, sends one
kind at a time the costliest input of each kind the server accepts — the longest adversarial text for the
secret and date readers, a large batch, the longest conversation, host-task answers built to make a parser
backtrack or recurse, the longest query. Prints, as JSON, A's recall latency alone (baseline) and during each
input (p50, p95, max, and max / baseline p50), and how B's call ended. Every parser is linear and off the
server's event loop when A's worst stays within a small multiple of its baseline.

    python bench/hostile_input.py [--runs 3] [--memories 300]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import scratch_home

TOKENS = {"bench-a": "bench-token-a-0123456789abcdef", "bench-b": "bench-token-b-0123456789abcdef"}
QUERY = "where do I live and what do I do on weekends"


def inputs() -> dict[str, tuple[str, dict[str, Any]]]:
    """kind → (tool, arguments): the costliest of each kind the server accepts."""
    secretish = ("sk-" * 900 + "eyJ" * 900 + "//" * 700)[:8_000]
    dated = ("on Monday the 3rd of March next week " * 220)[:8_000]
    cues = ("my password is " * 600)[:8_000]
    messages = [{"role": "user", "content": (secretish if n % 2 else dated)[:400]} for n in range(500)]
    return {
        "remember: 8,000 characters against the secret reader": ("remember", {"content": secretish}),
        "remember: 8,000 characters of date phrases": ("remember", {"content": dated}),
        "remember: 8,000 characters of stated-password cues": ("remember", {"content": cues}),
        "remember_many: 1,000 items of 4,000 characters": (
            "remember_many",
            {"items": [{"content": f"{n} " + (secretish if n % 2 else dated)[:4_000]} for n in range(1_000)]},
        ),
        "ingest_conversation: 500 messages, 200,000 characters": ("ingest_conversation", {"messages": messages}),
        "reflect answer: an unclosed fence of 199,990 spaces": (
            "reflect-answer",
            {"answer": "```json" + " " * 199_990},
        ),
        "reflect answer: 100,000 brackets": ("reflect-answer", {"answer": "[" * 100_000}),
        "recall: 2,000 characters of date phrases": ("recall", {"query": dated[:2_000]}),
        "recall: 2,000 characters against the secret reader": ("recall", {"query": secretish[:2_000]}),
    }


def client(url: str, user: str) -> Client:
    headers = {"Authorization": f"Bearer {TOKENS[user]}"}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=600)))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(home: str) -> tuple[subprocess.Popen[bytes], str]:
    """The HTTP server both users share; returns it and its /mcp URL once /healthz answers."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAIN_")} | {
        "ENGRAIN_HOME": home,
        "ENGRAIN_EMBEDDER": "hash",
        "ENGRAIN_FETCH_MODELS": "false",
        "ENGRAIN_LLM": "host",
        "ENGRAIN_SCHEDULER": "off",
        "ENGRAIN_LOG_LEVEL": "WARNING",
        "ENGRAIN_TOKENS": ",".join(f"{token}:{user}" for user, token in TOKENS.items()),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "engrain", "serve", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"{url}/healthz", timeout=2).status_code == 200:
                return server, f"{url}/mcp"
        except httpx2.HTTPError:
            pass
        time.sleep(0.2)
    server.kill()
    raise RuntimeError("the server did not start")


async def recall_times(a: Client, stop: anyio.Event, out: list[float]) -> None:
    while not stop.is_set():
        began = time.perf_counter()
        result = await a.call_tool("recall", {"query": QUERY})
        assert not result.is_error, result.content
        out.append(time.perf_counter() - began)
        await anyio.sleep(0.005)


def summary(times: list[float], baseline_ms: float | None = None) -> dict[str, float]:
    ms = sorted(t * 1000 for t in times)
    found = {
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[max(0, int(len(ms) * 0.95) - 1)], 2),
        "max_ms": round(ms[-1], 2),
        "recalls": len(ms),
    }
    if baseline_ms:
        found["max_over_baseline_p50"] = round(ms[-1] / baseline_ms, 1)
    return found


async def prepared(url: str, tool: str) -> dict[str, Any]:
    """What B's call needs before it is timed: a host task to answer (for B's new memories)."""
    if tool != "reflect-answer":
        return {}
    async with client(url, "bench-b") as b:
        for n in range(3):
            await b.call_tool("remember", {"content": f"I run every morning, day {n} of {time.time()}"})
        task = await b.call_tool("reflect", {"force": True})
        return {"task_id": (task.structured_content or {})["task_id"]}


async def as_b(url: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """B's call of one input."""
    async with client(url, "bench-b") as b:
        result = await b.call_tool("reflect" if tool == "reflect-answer" else tool, args)
        return {"error": result.is_error, "said": result.content[0].text[:120]}  # type: ignore[union-attr]


def _run_as_b(work: Any, *args: Any) -> Any:
    return anyio.run(work, *args)


def in_b(b: ProcessPoolExecutor, work: Any, *args: Any) -> Any:
    """B is another client: its own process, so that only the server is shared (a thread of this process
    would share its interpreter lock with A, and B's building and reading of 200,000 characters of JSON would
    count as the server's)."""
    return anyio.to_thread.run_sync(lambda: b.submit(_run_as_b, work, *args).result())


async def measure(url: str, memories: int, b: ProcessPoolExecutor) -> dict[str, Any]:
    async with client(url, "bench-a") as a:
        notes = [{"content": f"Note {n}: I live in Lisbon; on weekends I hike or bake."} for n in range(memories)]
        await a.call_tool("remember_many", {"items": notes})
        for _ in range(20):  # warm up
            await a.call_tool("recall", {"query": QUERY})
        alone: list[float] = []
        stop = anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(recall_times, a, stop, alone)
            await anyio.sleep(3)
            stop.set()
        baseline = summary(alone)
        report: dict[str, Any] = {"baseline": baseline}
        for tool, args in inputs().values():  # B's first call of each kind loads what it needs, untimed
            small = {k: v[:2] if isinstance(v, list) else v[:200] if isinstance(v, str) else v for k, v in args.items()}
            await in_b(b, as_b, url, tool, small | await in_b(b, prepared, url, tool))
        for kind, (tool, args) in inputs().items():
            args = args | await in_b(b, prepared, url, tool)
            during: list[float] = []
            stop = anyio.Event()
            async with anyio.create_task_group() as tg:
                tg.start_soon(recall_times, a, stop, during)
                await anyio.sleep(0.2)
                began = time.perf_counter()
                outcome = await in_b(b, as_b, url, tool, args)
                outcome["took_s"] = round(time.perf_counter() - began, 2)
                await anyio.sleep(0.2)
                stop.set()
            report[kind] = {**summary(during, baseline["p50_ms"]), **outcome}
    return report


async def one_run(memories: int) -> dict[str, Any]:
    server, url = start_server(scratch_home("engrain-hostile-"))
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as b:
            return await measure(url, memories, b)
    finally:
        server.terminate()
        server.wait(60)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--memories", type=int, default=300)
    args = parser.parse_args()
    runs = [await one_run(args.memories) for _ in range(args.runs)]
    median: dict[str, Any] = {}
    for kind, first in runs[0].items():
        median[kind] = {
            key: statistics.median(run[kind][key] for run in runs) if _number(value) else value
            for key, value in first.items()
        }
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(json.dumps({"machine": machine, "runs": args.runs, "median": median}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    anyio.run(main)
