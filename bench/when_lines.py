"""What a model reads for a "when…" question (issue 41): the recall line of its evidence, stored two ways.

Each conversation of a LoCoMo-layout file becomes one user, every turn a memory ("Speaker: text"), stored
- `said_at`: told at its session's date (the right way, an import of dated history), or
- `event_time`: the session's date given as when it happened, told now (the way that used to score better).
Every "when…" question (category 2) is recalled, and the line of its evidence turn printed with the answer.
The answers of the synthetic sets are relative to a session ("the day before the fifth session", "the month
after the seventh session"): read into a period, they say whether the line alone gives the date — its
`happened` period meets the answer's and is no finer than it. That is a proxy for a model's reading, which
this machine has no model to run: the lines are printed to be checked by hand.

    python bench/when_lines.py [--data bench/data/synthetic_locomo.json] [--lines]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.types import TextContent

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from bench.quality import session_turns
from engrain.reading.periods import Grain, Period
from engrain.server.app import create_server
from engrain.server.state import AppState

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8}
ANSWER = re.compile(
    r"(?:(?P<n>two|three) (?P<units>days|weeks) |the (?P<unit>day|weekend|week|month|year) )?(?P<dir>before|after)?"
    r"\s*the (?P<nth>\w+) session"
)


def gold(answer: str, sessions: dict[int, datetime]) -> Period | None:
    """The period a synthetic answer names, from its session's date."""
    m = ANSWER.search(answer)
    if m is None or (nth := ORDINALS.get(m["nth"])) is None or nth not in sessions:
        return None
    day = sessions[nth].replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=UTC)
    sign = -1 if m["dir"] == "before" else 1
    if m["n"]:
        count = {"two": 2, "three": 3}[m["n"]] * (7 if m["units"] == "weeks" else 1)
        return Period.containing(day + timedelta(days=sign * count), Grain.DAY)
    unit = m["unit"]
    if unit == "day":
        return Period.containing(day + timedelta(days=sign), Grain.DAY)
    if unit == "weekend":
        saturday = (
            day - timedelta(days=(day.weekday() - 5) % 7 or 7)
            if sign < 0
            else day + timedelta(days=(5 - day.weekday()) % 7 or 7)
        )
        return Period.between(saturday, saturday + timedelta(days=1))
    if unit in ("week", "month", "year"):
        step = {"week": 7, "month": 31, "year": 366}[unit]
        return Period.containing(day + timedelta(days=sign * step), Grain(unit))
    return Period.containing(day, Grain.DAY)


FINER = {"day": 0, "span": 1, "week": 2, "month": 3, "season": 4, "year": 5}


def given_by_line(hit: dict[str, Any], want: Period) -> bool:
    """The line's `happened` meets the answer's period and is no finer than it (a day for a month is not it)."""
    if hit.get("event_time") is None:
        return False
    start = datetime.fromisoformat(hit["event_time"])
    end = datetime.fromisoformat(hit["event_end"]) if hit.get("event_end") else None
    period = Period.stored(start, end, hit.get("event_grain"), UTC)
    assert period is not None
    meets = period.start < want.end and want.start < period.end
    return meets and FINER[str(period.grain)] >= FINER[str(want.grain)]


async def run(data: Path, how: str, show: bool) -> dict[str, Any]:
    samples = json.loads(data.read_text(encoding="utf-8"))
    home = scratch_home("engrain-when-")
    asked = given = in_text = 0
    lines: list[dict[str, str]] = []
    for sample in samples:
        turns = [t for t in session_turns(sample) if t.when is not None]
        sessions: dict[int, datetime] = {}
        for t in turns:
            sessions.setdefault(int(t.dia_id[1:].split(":")[0]), t.when or datetime.now(UTC))
        items = [
            {"content": t.content, "said_at": t.when.isoformat()}
            if how == "said_at"
            else {"content": t.content, "event_time": t.when.date().isoformat()}
            for t in turns
            if t.when is not None
        ]
        settings = bench_settings(home, user=f"when-{sample['sample_id']}-{how}")
        app = AppState(settings, lambda: datetime(2026, 11, 27, 12, tzinfo=UTC))
        async with Client(create_server(app)) as client:
            stored = await client.call_tool("remember_many", {"items": items})
            results = (stored.structured_content or {})["results"]
            ids = {t.dia_id: r["id"] for t, r in zip(turns, results, strict=True)}
            for qa in sample["qa"]:
                if qa.get("category") != 2 or (want := gold(str(qa["answer"]), sessions)) is None:
                    continue
                asked += 1
                found = await client.call_tool("recall", {"query": qa["question"], "limit": 10})
                evidence = {ids.get(e, "") for e in qa["evidence"]}
                hits = [h for h in (found.structured_content or {})["results"] if h["id"] in evidence]
                block = found.content[0]
                text = block.text.splitlines() if isinstance(block, TextContent) else []
                line = next((x for x in text if hits and x.endswith(f"({hits[0]['id'][:8]})")), "")
                in_text += bool(line)
                given += bool(hits) and given_by_line(hits[0], want)
                row = {"question": qa["question"], "answer": str(qa["answer"]), "gold": want.label(UTC), "line": line}
                lines.append(row)
    out: dict[str, Any] = {
        "stored_with": how,
        "when_questions": asked,
        "evidence_line_in_text": in_text,
        "date_given_by_the_line": given,
    }
    if show:
        out["lines"] = lines
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data" / "synthetic_locomo.json")
    parser.add_argument("--lines", action="store_true", help="print every question's evidence line")
    args = parser.parse_args()
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    runs = [anyio.run(run, args.data, how, args.lines) for how in ("said_at", "event_time")]
    print(json.dumps({"machine": machine, "data": args.data.name, "runs": runs}, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
