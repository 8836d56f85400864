"""How much of a person the profile holds per token: the gold facts of tests/data/ten_sessions.json found in
engrain://profile at several token budgets, as JSON.

The person's ten dated sessions are stored as a calling model extracts them (each item told at its
message's time, through `remember_many`), then the profile is rendered at each budget and the gold facts
(`present`) it holds are counted, with the stale ones (`absent`) that must not appear. The data was written
with the profile, so this shows the budget's shape, not a held-out score.

    python bench/profile_coverage.py
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.server.state import AppState
from engrain.services.memories.requests import RememberRequest
from engrain.services.profile.sections import PROFILE_TOKENS
from engrain.services.recall.search import estimate_tokens

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "ten_sessions.json"
BUDGETS = (100, 150, 250, 400, 600, PROFILE_TOKENS)


async def main() -> None:
    person = json.loads(DATA.read_text(encoding="utf-8"))
    settings = bench_settings(scratch_home("engrain-profile-"))
    app = AppState(settings, clock=lambda: datetime(2026, 11, 23, 12, 0, tzinfo=UTC))
    app.start(scheduler_loop=False)
    gold, stale = person["gold"]["present"], person["gold"]["absent"]
    rows: list[dict[str, Any]] = []
    try:
        for session in person["sessions"]:
            items = [
                RememberRequest(
                    **{k: v for k, v in item.items() if k != "message"},
                    said_at=session["messages"][item["message"] - 1].get("said_at") or session["said_at"],
                )
                for item in session["extract"]
            ]
            await app.memories.remember_many("maya", items)
        for budget in BUDGETS:
            text = await app.profile.profile("maya", budget)
            found = [fact for fact in gold if fact in text]
            rows.append(
                {
                    "budget": budget,
                    "tokens": estimate_tokens(text),
                    "gold_found": len(found),
                    "gold": len(gold),
                    "stale_shown": [fact for fact in stale if fact in text],
                }
            )
    finally:
        await app.close()
    print(json.dumps({"machine": "2 cores, 24 GB, Python 3.11 (hash embedder)", "budgets": rows}, indent=2))


if __name__ == "__main__":
    anyio.run(main)
