"""Where a recall's and a remember's time goes, with a real client over MCP stdio, as JSON.

The workload of issue 16: conversations in the LoCoMo layout, each its own user in one database.
Every turn goes through `remember` over MCP stdio, one call at a time ("Speaker: text", the session
date as event_time), from an `engrain serve` subprocess per user, as Claude Desktop would call it.
Then the scheduler's expiry job runs and the table is ANALYZEd (as the bundled scheduler and
autovacuum do on a live server), and every question goes through `recall(limit=20)` over stdio.
The same questions are then answered in process, where a recall is timed in its two parts:
`prepare` (reading the query and embedding it) and `execute` (the one scoring statement and the
shaping of the result). The query-embedding cache starts cold there, but it answers a question whose
focused text was embedded before: the synthetic set asks one template about each speaker, and with
the speakers' names left out (services/focus.py) most questions repeat one another, so `prepare`'s
median is a cache hit. The model's time for one short text, uncached, is measured apart
(`recall_embed_one`). Then the same turns are told one at a time in process, as new users, and each
`remember` is timed in its parts (`remember_service` whole; the SQL statements `remember_probe`,
`remember_insert` and `remember_other_statements`; `remember_commit`; and, apart, the model on the
text uncached, `remember_embed_one`, and the reading of the text, `remember_read`);
`remember_protocol_p50_ms` is what stdio adds to the service's median. Last, other users import the
same turns with `remember_many`, 100 at a time (`remember_many_per_s_stdio`). Each figure is the median
of `--runs` runs on a fresh database; each run also lists how the database ran one question of each user
(`recall_plans`: whether the HNSW index served it, and the statement's execution time).

    python bench/latency.py                                   # the packaged MiniLM, 3 runs
    python bench/latency.py --embedder hash
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from sqlalchemy import Engine, event, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.quality import DEFAULT_DATA, Turn, session_turns
from bench.recall import percentiles
from bench.scale import recall_plan
from engrain.reading.enrich import enrich
from engrain.scheduler import jobs
from engrain.server.state import AppState
from engrain.services.memories.requests import RememberRequest
from engrain.services.recall.search import RecallRequest, estimate_tokens
from engrain.text.languages import detect

PACKAGED = "minilm-int8"
LIMIT = 20
BATCH = 100  # memories per remember_many call


def machine() -> dict[str, Any]:
    lines = Path("/proc/cpuinfo").read_text().splitlines()
    model = next((line.split(":", 1)[1].strip() for line in lines if "model name" in line), platform.processor())
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(), "system": platform.system()}


def server(home: str, embedder: str, user: str) -> StdioServerParameters:
    env = {
        **os.environ,
        "ENGRAIN_HOME": home,
        "ENGRAIN_EMBEDDER": embedder,
        "ENGRAIN_USER": user,
        "ENGRAIN_SCHEDULER": "off",
        "ENGRAIN_LLM": "none",
        "ENGRAIN_FETCH_MODELS": "false",
        "ENGRAIN_TIMEZONE": "UTC",
    }
    env.pop("ENGRAIN_DATABASE_URL", None)
    return StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=env)


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> float:
    """One tool call's time as the client sees it; an error answer stops the benchmark."""
    started = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    elapsed = time.perf_counter() - started
    if result.is_error:
        raise RuntimeError(f"{tool} answered an error: {result.content}")
    return elapsed


async def model_state(client: Client) -> str:
    """The embedder's state as engrain://status gives it: loading, ready or failed."""
    status = json.loads((await client.read_resource("engrain://status")).contents[0].text)  # type: ignore[union-attr]
    return status["embedder"]["state"]


async def warm_up(client: Client) -> None:
    """The first call waits for the database; no call waits for the model, which loads in the background (a
    recall answers by words meanwhile). Neither is what this measures: it waits for both."""
    await client.list_tools()
    await call(client, "recall", {"query": "warm-up", "limit": LIMIT})
    while await model_state(client) == "loading":
        await anyio.sleep(0.05)


async def ingest(home: str, embedder: str, user: str, turns: list[Turn]) -> list[float]:
    async with Client(server(home, embedder, user)) as client:
        await warm_up(client)
        return [await call(client, "remember", _item(t)) for t in turns]


