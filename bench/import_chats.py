"""How fast a user's chat history comes in (issue 43): a synthetic ChatGPT export (bench/make_chat_export.py:
2,000 conversations, 60,000 messages — 30,000 the user's) imported with `engrain import-chats`'s service into
a fresh embedded database with the default embedder unless told. Prints JSON: wall time (read, and read +
store), messages read per second, memories and the assistant's replies kept and how fast they were stored,
duplicates counted, the planted facts recall finds first with their day, peak RSS, recall p50/p95 afterwards,
and how long the extraction prompts of the pieces queued for a model are (tokens at about four characters);
the machine. One run (the import is a minute long).

    python bench/import_chats.py [--conversations 2000] [--turns 15] [--embedder auto]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.make_chat_export import build
from engrain.reading import chats
from engrain.server.state import AppState
from engrain.services.recall.search import RecallRequest
from engrain.storage.models import ChatImport

NOW = datetime(2025, 1, 10, 12, 0, tzinfo=UTC)


async def run(conversations: int, turns: int, embedder: str) -> dict[str, Any]:
    export, planted = build(conversations, turns, 3)
    path = Path(tempfile.mkdtemp()) / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    started = time.perf_counter()
    found = list(chats.read(path))
    read_s = time.perf_counter() - started
    messages = sum(len(c.messages) for c in found)
    app = AppState(bench_settings(scratch_home("engrain-import-"), embedder), clock=lambda: NOW)
    app.start(scheduler_loop=False)
    try:
        model = (await app.embeddings.ready()).id
        started = time.perf_counter()
        report = await app.chat_import.run("me", found, NOW)
        store_s = time.perf_counter() - started
        hits, latencies = 0, []
        for fact, day in planted:
            t0 = time.perf_counter()
            result = await app.recall.recall("me", RecallRequest(query=fact, limit=5))
            latencies.append((time.perf_counter() - t0) * 1000)
            top = result.results[0] if result.results else None
            hits += top is not None and top.content == fact and top.told_at.date().isoformat() == day
        for query in ("where do I live", "what do I do for work", "allergies", "my dog", "music"):
            t0 = time.perf_counter()
            await app.recall.recall("me", RecallRequest(query=query, limit=10))
            latencies.append((time.perf_counter() - t0) * 1000)
        async with (await app.database()).sessions() as s:
            rows = (await s.execute(select(ChatImport).where(ChatImport.user_id == "me"))).scalars().all()
        prompts = sorted([len((await app.import_queue.shown(row)).prompt.user) // 4 for row in rows])
    finally:
        await app.close()
    latencies.sort()
    return {
        "machine": "2 cores, 24 GB, Python 3.11",
        "embedder": model,
        "conversations": conversations,
        "messages": messages,
        "user_messages": report.messages,
        "read_seconds": round(read_s, 2),
        "import_seconds": round(read_s + store_s, 2),
        "messages_per_second_read": round(messages / read_s),
        "messages_per_second_overall": round(messages / (read_s + store_s)),
        "memories_kept": report.kept,
        "assistant_replies_kept": report.replies,
        "stored_per_second": round((report.kept + report.replies) / store_s),
        "duplicates": report.duplicates,
        "pieces_queued_for_a_model": report.queued,
        "planted_found_first_with_their_day": f"{hits}/{len(planted)}",
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "piece_prompt_tokens": {
            "p50": prompts[len(prompts) // 2],
            "p95": prompts[int(0.95 * (len(prompts) - 1))],
            "max": prompts[-1],
        },
        "recall_ms": {
            "p50": round(statistics.median(latencies), 1),
            "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=15)
    parser.add_argument("--embedder", default="auto")
    args = parser.parse_args()
    print(json.dumps(anyio.run(run, args.conversations, args.turns, args.embedder), indent=2))


if __name__ == "__main__":
    main()
