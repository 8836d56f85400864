"""What a question that gathers costs (issue 60), as JSON: recall's time and its text's tokens for one user of
`--memories` memories, each question asked both ways in the same run, interleaved — as the tool reads it (a
question that gathers returns 3 × limit rows and the passages of long ones) and with `gather=false` (the ranking
alone, as before).

The memories are the turns of long user–assistant chats (BEAM-500K's layout, `../shared/data/beam-500k/`: read it
from there, never copy it into the project), all told to one user with their sessions' dates, until `--memories`;
the questions are those chats' own. Times are of the service's `recall` (query read, embedded — cached after the
first round —, the one statement, the pieces chosen), `--rounds` rounds; p50 and p95 over every question and
round, for the questions that gather and for all.

    python bench/gathering.py --data ../shared/data/beam-500k/beam500k.locomo.json.gz [--memories 10000]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.quality import load_samples, session_turns
from engrain.reading.asks import asks_to_gather
from engrain.scheduler import jobs
from engrain.server.state import AppState
from engrain.services.memories.requests import RememberRequest
from engrain.services.recall.search import RecallRequest, estimate_tokens

USER = "gathering"
BATCH = 500


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
    }


async def run(data: str, memories: int, embedder: str, rounds: int) -> dict[str, Any]:
    app = AppState(bench_settings(scratch_home("engrain-gathering-"), embedder))
    app.start(scheduler_loop=False)
    try:
        model = await app.embeddings.ready()
        turns, questions = [], []
        for sample in load_samples(data):
            if len(turns) >= memories:
                break
            turns += session_turns(sample)
            questions += [qa["question"] for qa in sample["qa"] if qa.get("question")]
        turns = turns[:memories]
        started = time.perf_counter()
        for at in range(0, len(turns), BATCH):
            await app.memories.remember_many(
                USER,
                [
                    RememberRequest(
                        content=t.content,
                        event_time=t.when.isoformat() if t.when else None,
                        said_at=t.when.isoformat() if t.when else None,
                    )
                    for t in turns[at : at + BATCH]
                ],
            )
        stored_s = time.perf_counter() - started
        started = time.perf_counter()
        await app.reembedding.windows_settled()  # long memories' windows, made in the background after each write
        windows_s = time.perf_counter() - started
        await jobs.expiry(app.job_context, app.clock(), None, False)
        db = await app.database()
        async with db.engine.begin() as conn:
            await conn.execute(text("ANALYZE memories"))
            await conn.execute(text("ANALYZE memory_windows"))
            windows = await conn.scalar(text("SELECT count(*) FROM memory_windows"))
        times: dict[str, list[float]] = {"auto": [], "off": [], "auto_gathering": [], "off_gathering": []}
        tokens: dict[str, list[int]] = {"auto": [], "off": []}
        for n in range(rounds):
            for question in questions:
                gathers = asks_to_gather(question)
                for way, gather in (("auto", None), ("off", False)):
                    began = time.perf_counter()
                    result = await app.recall.recall(USER, RecallRequest(question, track_access=False, gather=gather))
                    spent = time.perf_counter() - began
                    times[way].append(spent)
                    if gathers:
                        times[f"{way}_gathering"].append(spent)
                        if n == 0:
                            tokens[way].append(estimate_tokens(app.recall.text_of(result, False, None)))
    finally:
        await app.close()
    report = {
        "machine": {"cpu": platform.processor() or platform.machine(), "python": platform.python_version()},
        "embedder": model.id,
        "memories": len(turns),
        "questions": len(questions),
        "gathering_questions": sum(asks_to_gather(q) for q in questions),
        "rounds": rounds,
        "stored_per_second": round(len(turns) / stored_s, 1),
        "windows": windows,
        "windows_seconds_after_storing": round(windows_s, 1),
        "recall": {way: percentiles(values) for way, values in times.items() if values},
        "text_tokens_of_gathering_questions": {
            way: {"mean": round(statistics.mean(values), 1), "max": max(values)}
            for way, values in tokens.items()
            if values
        },
    }
    report["p95_ratio_auto_to_off"] = round(report["recall"]["auto"]["p95_ms"] / report["recall"]["off"]["p95_ms"], 3)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    report = anyio.run(lambda: run(args.data, args.memories, args.embedder, args.rounds))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
