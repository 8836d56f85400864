"""A million memories in one database, as JSON: ingest, recall for a small and a large user, the jobs, size.

Fills one database (an embedded PostgreSQL in a scratch home, or ENGRAIN_DATABASE_URL: use an empty one)
through the real write path — `remember_many`, 1,000 memories a batch, 3 batches in flight — with
`--users` users of `--per-user` memories each and one user of `--big` memories (by default 800 × 1,000
and one of 200,000: 1,000,000 in all), timing the ingest as it goes. Then, as a running server's
autovacuum leaves it (VACUUM ANALYZE), it measures for one small user and for the big one: recall in the
service layer and through an in-process MCP client (p50/p95), after the rows are aged over a year of
use (one UPDATE of every row, timed, with every index in place: the vectors are in their own table, so it
touches no HNSW graph); two `expiry`, `decay` and `digest` passes (the year's backlog, then steady state)
over the whole database through the scheduler, as the server runs them; the database's size; the time to
build the embedder's HNSW index afresh (REINDEX, maintenance_work_mem 1GB, as a restore or a reindex after
a model change builds it); and this process's RSS (the server's, the database apart).

    python bench/scale.py                                  # 1,000,000 memories, hash embedder
    python bench/scale.py --users 80 --big 20000           # a tenth of it
    python bench/scale.py --embedder minilm-int8 --users 40 --big 10000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import psutil
from mcp import Client
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.recall import memory, percentiles, query
from engrain.server.app import create_server
from engrain.server.state import AppState
from engrain.services.memories.requests import RememberRequest
from engrain.services.recall.search import RecallRequest
from engrain.storage.recall import ef_search
from engrain.storage.vector_index import vector_index_name

BATCH = 1000
IN_FLIGHT = 3
BIG = "big-user"
AGE = """
UPDATE memories SET created_at = created_at - d, told_at = told_at - d, updated_at = updated_at - d
FROM (SELECT user_id, id, (abs(hashtext(id::text)) % 365) * interval '1 day' AS d FROM memories) a
WHERE memories.user_id = a.user_id AND memories.id = a.id
"""


def machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30),
        "python": platform.python_version(),
    }


async def ingest(app: AppState, plan: list[tuple[str, int]], progress: bool) -> dict[str, Any]:
    """Store every user's memories with `remember_many`; the rate over the whole load and per tenth of it."""
    batches = [(user, start, min(BATCH, size - start)) for user, size in plan for start in range(0, size, BATCH)]
    total = sum(size for _, size in plan)
    limiter = anyio.Semaphore(IN_FLIGHT)
    done = 0
    marks: list[tuple[int, float]] = []
    started = time.perf_counter()

    async def store(user: str, start: int, n: int) -> None:
        nonlocal done
        async with limiter:
            rng = random.Random(f"{user}:{start}")
            items = [RememberRequest(content=f"{memory(rng, start + i)} [{user} #{start + i}]") for i in range(n)]
            await app.memories.remember_many(user, items)
            done += n
            if not marks or done - marks[-1][0] >= total // 10:
                marks.append((done, time.perf_counter() - started))
                if progress:
                    print(f"ingest: {done:,} of {total:,} in {marks[-1][1]:.0f} s", file=sys.stderr, flush=True)

    async with anyio.create_task_group() as tg:
        for user, start, n in batches:
            tg.start_soon(store, user, start, n)
    elapsed = time.perf_counter() - started
    marks.append((done, elapsed))
    tenths = [
        round((b[0] - a[0]) / (b[1] - a[1]))
        for a, b in zip([(0, 0.0), *marks[:-1]], marks, strict=True)
        if b[1] > a[1] and b[0] > a[0]
    ]
    return {
        "memories": total,
        "seconds": round(elapsed, 1),
        "per_second": round(total / elapsed),
        "per_second_by_tenth": tenths,
    }


async def recall_plan(app: AppState, user: str, q: str, path: str | None) -> dict[str, Any]:
    """How the database runs one recall statement of `user`: whether its vector candidates come from the
    HNSW index, and the statement's own execution time (EXPLAIN ANALYZE on a recall connection); the
    whole plan is written to `path` when given."""
    prepared = await app.recall.prepare(user, RecallRequest(q, track_access=False))
    sql, params = prepared.statement.statement()
    async with (await app.database()).reader.connect() as conn:
        await conn.execute(text("SELECT set_config('hnsw.ef_search', :ef, false)"), {"ef": str(ef_search(50))})
        plan = "\n".join((await conn.execute(text("EXPLAIN (ANALYZE, BUFFERS) " + sql), params)).scalars())
    if path is not None:
        Path(path).write_text(plan)
    executed = [line for line in plan.splitlines() if line.startswith("Execution Time")]
    return {
        "hnsw_index_used": vector_index_name(prepared.statement.embedder_id) in plan,
        "execution": executed[0].split(":", 1)[1].strip() if executed else None,
    }


