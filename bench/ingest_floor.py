"""Where batched ingest's time goes in a large database, as JSON: the rate with every index, without the
HNSW graph, and without the full-text index too, and the reading of the texts alone.

Fills one database as `bench/scale.py` does (`remember_many`, 1,000 memories a batch, 3 in flight;
by default 700 users × 1,000 and one of 200,000: 900,000 memories), then stores `--batches` more batches
of new users the same way three times: as the database is; after dropping the embedder's HNSW index;
after dropping the full-text GIN index as well. Apart, the enrichment of the same texts (language, dates,
kind: the CPU work `remember_many` does before it writes) is timed alone. Each rate is memories a second.

    python bench/ingest_floor.py                          # 900,000, hash
    python bench/ingest_floor.py --users 80 --big 20000   # a tenth
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.recall import memory
from bench.scale import BATCH, BIG, ingest, machine
from engrain.reading.enrich import enrich
from engrain.server.state import AppState
from engrain.storage.vector_index import vector_index_name
from engrain.text.languages import detect

FULL_TEXT_INDEX = "ix_memories_tsv"


async def rate(app: AppState, label: str, batches: int) -> float:
    """Memories a second for `batches` batches of new users, stored as the fill stores them."""
    plan = [(f"{label}-{i:03d}", BATCH) for i in range(batches)]
    return float((await ingest(app, plan, progress=False))["per_second"])


def reading_rate(batches: int) -> float:
    """Memories a second for the enrichment alone of texts like the fill's, on one core."""
    rng, now = random.Random(11), datetime.now(UTC)
    texts = [f"{memory(rng, i)} [reading #{i}]" for i in range(batches * BATCH)]
    started = time.perf_counter()
    for t in texts:
        enrich(t, now, None, lang=detect(t))
    return round(len(texts) / (time.perf_counter() - started))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    app = AppState(bench_settings(scratch_home("engrain-ingest-floor-"), args.embedder, user=BIG))
    app.start(scheduler_loop=False)
    try:
        model = await app.embeddings.ready()
        db = await app.database()
        plan = [(BIG, args.big)] + [(f"user-{i:04d}", args.per_user) for i in range(args.users)]
        fill = await ingest(app, plan, args.progress)
        async with db.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("VACUUM ANALYZE memories, memory_vectors"))
        rates = {"as_is": await rate(app, "as-is", args.batches)}
        async with db.engine.begin() as conn:
            await conn.execute(text(f"DROP INDEX {vector_index_name(model.id)}"))
        rates["without_hnsw"] = await rate(app, "no-hnsw", args.batches)
        async with db.engine.begin() as conn:
            await conn.execute(text(f"DROP INDEX {FULL_TEXT_INDEX}"))
        rates["without_hnsw_and_full_text"] = await rate(app, "no-gin", args.batches)
    finally:
        await app.close()
    return {
        "fill": fill,
        "per_second": rates,
        "reading_alone_per_second": await anyio.to_thread.run_sync(reading_rate, args.batches),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=700)
    parser.add_argument("--per-user", type=int, default=1000)
    parser.add_argument("--big", type=int, default=200_000)
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args()
    report = anyio.run(run, args)
    print(json.dumps({"embedder": args.embedder, "machine": machine(), **report}, indent=2))


if __name__ == "__main__":
    main()