async def import_batches(home: str, embedder: str, user: str, turns: list[Turn]) -> list[float]:
    """The same turns imported with `remember_many`, BATCH at a time, as a client importing history would."""
    async with Client(server(home, embedder, user)) as client:
        await warm_up(client)
        return [
            await call(client, "remember_many", {"items": [_item(t) for t in turns[start : start + BATCH]]})
            for start in range(0, len(turns), BATCH)
        ]


def _item(turn: Turn) -> dict[str, Any]:
    return {"content": turn.content, **({"event_time": turn.when.date().isoformat()} if turn.when else {})}


async def ask(home: str, embedder: str, user: str, questions: list[str], sizes: list[dict[str, int]]) -> list[float]:
    """Each question's recall over stdio; `sizes` gets each result's size: the text the model reads (bytes,
    and tokens at about four characters each, as recall counts them) and the structured content (bytes)."""
    async with Client(server(home, embedder, user)) as client:
        await warm_up(client)
        times: list[float] = []
        for q in questions:
            started = time.perf_counter()
            result = await client.call_tool("recall", {"query": q, "limit": LIMIT})
            times.append(time.perf_counter() - started)
            text_ = "".join(getattr(c, "text", "") for c in result.content)
            sizes.append(
                {
                    "text_bytes": len(text_.encode()),
                    "text_tokens": estimate_tokens(text_),
                    "structured_bytes": len(json.dumps(result.structured_content, ensure_ascii=False).encode()),
                }
            )
        return times


async def in_process(app: AppState, asked: list[tuple[str, str]]) -> dict[str, list[float]]:
    """Each question's recall in the service layer, timed in its parts, and the model alone."""
    out: dict[str, list[float]] = {"service": [], "prepare": [], "execute": [], "embed_one": []}
    model = await app.embeddings.ready()
    without_vector = 0
    for user, question in asked:
        started = time.perf_counter()
        prepared = await app.recall.prepare(user, RecallRequest(question, limit=LIMIT))
        planned = time.perf_counter()
        without_vector += prepared.statement.vector is None
        await app.recall.execute(prepared)
        done = time.perf_counter()
        out["prepare"].append(planned - started)
        out["execute"].append(done - planned)
        out["service"].append(done - started)
    for _, question in asked:
        started = time.perf_counter()
        await anyio.to_thread.run_sync(model.embed, [question])
        out["embed_one"].append(time.perf_counter() - started)
    if without_vector:
        print(f"{without_vector} of {len(asked)} questions were recalled without a query vector", file=sys.stderr)
    return out


