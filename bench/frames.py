"""Statements that are not the user stating a fact — a request to the assistant, someone else's words, a quote, a
story, a hypothetical — must end none of the user's facts (issue 61), while real corrections said with words that
look like a frame ("Long story short, I live in Denver now", "Remember that I work at Stripe now") still do.

On tests/data/frames.tsv: each row's fact is told a day before its statement, in a fresh user, through `remember` in
a real MCP client (as a client calls it). A `keep` row must end with the fact live, not superseded and not named as
one the statement may replace, and the statement stored; an `apply` row (a control) must end with the fact replaced
by the statement or named as one it may replace. Prints JSON per split (`dev` may be tuned on, `test` is held out)
and per frame; `--misses` lists the dev split's mistakes (never the held-out split's).

    python bench/frames.py [--embedder hash] [--split test|dev|all] [--misses]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.server.app import create_server
from engrain.server.state import AppState

ROWS = Path(__file__).resolve().parents[1] / "tests" / "data" / "frames.tsv"


@dataclass(frozen=True)
class Row:
    split: str
    frame: str  # request, reported, fiction, quote, self (the user's own non-assertion) or control
    attribute: str
    first: str
    second: str
    keep: bool  # the statement must end nothing (else: a control that must replace or name the fact)


def read_rows(path: Path = ROWS) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            split, frame, attribute, first, second, expected = line.split("\t")
            rows.append(Row(split, frame, attribute, first, second, expected == "keep"))
    return rows


async def _remember(client: Client, **args: str) -> dict[str, Any]:
    result = await client.call_tool("remember", args)
    assert not result.is_error and result.structured_content is not None, result.content
    return result.structured_content


async def measure(embedder: str, split: str, misses: bool, home: str | None = None) -> dict[str, Any]:
    now = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    settings = bench_settings(home or scratch_home("engrain-frames-"), embedder)
    app = AppState(settings, clock=lambda: now)
    said = (now - timedelta(days=1)).isoformat()
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    wrong: list[dict[str, Any]] = []
    async with Client(create_server(app)) as client:
        await app.embeddings.ready()
        for row in (r for r in read_rows() if split in ("all", r.split)):
            a = await _remember(client, content=row.first, said_at=said)
            b = await _remember(client, content=row.second)
            replaced = b["superseded"] == a["id"] and a["id"] != b["id"]
            named = (b["may_replace"] or {}).get("id") == a["id"]
            right = (not replaced and not named and b["status"] == "created") if row.keep else (replaced or named)
            tally = counts[row.split][row.frame]
            tally[0] += right
            tally[1] += 1
            if not right and misses and row.split == "dev":
                wrong.append({"frame": row.frame, "first": row.first, "second": row.second, "replaced": replaced})
            for memory in (b["id"], a["id"]):
                await client.call_tool("forget", {"memory_id": memory})
    out: dict[str, Any] = {"embedder": embedder}
    for part, frames in sorted(counts.items()):
        kept = [t for f, t in frames.items() if f != "control"]
        out[part] = {
            "framed_kept": f"{sum(t[0] for t in kept)}/{sum(t[1] for t in kept)}",
            "controls_applied": f"{frames['control'][0]}/{frames['control'][1]}",
            "by_frame": {f: f"{t[0]}/{t[1]}" for f, t in sorted(frames.items())},
        }
    if misses:
        out["dev_misses"] = wrong
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument("--misses", action="store_true", help="list the dev split's mistakes")
    args = parser.parse_args()
    print(json.dumps(anyio.run(measure, args.embedder, args.split, args.misses), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
