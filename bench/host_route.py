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

With `--data` it replays one chat of a LoCoMo-layout file instead (the BEAM-500K development set,
../shared/data/beam-500k/beam500k.locomo.json.gz): each session ingested through `ingest_conversation` as user and
assistant turns told at the session's date, the extraction answered by a script (the first sentence of up to
25 user messages); `reflect` called only when a result
says a reflection is due, its task answered by a simple scripted model (below). Prints the task characters the
calling model reads per session (median, p90, total, and each session's), the reflections due and done, and the
session (and its date) in which a trait first became established and core.

    python bench/host_route.py
    python bench/host_route.py --data ../shared/data/beam-500k/beam500k.locomo.json.gz --chat beam-1 [--sessions 10]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.quality import load_samples
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


_LINE = re.compile(r"^\[(\w+)\] (.*)$")
_WORD = re.compile(r"[a-z]{6,}")
# Words too common in any chat to make a pattern of.
_COMMON = frozenset(
    [
        "should",
        "really",
        "something",
        "because",
        "working",
        "trying",
        "better",
        "thinking",
        "without",
        "another",
        "before",
        "little",
        "things",
        "through",
        "having",
        "around",
        "making",
        "getting",
        "project",
        "wanted",
        "please",
        "thanks",
    ]
)


def scripted_answer(task: str) -> dict[str, Any]:
    """A simple calling model: a trait listed in the task ("Often talks about X") is reinforced (grade C) by the
    new memories that mention X; a word of six letters or more that three new memories mention, with no trait
    for it yet, becomes a new trend (at most three a task). Never an upgrade: core comes from confidence alone if
    at all."""
    lines = [m.groups() for line in task.splitlines() if (m := _LINE.match(line))]
    memories = [(alias, set(_WORD.findall(text.lower())) - _COMMON) for alias, text in lines if alias[0] == "m"]
    traits = [(alias, text.rsplit(" ", 1)[-1].strip("»").lower()) for alias, text in lines if alias[0] == "t"]
    answer: dict[str, Any] = {"new_trends": [], "reinforcements": []}
    for alias, word in traits:
        if evidence := [m for m, words in memories if word in words][:5]:
            answer["reinforcements"].append({"trait_id": alias, "new_evidence_ids": evidence, "quality_grade": "C"})
    known = {word for _, word in traits}
    counts: dict[str, list[str]] = {}
    for alias, words in memories:
        for word in words - known:
            counts.setdefault(word, []).append(alias)
    frequent = sorted((w for w, a in counts.items() if len(a) >= 3), key=lambda w: (-len(counts[w]), w))
    for word in frequent[:3]:
        answer["new_trends"].append({"content": f"Often talks about {word}", "evidence_ids": counts[word][:5]})
    return answer


def scripted_extraction(messages: list[dict[str, str]], most: int = 25) -> dict[str, Any]:
    """A simple extraction: the first sentence (at most 200 characters) of each user message that states
    something, at most `most` of them, each naming its message."""
    memories: list[dict[str, Any]] = []
    for n, m in enumerate(messages, 1):
        first = re.split(r"(?<=[.!?])\s|\n", m["content"].strip(), maxsplit=1)[0][:200]
        if m["role"] == "user" and len(first.split()) >= 4 and not first.endswith("?") and len(memories) < most:
            memories.append({"content": first, "message": n})
    return {"memories": memories, "summary": ""}


def _sessions_data(path: str, chat: str, limit: int | None) -> list[tuple[str, list[dict[str, str]]]]:
    sample = next(s for s in load_samples(path) if s["sample_id"] == chat)
    conversation = sample["conversation"]
    out: list[tuple[str, list[dict[str, str]]]] = []
    n = 1
    while f"session_{n}" in conversation and (limit is None or n <= limit):
        said = datetime.strptime(conversation[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
        turns = [
            {"role": "user" if t["role"] == "user" else "assistant", "content": t["text"][:8000]}
            for t in conversation[f"session_{n}"]
            if t["text"].strip()
        ]
        out.append((said.isoformat(), turns))
        n += 1
    return out


def _parts(messages: list[dict[str, str]], most: int = 150_000) -> list[list[dict[str, str]]]:
    parts: list[list[dict[str, str]]] = [[]]
    size = 0
    for m in messages:
        if parts[-1] and size + len(m["content"]) > most:
            parts.append([])
            size = 0
        parts[-1].append(m)
        size += len(m["content"])
    return parts


def _percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _stages(app: AppState) -> set[str]:
    from sqlalchemy import text

    async with (await app.database()).sessions() as s:
        rows = await s.execute(
            text(
                "SELECT DISTINCT trait_stage FROM memories"
                " WHERE user_id = :u AND kind = 'trait' AND valid_until IS NULL"
            ),
            {"u": app.settings.user},
        )
        return {r[0] for r in rows}


async def replay(sessions: list[tuple[str, list[dict[str, str]]]]) -> dict[str, Any]:
    """One chat, sessions in order; reflect only when a result says it is due."""
    now = [datetime(2026, 11, 23, 12, 0, tzinfo=UTC)]
    app = AppState(bench_settings(scratch_home("engrain-host-replay-"), llm="host"), clock=lambda: now[0])
    per_session: list[int] = []
    due = done = largest = 0
    first: dict[str, str] = {}
    async with Client(create_server(app)) as client:
        for i, (said_at, messages) in enumerate(sessions):
            now[0] += timedelta(minutes=10)
            chars = 0
            for part in _parts(messages):  # a session over the tool's 200,000 characters goes in parts
                result = await client.call_tool(
                    "ingest_conversation", {"messages": part, "said_at": said_at, "session_id": f"s{i + 1}"}
                )
                assert not result.is_error and result.structured_content is not None, result.content
                sent = result.structured_content
                chars += len(sent.get("task") or "")
                if sent.get("task_id"):
                    result = await client.call_tool(
                        "ingest_conversation", {"task_id": sent["task_id"], "answer": scripted_extraction(part)}
                    )
                    assert not result.is_error, result.content
                said = " ".join(getattr(c, "text", "") for c in result.content)
                if "Reflection due" in said or "reflection task waits" in said:
                    due += 1
                    reflection = await _call(client, "reflect")
                    while reflection.get("task_id"):
                        chars += len(reflection["task"])
                        largest = max(largest, len(reflection["task"]))
                        review = '"decisions"' in reflection["task"][-300:]
                        answer = {"decisions": []} if review else scripted_answer(reflection["task"])
                        reflection = await _call(client, "reflect", task_id=reflection["task_id"], answer=answer)
                        done += 0 if review else 1
                        if not reflection.get("task_id") and reflection.get("memories_pending"):
                            # A task shows what fits planning.MEMORY_CHARS: the rest of the due ones next.
                            reflection = await _call(client, "reflect")
            per_session.append(chars)
            for stage in ("established", "core"):
                if stage not in first and stage in await _stages(app):
                    first[stage] = f"session {i + 1} ({said_at[:10]})"
    await app.close()
    return {
        "sessions": len(sessions),
        "task_chars_per_session": {
            "median": statistics.median(per_session),
            "p90": _percentile(per_session, 0.9),
            "total": sum(per_session),
            "each": per_session,
        },
        "reflections_due": due,
        "reflections_done": done,
        "largest_reflection_task": largest,
        "first_established": first.get("established", "never"),
        "first_core": first.get("core", "never"),
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


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="a LoCoMo-layout file (.json or .json.gz) to replay one chat of")
    parser.add_argument("--chat", default="beam-1", help="its sample_id")
    parser.add_argument("--sessions", type=int, default=None, help="only the first N sessions")
    args = parser.parse_args()
    if args.data is None:
        anyio.run(main)
        return
    played = anyio.run(replay, _sessions_data(args.data, args.chat, args.sessions))
    print(json.dumps({"machine": "2 cores, 24 GB, Python 3.11 (hash embedder)", "chat": args.chat, **played}, indent=2))


if __name__ == "__main__":
    cli()
