"""How well the time reader reads dates, temporality and habits: measured on tests/data/time_corpus.tsv.

Each sentence is read as `remember` reads it, told live at its told time (language detection, then
`reading.enrich.enrich`). Printed as JSON, overall, per language and per construct:
- date precision: of the dates the reader gave, the share that are right (a wrong date is worse than none);
- date recall: of the sentences that have a date, the share it dated right;
- temporality accuracy (current / historical / prospective) and recurrence accuracy (a habit or not).

The corpus is split (its last column) into `dev`, which the reader may be improved on, and `test`, which
is held out: misses are listed for the dev split only, so the held-out figures stay a measurement.

    python bench/time_reader.py [--split test|dev|all] [--misses]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engrain.reading.enrich import enrich
from engrain.text.languages import detect

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "time_corpus.tsv"


@dataclass(frozen=True)
class Sentence:
    lang: str
    construct: str
    told_at: datetime
    text: str
    temporality: str
    habit: bool
    date: str  # alternatives split by "|": a day, a range "a..b", or "-" for no date
    split: str

    def accepts(self, day: date | None) -> bool:
        """Whether the reader's day (None: no date) is one of the labelled answers."""
        for option in self.date.split("|"):
            if option == "-":
                if day is None:
                    return True
            elif day is not None:
                first, _, last = option.partition("..")
                if date.fromisoformat(first) <= day <= date.fromisoformat(last or first):
                    return True
        return False

    @property
    def dated(self) -> bool:
        """The sentence has a date the reader should find (no "-" among its answers)."""
        return "-" not in self.date.split("|")


def read_corpus(path: Path = CORPUS) -> list[Sentence]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            lang, construct, told, text, temporality, habit, day, split = line.split("\t")
            rows.append(
                Sentence(lang, construct, datetime.fromisoformat(told), text, temporality, habit == "1", day, split)
            )
    return rows


@dataclass(frozen=True)
class Reading:
    sentence: Sentence
    day: date | None
    temporality: str
    habit: bool

    @property
    def date_right(self) -> bool:
        return self.day is not None and self.sentence.accepts(self.day)


def read(sentence: Sentence) -> Reading:
    info = enrich(sentence.text, sentence.told_at, UTC, lang=detect(sentence.text))
    day = info.event_time.astimezone(UTC).date() if info.event_time else None
    return Reading(sentence, day, info.temporality, info.recurrence is not None)


def _ratio(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def score(readings: list[Reading]) -> dict[str, Any]:
    given = [r for r in readings if r.day is not None]
    dated = [r for r in readings if r.sentence.dated]
    return {
        "sentences": len(readings),
        "date_precision": _ratio(sum(r.date_right for r in given), len(given)),
        "date_recall": _ratio(sum(r.date_right for r in dated), len(dated)),
        "temporality_accuracy": _ratio(sum(r.temporality == r.sentence.temporality for r in readings), len(readings)),
        "recurrence_accuracy": _ratio(sum(r.habit == r.sentence.habit for r in readings), len(readings)),
    }


def miss(r: Reading) -> dict[str, Any] | None:
    s = r.sentence
    wrong = []
    if not s.accepts(r.day):
        wrong.append(f"date {r.day or '-'} (want {s.date})")
    if r.temporality != s.temporality:
        wrong.append(f"temporality {r.temporality} (want {s.temporality})")
    if r.habit != s.habit:
        wrong.append(f"habit {r.habit} (want {s.habit})")
    return {"lang": s.lang, "told": s.told_at.date().isoformat(), "text": s.text, "wrong": wrong} if wrong else None


def measure(split: str, path: Path = CORPUS) -> dict[str, Any]:
    readings = [read(s) for s in read_corpus(path) if split in ("all", s.split)]
    groups: dict[str, dict[str, list[Reading]]] = {"language": defaultdict(list), "construct": defaultdict(list)}
    for r in readings:
        groups["language"][r.sentence.lang].append(r)
        groups["construct"][r.sentence.construct].append(r)
    return {
        "split": split,
        "overall": score(readings),
        **{f"by_{name}": {k: score(v) for k, v in sorted(g.items())} for name, g in groups.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument("--misses", action="store_true", help="list what the reader got wrong (dev split only)")
    args = parser.parse_args()
    out = measure(args.split)
    if args.misses:
        if args.split != "dev":
            parser.error("--misses lists the dev split only: the test split is held out")
        out["misses"] = [m for s in read_corpus() if s.split == "dev" and (m := miss(read(s))) is not None]
    print(json.dumps(out, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
