"""How long a client waits for its first answers from a freshly started `engrain serve` (stdio, a real MCP
client), as JSON: `initialize` (from the spawn), then the first `remember` and the first `recall` of it (each
call's own time; `first_remember_from_spawn_s` counts the database's opening that call waits for), whether that
recall found the memory and answered by words only (the model still loading), and when the model served
(`model_ready_s`, from the spawn, read from engrain://status), after which a recall finds the memory by meaning.

Three starts, each a median of `--runs`:
- `cold`: a new home and an empty model cache (the packaged model's first load makes its ONNX export);
- `warm_models`: a new home, the model cache filled by an earlier start (ENGRAIN_MODEL_DIR);
- `warm`: the home of an earlier start (its database made, its model cache filled).

    python bench/first_call.py [--runs 3] [--embedder auto]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import scratch_home
from bench.latency import machine, model_state

MEMORY = "My sister Ines moved to Porto last spring and teaches piano there"
QUERY = "Where does Ines live?"
MEANING = "Which relative of mine is a music teacher?"  # shares no word with the memory but "my"
READY_WAIT_S = 300.0


def server(home: str, embedder: str, models: str | None) -> StdioServerParameters:
    env = {
        **os.environ,
        "ENGRAIN_HOME": home,
        "ENGRAIN_EMBEDDER": embedder,
        "ENGRAIN_USER": f"bench-{uuid.uuid4().hex[:8]}",
        "ENGRAIN_SCHEDULER": "off",
        "ENGRAIN_LLM": "none",
        "ENGRAIN_FETCH_MODELS": "false",
    }
    env.pop("ENGRAIN_DATABASE_URL", None)
    env.pop("ENGRAIN_MODEL_DIR", None)
    if models is not None:
        env["ENGRAIN_MODEL_DIR"] = models
    return StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=env)


async def one_start(home: str, embedder: str, models: str | None) -> dict[str, Any]:
    start = time.perf_counter()
    async with Client(server(home, embedder, models)) as client:
        initialized = time.perf_counter()
        stored = await client.call_tool("remember", {"content": MEMORY})
        remembered = time.perf_counter()
        found = await client.call_tool("recall", {"query": QUERY})
        recalled = time.perf_counter()
        assert stored.structured_content is not None and found.structured_content is not None
        memory_id = stored.structured_content["id"]
        hits = [hit["id"] for hit in found.structured_content["results"]]
        while await model_state(client) != "ready" and time.perf_counter() - start < READY_WAIT_S:
            await anyio.sleep(0.05)
        ready = time.perf_counter()
        await anyio.sleep(0.5)  # the background pass embeds what was stored meanwhile (one batch)
        meant = await client.call_tool("recall", {"query": MEANING})
        assert meant.structured_content is not None
    return {
        "initialize_s": round(initialized - start, 3),
        "first_remember_s": round(remembered - initialized, 3),
        "first_remember_from_spawn_s": round(remembered - start, 3),
        "first_recall_s": round(recalled - remembered, 3),
        "recall_found_it": memory_id in hits,
        "recall_by_words_only": found.structured_content.get("words_only") is not None,
        "model_ready_s": round(ready - start, 3),
        "found_by_meaning_once_ready": memory_id in [hit["id"] for hit in meant.structured_content["results"]],
    }


def median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in runs[0].items():
        values = [run[key] for run in runs]
        out[key] = f"{sum(values)}/{len(values)}" if isinstance(value, bool) else statistics.median(values)
    return out


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedder", default="auto")
    args = parser.parse_args()
    cold = [await one_start(scratch_home("engrain-first-"), args.embedder, None) for _ in range(args.runs)]
    models = scratch_home("engrain-models-")
    await one_start(scratch_home("engrain-first-"), args.embedder, models)  # fills the model cache
    warm_models = [await one_start(scratch_home("engrain-first-"), args.embedder, models) for _ in range(args.runs)]
    home = scratch_home("engrain-first-")
    await one_start(home, args.embedder, models)  # makes the database
    warm = [await one_start(home, args.embedder, models) for _ in range(args.runs)]
    report = {"cold": cold, "warm_models": warm_models, "warm": warm}
    print(
        json.dumps(
            {
                "embedder": args.embedder,
                "machine": machine(),
                "median": {name: median(runs) for name, runs in report.items()},
                "runs": report,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    anyio.run(main)
