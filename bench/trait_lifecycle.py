"""Do traits survive a real cadence? A synthetic year of weekly sessions (seeded), reflected every three to
five sessions through the host route, the calling model played by a script that reads each task as a model
would: a pattern whose memories it sees reinforces the trait the task lists for it; a pattern with no trait
listed is reported as a new trend, in the next of its wordings (a model rewords what it reports again).

Four real patterns recur at their own rates (climbing weekly, cooking most weeks, reading before bed about
every other week, running now and then) among one-off memories. Prints JSON: per pattern, the traits ever
created for it (1 is the target: more means it was re-created as a twin or after a dissolution), the live
ones at the end (twins: more than 1), the stage it reached, and how many trends dissolved; the machine.

    python bench/trait_lifecycle.py [--weeks 52] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import random
import re
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

START = datetime(2025, 11, 3, 19, 0, tzinfo=UTC)  # a Monday evening
# name: (how often a week, the word that marks its memories and traits, its memories, its wordings as a trait)
PATTERNS: dict[str, tuple[float, str, list[str], list[str]]] = {
    "climbing": (
        1.0,
        "climb",
        [
            "Climbed at the wall on Thursday",
            "Thursday climbing session, sent a new route",
            "Climbed with Jo on Thursday",
        ],
        ["Goes climbing on Thursdays", "Climbs every Thursday evening", "Climbs at the wall on Thursday evenings"],
    ),
    "cooking": (
        0.7,
        "cook",
        ["Cooked dinner at home tonight", "Cooked a big pot of dal for the week", "Cooked risotto for friends"],
        ["Cooks dinner at home most evenings", "Often cooks at home in the evening"],
    ),
    "reading": (
        0.5,
        "read",
        ["Read a chapter before bed", "Read for an hour before bed", "Read in bed until midnight"],
        ["Reads before bed", "Reads a book before going to bed"],
    ),
    "running": (
        0.3,
        "run",
        ["Went for a morning run", "Morning run along the river, 6k", "Ran before work this morning"],
        ["Runs in the morning", "Goes running in the morning before work"],
    ),
}
ONE_OFFS = [
    "Fixed the bathroom tap",
    "Watched a documentary about whales",
    "Bought new headphones",
    "Called the bank about a card",
    "Visited the museum of science",
    "Painted the hallway",
    "Tried a new cafe on Elm Street",
    "Went to a friend's birthday party",
]
_LINE = re.compile(r"^\[(\w+)\] (.*)$")


def week_of(rng: random.Random, week: int) -> list[str]:
    """What the user tells in one week's session."""
    told = [
        memories[(week + i) % len(memories)] + f" (week {week + 1})"
        for i, (rate, _, memories, _) in enumerate(PATTERNS.values())
        if rng.random() < rate
    ]
    return [*told, f"{rng.choice(ONE_OFFS)} (week {week + 1})"]


def play(task: str, reported: dict[str, int]) -> dict[str, Any]:
    """The calling model's answer to a reflection task."""
    lines = [m.groups() for line in task.splitlines() if (m := _LINE.match(line))]
    memories = [(alias, text) for alias, text in lines if alias.startswith("m")]
    traits = [(alias, text) for alias, text in lines if alias.startswith("t")]
    answer: dict[str, Any] = {"new_trends": [], "reinforcements": []}
    for name, (_, word, _, wordings) in PATTERNS.items():
        evidence = [alias for alias, text in memories if word in text.lower()]
        if not evidence:
            continue
        listed = next((alias for alias, text in traits if word in text.lower()), None)
        if listed is not None:
            answer["reinforcements"].append({"trait_id": listed, "new_evidence_ids": evidence, "quality_grade": "C"})
        else:
            wording = wordings[reported.get(name, 0) % len(wordings)]
            reported[name] = reported.get(name, 0) + 1
            answer["new_trends"].append({"content": wording, "evidence_ids": evidence})
    return answer


async def run(weeks: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    clock = {"now": START}
    app = AppState(bench_settings(scratch_home("engrain-lifecycle-"), llm="host"), clock=lambda: clock["now"])
    reported: dict[str, int] = {}
    reflections, next_reflection = 0, rng.randint(3, 5)
    async with Client(create_server(app)) as client:
        for week in range(weeks):
            clock["now"] = START + timedelta(weeks=week)
            for i, text in enumerate(week_of(rng, week)):
                clock["now"] = START + timedelta(weeks=week, minutes=i)
                result = await client.call_tool("remember", {"content": text})
                assert not result.is_error, result.content
            if week + 1 == next_reflection:
                task = (await client.call_tool("reflect", {"force": True})).structured_content or {}
                if task.get("task_id"):
                    answer = play(task["task"], reported)
                    done = await client.call_tool("reflect", {"task_id": task["task_id"], "answer": answer})
                    assert not done.is_error, done.content
                reflections += 1
                next_reflection += rng.randint(3, 5)
        db = await app.database()
        async with db.sessions() as s:
            from sqlalchemy import text

            rows = (
                await s.execute(
                    text(
                        "SELECT content, trait_stage, valid_until IS NULL AS live FROM memories "
                        "WHERE user_id = :u AND kind = 'trait'"
                    ),
                    {"u": app.settings.user},
                )
            ).all()
    await app.close()
    order = ["dissolved", "trend", "candidate", "emerging", "established", "core"]
    patterns: dict[str, Any] = {}
    for name, (_, word, _, _) in PATTERNS.items():
        mine = [r for r in rows if word in r.content.lower()]
        live = [r for r in mine if r.live]
        patterns[name] = {
            "traits_created": len(mine),
            "live": len(live),
            "stage": max((r.trait_stage for r in live), key=order.index, default="none"),
        }
    return {
        "machine": "2 cores, 24 GB, Python 3.11 (hash embedder)",
        "weeks": weeks,
        "reflections": reflections,
        "patterns": patterns,
        "twins": sum(max(0, p["live"] - 1) for p in patterns.values()),
        "recreated": sum(max(0, p["traits_created"] - 1) for p in patterns.values()),
        "established_or_above": sum(p["stage"] in ("established", "core") for p in patterns.values()),
        "trends_dissolved": sum(1 for r in rows if r.trait_stage == "dissolved"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weeks", type=int, default=52)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(json.dumps(anyio.run(run, args.weeks, args.seed), indent=2))


if __name__ == "__main__":
    main()
