"""Corrections said in passing: how often a later statement of a single-valued fact replaces the earlier one
(`remember` through a real MCP client, in process, as a client calls it), on tests/data/corrections.tsv or another
corpus of the same columns (`--corpus`: tests/data/corrections_in_their_words.tsv, issue 52's pairs in the words
people use — "I switched dentists, I now see Dr. Lindqvist" — written and split before its rules).

Each pair is stored in a fresh user, the first then the second, `--days` apart (1); a pair labelled 1 must end
with the first memory superseded by the second, a pair labelled 0 with both live. Prints JSON: precision
and recall of automatic supersede, overall and per language, per split (`dev` may be tuned on, `test` is
held out), how often a pair the rule did not replace was flagged as "may replace" (a correction: good, a
non-correction: a question the model answers for nothing), and the pairs it got wrong on the dev split.

    python bench/corrections.py [--embedder hash] [--split test|dev|all] [--corpus PATH] [--days N]
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

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corrections.tsv"


@dataclass(frozen=True)
class Pair:
    lang: str
    label: bool  # the second replaces the first
    attribute: str  # the single-valued fact the pair is about ("phone", "favourite colour")
    first: str
    second: str
    split: str  # dev (may be tuned on) or test (held out)


def read_pairs(path: Path = PAIRS) -> list[Pair]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            lang, label, attribute, first, second, split = line.split("\t")
            rows.append(Pair(lang, label == "1", attribute, first, second, split))
    return rows


def _scores(results: list[tuple[str, bool, bool]]) -> dict[str, Any]:
    predicted = [r for r in results if r[2]]
    actual = [r for r in results if r[1]]
    right = [r for r in results if r[1] and r[2]]
    return {
        "pairs": len(results),
        "precision": round(len(right) / len(predicted), 3) if predicted else None,
        "recall": round(len(right) / len(actual), 3) if actual else None,
    }


async def _remember(client: Client, **args: str) -> dict[str, Any]:
    result = await client.call_tool("remember", args)
    assert not result.is_error and result.structured_content is not None, result.content
    return result.structured_content


def _flags(flagged: list[tuple[bool, bool, bool]]) -> dict[str, Any]:
    """Where the rule did not replace: how often the result named the first memory as one it may replace."""
    missed = [f for f in flagged if f[0] and not f[1]]
    kept = [f for f in flagged if not f[0] and not f[1]]
    return {
        "corrections_not_replaced": len(missed),
        "flagged_of_those": sum(f[2] for f in missed),
        "non_corrections": len(kept),
        "flagged_of_non_corrections": sum(f[2] for f in kept),
    }


async def measure(
    embedder: str, split: str, home: str | None = None, corpus: Path = PAIRS, days: int = 1
) -> dict[str, Any]:
    now = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    settings = bench_settings(home or scratch_home("engrain-corrections-"), embedder)
    app = AppState(settings, clock=lambda: now)
    results: list[tuple[str, bool, bool]] = []
    flagged: list[tuple[bool, bool, bool]] = []  # (a correction, replaced by the rule, flagged as may-replace)
    misses: list[dict[str, Any]] = []
    said = (now - timedelta(days=days)).isoformat()
    async with Client(create_server(app)) as client:  # through MCP, as a client calls it
        await app.embeddings.ready()  # measured with the model serving (a start answers by words while it loads)
        pairs = [p for p in read_pairs(corpus) if split in ("all", p.split)]
        for pair in pairs:
            lang, label, first, second = pair.lang, pair.label, pair.first, pair.second
            a = await _remember(client, content=first, said_at=said)
            b = await _remember(client, content=second)
            replaced = b["superseded"] == a["id"] and a["id"] != b["id"]
            results.append((lang, label, replaced))
            flagged.append((label, replaced, (b["may_replace"] or {}).get("id") == a["id"]))
            if replaced != label and pair.split == "dev":
                misses.append({"lang": lang, "first": first, "second": second, "want": label, "got": replaced})
            for memory in (b["id"], a["id"]):  # the next pair starts from nothing (forgetting one may take both)
                await client.call_tool("forget", {"memory_id": memory})
    by_lang: dict[str, list[tuple[str, bool, bool]]] = defaultdict(list)
    for r in results:
        by_lang[r[0]].append(r)
    return {
        "embedder": embedder,
        "corpus": corpus.name,
        "days_apart": days,
        "split": split,
        "attributes": len({p.attribute for p in pairs}),
        "corrections": sum(p.label for p in pairs),
        "non_corrections": sum(not p.label for p in pairs),
        "overall": _scores(results),
        "by_language": {lang: _scores(rows) for lang, rows in sorted(by_lang.items())},
        "may_replace": _flags(flagged),
        "dev_misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument("--corpus", type=Path, default=PAIRS)
    parser.add_argument("--days", type=int, default=1, help="days between the first and the second statement")
    args = parser.parse_args()
    result = anyio.run(measure, args.embedder, args.split, None, args.corpus, args.days)
    print(json.dumps(result, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
