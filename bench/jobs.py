"""Time one `expiry` and one `decay` pass over 100,000 memories and 1,000 traits of 100 users.

Seeds an embedded PostgreSQL in a temporary ENGRAIN_HOME (or ENGRAIN_DATABASE_URL, which it
fills: use an empty database) with set-based SQL (memories told when stored, each trait citing five of
its user's memories, so the time gates read real evidence), then runs each job through the scheduler exactly
as the server would, and prints JSON. Target (SPEC §9): ≤ 2 s each on a 2-core machine.

    python bench/jobs.py [--memories 100000] [--traits 1000] [--users 100] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import anyio
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import scratch_home
from engrain.config import Settings
from engrain.server.state import AppState

SEED = """
INSERT INTO memories (id, user_id, kind, content, content_hash, importance, temporality, event_time, created_at,
                      told_at, last_accessed_at, access_count, pinned)
SELECT gen_random_uuid(), 'user-' || (g % :users), (ARRAY['fact', 'episodic', 'procedural'])[1 + g % 3],
       'Memory ' || g || ': ' || (ARRAY['went hiking in the Alps', 'prefers green tea', 'meeting with Dana',
       'dentist appointment', 'deploys on Fridays', 'reads science fiction'])[1 + g % 6],
       md5('m' || g), 1 + g % 10,
       CASE WHEN g % 10 = 0 THEN 'prospective' WHEN g % 4 = 0 THEN 'historical' ELSE 'current' END,
       CASE WHEN g % 10 = 0 THEN CAST(:now AS timestamptz) + (g % 60 - 30) * interval '1 day' END,
       CAST(:now AS timestamptz) - (g % 365) * interval '1 day',
       CAST(:now AS timestamptz) - (g % 365) * interval '1 day',
       CAST(:now AS timestamptz) - (g % 90) * interval '1 day', g % 7, g % 50 = 0
FROM generate_series(1, :memories) g;
INSERT INTO memories (id, user_id, kind, content, content_hash, trait_subtype, trait_stage, trait_confidence,
                      trait_context, trait_reinforcement_count, trait_last_reinforced, trait_window_end, created_at,
                      told_at)
SELECT gen_random_uuid(), 'user-' || (g % :users), 'trait', 'Trait ' || g, md5('t' || g),
       (ARRAY['behavior', 'preference', 'core'])[1 + g % 3],
       (ARRAY['trend', 'candidate', 'emerging', 'established', 'core'])[1 + g % 5], 0.1 + (g % 90) / 100.0,
       'general', g % 6, CAST(:now AS timestamptz) - (g % 200) * interval '1 day',
       CAST(:now AS timestamptz) + (g % 40 - 20) * interval '1 day',
       CAST(:now AS timestamptz) - 200 * interval '1 day', CAST(:now AS timestamptz) - 200 * interval '1 day'
FROM generate_series(1, :traits) g;
-- Each trait cites five of its user's memories (told over the year), so the time gates have evidence to read.
INSERT INTO trait_evidence (user_id, trait_id, memory_id, polarity, quality)
SELECT t.user_id, t.id, m.id, 'supporting', 'C' FROM memories t
JOIN LATERAL (SELECT x.id FROM memories x WHERE x.user_id = t.user_id AND x.kind <> 'trait'
              ORDER BY x.content_hash LIMIT 5) m ON true
WHERE t.kind = 'trait';
ANALYZE memories;
ANALYZE trait_evidence;
"""


async def bench(args: argparse.Namespace) -> dict:
    home = scratch_home("engrain-bench-jobs-")
    settings = Settings(home=Path(home), embedder="hash", scheduler="off", llm="none", fetch_models=False)
    now = datetime.now(UTC)
    timings: dict[str, list[float]] = {"expiry": [], "decay": []}
    stats: dict[str, list[dict]] = {"expiry": [], "decay": []}
    seed_s = 0.0
    for _ in range(args.runs):
        app = AppState(settings, clock=lambda: now)
        app.start(scheduler_loop=False)
        db = await app.database()
        async with db.engine.begin() as conn:
            await conn.execute(text("TRUNCATE memories, memory_history, job_runs CASCADE"))
            started = time.perf_counter()
            for statement in SEED.split(";\n"):
                if statement.strip():
                    await conn.execute(
                        text(statement),
                        {"users": args.users, "memories": args.memories, "traits": args.traits, "now": now},
                    )
            seed_s = time.perf_counter() - started
        for job in ("expiry", "decay"):
            started = time.perf_counter()
            result = await app.scheduler.run(job)
            timings[job].append(time.perf_counter() - started)
            assert result.status == "completed", result.error
            stats[job].append(result.stats)
        await app.close()
    return {
        "memories": args.memories,
        "traits": args.traits,
        "users": args.users,
        "runs": args.runs,
        "cpu_count": os.cpu_count(),
        "seed_s": round(seed_s, 2),
        "expiry_s": {
            "median": round(statistics.median(timings["expiry"]), 3),
            "all": [round(t, 3) for t in timings["expiry"]],
        },
        "decay_s": {
            "median": round(statistics.median(timings["decay"]), 3),
            "all": [round(t, 3) for t in timings["decay"]],
        },
        "last_stats": {job: stats[job][-1] for job in stats},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--traits", type=int, default=1_000)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(anyio.run(bench, args), indent=2))


if __name__ == "__main__":
    main()
