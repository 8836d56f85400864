"""Is the profile the standing picture of a person? Issue 42's synthetic person (tests/data/person_fifteen.json:
twelve colloquial sessions over eight months, with a move, a new employer, a new phone and a new gym said in
passing) is told through a real MCP client, as a calling model tells it:

- `host`: each session goes to `ingest_conversation` and the task it returns is answered with the session's
  `extract` (what a calling model extracts: first-person statements, keys where a fact holds one value);
- `rules`: no model at all — each session goes to `ingest_conversation` and the rules keep what they keep.

Then engrain://profile is read and its 15 key facts are looked for: `current` counts a fact shown on a line
of a fact section (not a trait, not "Lately told"), `anywhere` counts it in the text at all; `stale_shown`
lists the replaced values shown on a line no mark ("home replaced by …") says is replaced — none is the
target. Prints JSON.

    python bench/profile_picture.py [--route host|rules|both]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.server.app import create_server
from engrain.server.state import AppState
from engrain.services.recall.search import estimate_tokens

PERSON = Path(__file__).resolve().parents[1] / "tests" / "data" / "person_fifteen.json"
NOT_FACTS = ("traits", "Lately told", "Pinned")  # the sections whose lines are no standing fact


def fact_lines(profile: str) -> list[str]:
    """The lines of the profile's fact sections (a line marked "home replaced by …" still holds the rest of
    what it says: the partner and the daughter of "I live in Manchester with my partner Sam and…")."""
    lines: list[str] = []
    facts = False
    for line in profile.splitlines():
        if line.startswith("## "):
            facts = not any(word in line for word in NOT_FACTS)
        elif facts and line.startswith("- "):
            lines.append(line)
    return lines


def score(profile: str, person: dict[str, Any]) -> dict[str, Any]:
    gold, stale = person["gold"]["present"], person["gold"]["absent"]
    current = "\n".join(fact_lines(profile))
    unmarked = "\n".join(line for line in profile.splitlines() if "replaced by" not in line)
    return {
        "current": sum(fact in current for fact in gold),
        "anywhere": sum(fact in profile for fact in gold),
        "of": len(gold),
        "missing": [fact for fact in gold if fact not in current],
        "stale_shown": [fact for fact in stale if fact in unmarked],
        "tokens": estimate_tokens(profile),
    }


async def tell(route: str, person: dict[str, Any]) -> str:
    """Every session told the way `route` tells it; the profile read at the end."""
    last = datetime.fromisoformat(person["sessions"][-1]["said_at"]) + timedelta(days=1)
    llm = "host" if route == "host" else "none"  # host: no key, the calling model does the reading
    app = AppState(bench_settings(scratch_home("engrain-picture-"), llm=llm), clock=lambda: last)
    async with Client(create_server(app)) as client:
        for n, session in enumerate(person["sessions"]):
            at = datetime.fromisoformat(session["said_at"])
            messages = [
                {**m, "said_at": (at + timedelta(minutes=i)).isoformat()} for i, m in enumerate(session["messages"])
            ]
            out = await client.call_tool("ingest_conversation", {"messages": messages, "session_id": f"s{n + 1}"})
            assert not out.is_error, out.content
            task = out.structured_content or {}
            if route == "host":
                assert task.get("task_id"), f"session {n + 1}: no task on the host route"
                answer = {"memories": session["extract"], "summary": None}
                done = await client.call_tool("ingest_conversation", {"task_id": task["task_id"], "answer": answer})
                assert not done.is_error, done.content
        contents = (await client.read_resource("engrain://profile")).contents[0]
        profile = getattr(contents, "text", "")
    await app.close()
    return profile


async def measure(routes: tuple[str, ...], show: bool = False) -> dict[str, Any]:
    person = json.loads(PERSON.read_text(encoding="utf-8"))
    out: dict[str, Any] = {"machine": "2 cores, 24 GB, Python 3.11 (hash embedder)", "routes": {}}
    for route in routes:
        profile = await tell(route, person)
        out["routes"][route] = score(profile, person)
        if show:
            out["routes"][route]["profile"] = profile.splitlines()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--route", choices=("host", "rules", "both"), default="both")
    parser.add_argument("--show", action="store_true", help="print each route's profile too")
    args = parser.parse_args()
    routes = ("host", "rules") if args.route == "both" else (args.route,)
    print(json.dumps(anyio.run(measure, routes, args.show), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