class StatementClock:
    """The time of each SQL statement a remember sends (BEGIN rides on the first: asyncpg opens the
    transaction with it), by the engine's cursor events, and when its COMMIT starts."""

    def __init__(self, engine: Engine) -> None:
        self.statements: dict[str, float] = defaultdict(float)
        self.commit_started = 0.0
        self._started = 0.0
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)
        event.listen(engine, "commit", self._commit)

    def reset(self) -> None:
        self.statements.clear()
        self.commit_started = 0.0

    def _before(self, *_: Any) -> None:
        self._started = time.perf_counter()

    def _after(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        name = "probe" if "same_text" in statement else "insert" if "new_row" in statement else "other_statements"
        self.statements[name] += time.perf_counter() - self._started

    def _commit(self, *_: Any) -> None:
        self.commit_started = time.perf_counter()


async def remember_parts(app: AppState, told: list[tuple[str, Turn]]) -> dict[str, list[float]]:
    """One-at-a-time `remember` in the service layer (new users, uncached texts) and where its time goes:
    the SQL statements (the duplicate probe; the row, its vector and history; any other), the commit, and,
    measured apart on the same texts, the model alone (uncached) and the reading of the text alone. The
    service runs the reading and the model side by side, so the parts add up to more than the whole."""
    db = await app.database()
    clock = StatementClock(db.engine.sync_engine)
    out: dict[str, list[float]] = defaultdict(list)
    for user, turn in told:
        clock.reset()
        started = time.perf_counter()
        await app.memories.remember(user, RememberRequest(**_item(turn)))
        done = time.perf_counter()
        out["service"].append(done - started)
        out["commit"].append(done - clock.commit_started)
        for name in ("probe", "insert", "other_statements"):
            out[name].append(clock.statements[name])
    model = await app.embeddings.ready()
    for _, turn in told:
        started = time.perf_counter()
        await anyio.to_thread.run_sync(model.embed, [turn.content])
        out["embed_one"].append(time.perf_counter() - started)
        started = time.perf_counter()
        enrich(turn.content, app.clock(), app.settings.tz, lang=detect(turn.content))
        out["read"].append(time.perf_counter() - started)
    return out


async def one_run(samples: list[dict[str, Any]], embedder: str) -> dict[str, Any]:
    home = scratch_home("engrain-latency-")
    users = [(f"locomo-{s.get('sample_id', i)}", session_turns(s), s) for i, s in enumerate(samples)]
    settings = bench_settings(home, embedder)
    app = AppState(settings)
    # Held as a serving process is: its start-up work runs too (the stored rows' redaction pass, after which
    # recall no longer screens its hits).
    app.acquire()
    try:
        await app.database()
        remembers: list[float] = []
        started = time.perf_counter()
        for user, turns, _ in users:
            remembers += await ingest(home, embedder, user, turns)
        ingest_s = time.perf_counter() - started
        await jobs.expiry(app.job_context, app.clock(), None, False)
        db = await app.database()
        async with db.engine.begin() as conn:
            await conn.execute(text("ANALYZE memories"))
        asked = [(user, qa["question"]) for user, _, s in users for qa in s["qa"] if qa.get("question")]
        recalls: list[float] = []
        sizes: list[dict[str, int]] = []
        for user, _, _ in users:
            recalls += await ask(home, embedder, user, [q for u, q in asked if u == user], sizes)
        parts = await in_process(app, asked)
        # How the database ran one question of each user (EXPLAIN ANALYZE): which plans a run's recalls got.
        plans = [await recall_plan(app, user, next(q for u, q in asked if u == user), None) for user, _, _ in users]
        writes = await remember_parts(app, [(f"{user}-in-process", t) for user, turns, _ in users for t in turns])
        # Last, so that the recall figures are of the one-at-a-time users alone: other users import the
        # same turns in batches.
        batches: list[float] = []
        for user, turns, _ in users:
            batches += await import_batches(home, embedder, f"{user}-batched", turns)
    finally:
        await app.release()
    return {
        "memories": len(remembers),
        "questions": len(recalls),
        "remember_per_s_stdio": round(len(remembers) / sum(remembers), 1),
        "remember_per_s_wall": round(len(remembers) / ingest_s, 1),
        "remember_mcp": percentiles(remembers),
        "remember_many_per_s_stdio": round(sum(len(turns) for _, turns, _ in users) / sum(batches), 1),
        "recall_mcp": percentiles(recalls),
        "recall_result_size": {k: statistics.median(x[k] for x in sizes) for k in sizes[0]},
        "recall_plans": plans,
        **{f"recall_{name}": percentiles(samples) for name, samples in parts.items()},
        **{f"remember_{name}": percentiles(samples) for name, samples in writes.items()},
    }


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure across runs (nested percentiles included; lists stay with their run)."""
    out: dict[str, Any] = {}
    for key, value in runs[0].items():
        if isinstance(value, list):
            continue
        if isinstance(value, dict):
            out[key] = {k: statistics.median(r[key][k] for r in runs) for k in value}
        else:
            out[key] = statistics.median(r[key] for r in runs)
    out["protocol_p50_ms"] = round(out["recall_mcp"]["p50_ms"] - out["recall_service"]["p50_ms"], 2)
    out["remember_protocol_p50_ms"] = round(out["remember_mcp"]["p50_ms"] - out["remember_service"]["p50_ms"], 2)
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedder", default=PACKAGED)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    samples = json.loads(args.data.read_text())
    runs = [await one_run(samples, args.embedder) for _ in range(args.runs)]
    report = {"embedder": args.embedder, "data": str(args.data), "machine": machine()}
    print(json.dumps(report | {"median": median_of(runs), "runs": runs}, indent=2))


if __name__ == "__main__":
    anyio.run(main)
