"""Secrets found and look-alikes kept: reading/redaction.py on tests/data/secrets.tsv (written by
bench/make_secret_corpus.py).

A secret sentence counts as found when its secret is gone from the redacted text, every character of it.
Each placeholder put in is a finding: it is right when it stands where (part of) the secret stood, wrong
otherwise (in a look-alike, or beside the secret). Prints JSON: recall and precision overall, per language
and per split (`dev` may be tuned on, `test` is held out), findings per kind, and every miss and false
finding of the dev split (the test split's are only counted). `--kinds` adds the figures per kind of row (a
look-alike's kind starts with "not:"); `--from-row N` measures the rows from the Nth on (one batch: 490 is where
the identity numbers said another way begin).

    python bench/redaction.py [--mode secrets|secrets+contact] [--split dev|test|all] [--kinds] [--from-row N]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engrain.config import RedactMode
from engrain.reading.redaction import redact

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "secrets.tsv"


def read_corpus(path: Path = CORPUS) -> list[dict[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            lang, kind, split, secret, sentence = line.split("\t")
            sentence = sentence.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
            rows.append(
                {
                    "lang": lang,
                    "kind": kind,
                    "split": split,
                    "secret": secret.replace("\\n", "\n"),
                    "sentence": sentence,
                }
            )
    return rows


def judge(row: dict[str, str], mode: RedactMode = "secrets") -> tuple[bool | None, int, int]:
    """(found: the secret is gone, or None for a look-alike; right findings; wrong findings)."""
    done = redact(row["sentence"], mode)
    secret = row["secret"]
    if not secret:
        return None, 0, done.count
    found = secret not in done.text and not any(part in done.text for part in _pieces(secret))
    # The text around the secret is kept: a placeholder outside it is a wrong finding.
    before, _, _after = row["sentence"].partition(secret)
    right = done.count if done.text.startswith(before[: max(0, len(before) - 1)]) else 0
    return found, min(right, 1), done.count - min(right, 1)


def _pieces(secret: str) -> list[str]:
    """Runs of the secret long enough to be a leak (a PEM body's lines, a long token's halves)."""
    return [line for line in secret.split("\n") if len(line) >= 12 and "-----" not in line]


def measure(rows: list[dict[str, str]], mode: RedactMode = "secrets", kinds: bool = False) -> dict[str, Any]:
    stats: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    misses: list[dict[str, str]] = []
    for row in rows:
        found, right, wrong = judge(row, mode)
        for key in ("all", row["lang"], row["split"], *((f"kind {row['kind']} {row['split']}",) if kinds else ())):
            s = stats[key]
            if found is not None:
                s["secrets"] += 1
                s["found"] += int(found)
            else:
                s["look_alikes"] += 1
                s["look_alikes_changed"] += int(wrong > 0)
            s["right"] += right
            s["wrong"] += wrong
        if (found is False or wrong) and row["split"] == "dev":
            misses.append(
                {
                    "lang": row["lang"],
                    "kind": row["kind"],
                    "sentence": row["sentence"][:160],
                    "redacted": redact(row["sentence"], mode).text[:160],
                }
            )  # type: ignore[arg-type]
    report: dict[str, Any] = {}
    for key, s in sorted(stats.items()):
        findings = s["right"] + s["wrong"]
        report[key] = {
            "recall": round(s["found"] / s["secrets"], 4) if s["secrets"] else None,
            "precision": round(s["right"] / findings, 4) if findings else None,
            "secrets": s["secrets"],
            "look_alikes": s["look_alikes"],
            "look_alikes_changed": s["look_alikes_changed"],
        }
    return {"figures": report, "dev_errors": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", default="secrets", choices=["secrets", "secrets+contact"])
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"])
    parser.add_argument("--kinds", action="store_true", help="figures per kind of row and split too")
    parser.add_argument("--from-row", type=int, default=0, help="only the rows from this one on (0: all)")
    args = parser.parse_args()
    rows = [r for r in read_corpus()[args.from_row :] if args.split in ("all", r["split"])]
    out = measure(rows, cast(RedactMode, args.mode), args.kinds)
    out["corpus"] = {
        "sentences": len(rows),
        "secrets": sum(1 for r in rows if r["secret"]),
        "kinds": len({r["kind"] for r in rows if r["secret"]}),
        "languages": sorted({r["lang"] for r in rows}),
    }
    out["machine"] = f"{platform.machine()}, Python {platform.python_version()}"
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
