"""The weight of the host route: the characters a calling model reads (task texts) and writes (answers) when it
does engrain's thinking through tool round trips, per session and per reflection.

Plays the calling model through a real MCP client (in process) on two conversations:
- tests/data/ten_sessions.json: ten dated sessions of one person, each ingested, its extraction answered with
  the data's hand-written extraction, then a reflection asked for and answered (with no new traits);
- bench/data/synthetic_locomo.json (first conversation): each session ingested as the first speaker's user
  turns and the other's assistant turns, the extraction left unanswered (the rules keep the user's
  statements), then a reflection asked for and answered.
Prints JSON: per conversation, the median and total characters of the extraction tasks, extraction answers,
reflection tasks and reflection answers, the number of sessions, and the memories the rules kept.

    python bench/host_route.py
"""

from __future__ import annotations

import json
import statistics
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.server.app import create_server
from engrain.server.state import AppState

ROOT = Path(__file__).resolve().parents[1]
EMPTY = {k: [] for k in ("new_trends", "new_behaviors", "reinforcements", "contradictions", "upgrades", "links")}


async def _call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error and result.structured_content is not None, result.content
    return result.structured_content


def _sessions_locomo() -> list[tuple[str, list[dict[str, str]], dict[str, Any] | None]]:
    conversation = json.loads((ROOT / "bench" / "data" / "synthetic_locomo.json").read_text())[0]["conversation"]
    speaker = conversation["speaker_a"]
    out = []
    n = 1
    while f"session_{n}" in conversation:
        said = datetime.strptime(conversation[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
        turns = [
            {"role": "user" if t["speaker"] == speaker else "assistant", "content": t["text"]}
            for t in conversation[f"session_{n}"]
        ]
        out.append((said.isoformat(), turns, None))
        n += 1
    return out


def _sessions_ten() -> list[tuple[str, list[dict[str, str]], dict[str, Any] | None]]:
    data = json.loads((ROOT / "tests" / "data" / "ten_sessions.json").read_text())
    return [
        (s["said_at"], s["messages"], {"memories": s["extract"], "summary": s["summary"]}) for s in data["sessions"]
    ]


async def play(sessions: list[tuple[str, list[dict[str, str]], dict[str, Any] | None]]) -> dict[str, Any]:
    now = [datetime(2026, 11, 23, 12, 0, tzinfo=UTC)]
    settings = bench_settings(scratch_home("engrain-host-route-"), llm="host")
    app = AppState(settings, clock=lambda: now[0])
    sizes: dict[str, list[int]] = {k: [] for k in ("extraction_task", "extraction_answer", "reflection_task")}
    sizes["reflection_answer"] = []
    kept = 0
    async with Client(create_server(app)) as client:
        for i, (said_at, messages, extraction) in enumerate(sessions):
            now[0] += timedelta(minutes=10)
            sent = await _call(client, "ingest_conversation", messages=messages, said_at=said_at, session_id=f"s{i}")
            sizes["extraction_task"].append(len(sent.get("task") or ""))
            if extraction is not None:
                sizes["extraction_answer"].append(len(json.dumps(extraction, ensure_ascii=False)))
                await _call(client, "ingest_conversation", task_id=sent["task_id"], answer=extraction)
            else:
                kept += len(sent["created"])
            reflection = await _call(client, "reflect", force=True)
            if reflection.get("task"):
                sizes["reflection_task"].append(len(reflection["task"]))
                sizes["reflection_answer"].append(len(json.dumps(EMPTY)))
                await _call(client, "reflect", task_id=reflection["task_id"], answer=EMPTY)
    await app.close()
    return {
        "sessions": len(sessions),
        **{k: {"median": statistics.median(v), "total": sum(v)} for k, v in sizes.items() if v},
        "rule_memories_kept": kept,
    }


async def main() -> None:
    print(
        json.dumps(
            {
                "machine": "2 cores, 24 GB, Python 3.11 (hash embedder)",
                "ten_sessions": await play(_sessions_ten()),
                "synthetic_locomo": await play(_sessions_locomo()),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    anyio.run(main)
