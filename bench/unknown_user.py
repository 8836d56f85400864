"""What a user the planner's statistics do not know costs a recall and a remember, as JSON.

PostgreSQL plans each statement on the column statistics ANALYZE gathers; autovacuum refreshes them at most
once a minute, once a tenth of a table changed. Two cases leave a user out of them:
- `--database analyzed` (the default): earlier users were analyzed and all of them are in the statistics
  (up to ~100 users fit); a new user is then estimated at one row.
- `--database new`: nothing was ever analyzed (a new database in its first minute).
One user is then told `--rounds` rounds of the turns of one LoCoMo-layout conversation (480 a round, through
`remember_many`, each round's texts made new), and after each round 20 recalls and 20 one-at-a-time
remembers of that user are timed in the service layer (p50). Autovacuum is off on the two tables, as before
its next round comes. `--hold` holds the lock autovacuum holds on a table it works on (SHARE UPDATE
EXCLUSIVE) while measuring, so that engrain's own refresh of the statistics after writes
(storage/analyze.py) gives up: what the statements alone do. Last, the tables are analyzed and the same
is measured again.

    python bench/unknown_user.py --hold                     # the statements alone, among analyzed users
    python bench/unknown_user.py --database new             # a new database, with engrain's refresh
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.quality import DEFAULT_DATA, session_turns
from bench.scale import machine
from engrain.server.state import AppState
from engrain.services.memories.requests import RememberRequest
from engrain.services.recall.search import RecallRequest

EARLIER_USERS = 3
ASKED = 20
TOLD = 20
NEW_USER = "newcomer"


async def timed(app: AppState, questions: list[str], texts: list[str]) -> dict[str, float]:
    """p50 of the new user's recalls of `questions` and one-at-a-time remembers of `texts`, in ms."""
    recalls, remembers = [], []
    for q in questions:
        started = time.perf_counter()
        await app.recall.recall(NEW_USER, RecallRequest(q, limit=20, track_access=False))
        recalls.append(time.perf_counter() - started)
    for t in texts:
        started = time.perf_counter()
        await app.memories.remember(NEW_USER, RememberRequest(content=t))
        remembers.append(time.perf_counter() - started)
    return {
        "recall_p50_ms": round(statistics.median(recalls) * 1000, 2),
        "remember_p50_ms": round(statistics.median(remembers) * 1000, 2),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    samples = json.loads(Path(args.data).read_text())
    app = AppState(bench_settings(scratch_home("engrain-unknown-user-"), args.embedder))
    app.start(scheduler_loop=False)
    try:
        db = await app.database()
        async with db.engine.begin() as conn:
            for table in ("memories", "memory_vectors"):
                await conn.execute(text(f"ALTER TABLE {table} SET (autovacuum_enabled = off)"))
        if args.database == "analyzed":
            for i, sample in enumerate(samples[1 : 1 + EARLIER_USERS]):
                batch = [RememberRequest(content=t.content) for t in session_turns(sample)]
                await app.memories.remember_many(f"earlier-{i}", batch)
            await app.drain()
            async with db.engine.begin() as conn:
                await conn.execute(text("ANALYZE memories, memory_vectors"))
        turns = session_turns(samples[0])
        questions = [qa["question"] for qa in samples[0]["qa"] if qa.get("question")][:ASKED]
        rounds: list[dict[str, Any]] = []
        told = 0
        for r in range(args.rounds):
            async with db.engine.begin() as holder:
                if args.hold:
                    await holder.execute(text("LOCK TABLE memories, memory_vectors IN SHARE UPDATE EXCLUSIVE MODE"))
                batch = [RememberRequest(content=f"{t.content} ({r})") for t in turns]
                await app.memories.remember_many(NEW_USER, batch)
                told += len(batch)
                figures = await timed(app, questions, [f"{t.content} [{r}]" for t in turns[:TOLD]])
                await app.drain()
            rounds.append({"memories": told + TOLD * (r + 1), **figures})
        async with db.engine.begin() as conn:
            await conn.execute(text("ANALYZE memories, memory_vectors"))
        analyzed = await timed(app, questions, [f"{t.content} [after]" for t in turns[:TOLD]])
    finally:
        await app.close()
    return {"rounds": rounds, "after_analyze": analyzed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--database", choices=("analyzed", "new"), default="analyzed")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hold", action="store_true", help="keep engrain's refresh of the statistics from running")
    args = parser.parse_args()
    report = anyio.run(run, args)
    print(
        json.dumps(
            {
                "database": args.database,
                "hold": args.hold,
                "embedder": args.embedder,
                "machine": machine(),
                **report,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