async def recall_figures(app: AppState, user: str, queries: list[str]) -> dict[str, Any]:
    """Recall for `user` in the service layer and through an in-process MCP client speaking as that user."""
    service = []
    for q in queries:
        t0 = time.perf_counter()
        await app.recall.recall(user, RecallRequest(q, track_access=False))
        service.append(time.perf_counter() - t0)
    # Another server on the same database speaking for `user` (its own pool; the embedded Postgres is this one's).
    url = (await app.database()).engine.url.render_as_string(hide_password=False)
    # Its scheduler is off: the jobs are timed on their own below.
    speaker = AppState(
        app.settings.model_copy(update={"user": user, "database_url": url, "scheduler": "off"}), app.clock
    )
    through_mcp = []
    async with Client(create_server(speaker)) as client:
        await client.call_tool("recall", {"query": "warm-up"})
        for q in queries:
            t0 = time.perf_counter()
            out = await client.call_tool("recall", {"query": q})
            through_mcp.append(time.perf_counter() - t0)
            assert not out.is_error, out.content
    return {"service": percentiles(service), "mcp_in_process": percentiles(through_mcp)}


async def scale(args: argparse.Namespace) -> dict[str, Any]:
    home = scratch_home("engrain-scale-")
    settings = bench_settings(home, args.embedder, user=BIG)
    app = AppState(settings)
    app.start(scheduler_loop=False)
    report: dict[str, Any] = {
        "date": datetime.now(UTC).date().isoformat(),
        "machine": machine(),
        "embedder": args.embedder,
    }
    try:
        model = await app.embeddings.ready()
        db = await app.database()
        plan = [(BIG, args.big)] + [(f"user-{i:04d}", args.per_user) for i in range(args.users)]
        report["ingest"] = await ingest(app, plan, args.progress)
        index = vector_index_name(model.id)
        async with db.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            # A year of use: each memory told and stored up to a year ago, so the jobs have rows that are due.
            t0 = time.perf_counter()
            await conn.execute(text(AGE))
            report["aging_update_s"] = round(time.perf_counter() - t0, 1)
            await conn.execute(text("VACUUM ANALYZE memories"))
            await conn.execute(text("VACUUM ANALYZE memory_vectors"))
            await conn.execute(text("SET maintenance_work_mem = '1GB'"))
            t0 = time.perf_counter()
            await conn.execute(text(f"REINDEX INDEX {index}"))
            report["hnsw_index_build_s"] = round(time.perf_counter() - t0, 1)
        rng = random.Random(7)
        queries = [query(rng) for _ in range(args.queries)]
        report["recall"] = {
            "small_user": {"memories": args.per_user, **await recall_figures(app, "user-0000", queries)},
            "big_user": {"memories": args.big, **await recall_figures(app, BIG, queries)},
        }
        report["recall"]["big_user"]["plan"] = await recall_plan(app, BIG, queries[0], args.explain)
        # The first pass works off the year's backlog at once; a server runs the jobs every interval, so the
        # second pass, right after, is what each pass costs in steady state (the scan, few changes).
        for label in ("jobs_first_pass", "jobs_next_pass"):
            jobs: dict[str, Any] = {}
            for job in ("expiry", "decay", "digest"):
                t0 = time.perf_counter()
                [run] = await app.scheduler.run_many((job,), dry_run=False)
                jobs[f"{job}_s"] = round(time.perf_counter() - t0, 2)
                jobs[f"{job}_status"] = run.status
                jobs[f"{job}_stats"] = run.stats
            report[label] = jobs
        async with db.engine.connect() as conn:
            report["database"] = {
                "size": await conn.scalar(text("SELECT pg_size_pretty(pg_database_size(current_database()))")),
                "memories_table_with_indexes": await conn.scalar(
                    text("SELECT pg_size_pretty(pg_total_relation_size('memories'))")
                ),
                "vectors_table_with_indexes": await conn.scalar(
                    text("SELECT pg_size_pretty(pg_total_relation_size('memory_vectors'))")
                ),
                "hnsw_index": await conn.scalar(
                    text("SELECT pg_size_pretty(pg_relation_size(to_regclass(:n)))"), {"n": index}
                ),
            }
        report["server_rss_mb"] = round(psutil.Process().memory_info().rss / 2**20)
    finally:
        await app.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=800)
    parser.add_argument("--per-user", type=int, default=1000)
    parser.add_argument("--big", type=int, default=200_000)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--progress", action="store_true", help="a line on stderr per tenth of the ingest")
    parser.add_argument("--explain", help="write the big user's recall plan (EXPLAIN ANALYZE) to this file")
    print(json.dumps(anyio.run(scale, parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
