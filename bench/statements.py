"""What ingestion without a model keeps of a user's turns: statements about the user, not replies to the
other speaker ("I totally agree, Melanie.", "I bet they bring lots of joy."), on tests/data/statements.tsv.

Each turn goes through `rule_statements`, as `ingest_conversation` reads a user message when no model
extracts. Prints JSON per split (`dev` may be tuned on, `test` is held out) and per language: of the turns
kept, the share that are about the user (precision); of the turns about the user, the share kept (recall);
of the replies, the share dropped. `--misses` lists the dev split's mistakes.

    python bench/statements.py [--split test|dev|all] [--misses]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engrain.services.memories.ingest import Message, rule_statements

TURNS = Path(__file__).resolve().parents[1] / "tests" / "data" / "statements.tsv"


def read_turns(path: Path = TURNS) -> list[tuple[str, str, bool, str]]:
    """(split, lang, about the user, text) per labelled turn."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith(("#", "split\t")):
            split, lang, label, text = line.split("\t")
            rows.append((split, lang, label == "about", text))
    return rows


def kept(text: str) -> bool:
    return bool(rule_statements([Message(role="user", content=text)]))


def scores(results: list[tuple[bool, bool]]) -> dict[str, Any]:
    """`results`: (about the user, kept) per turn."""
    kept_rows = [r for r in results if r[1]]
    about = [r for r in results if r[0]]
    replies = [r for r in results if not r[0]]
    return {
        "turns": len(results),
        "precision": round(sum(r[0] for r in kept_rows) / len(kept_rows), 3) if kept_rows else None,
        "recall": round(sum(r[1] for r in about) / len(about), 3) if about else None,
        "replies_dropped": round(sum(not r[1] for r in replies) / len(replies), 3) if replies else None,
    }


def measure(split: str) -> dict[str, Any]:
    rows = [r for r in read_turns() if split == "all" or r[0] == split]
    by_lang: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    misses: list[str] = []
    for row_split, lang, about, text in rows:
        keep = kept(text)
        by_lang[lang].append((about, keep))
        if keep != about and row_split == "dev":
            misses.append(f"{'dropped' if about else 'kept'}: {text}")
    everything = [r for results in by_lang.values() for r in results]
    return {
        "split": split,
        "overall": scores(everything),
        "by_language": {lang: scores(results) for lang, results in sorted(by_lang.items())},
        "dev_misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", default="test", choices=("test", "dev", "all"))
    parser.add_argument("--misses", action="store_true", help="list the dev split's mistakes")
    args = parser.parse_args()
    result = measure(args.split)
    if not args.misses:
        result.pop("dev_misses")
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
