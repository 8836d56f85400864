"""How well the time reader reads dates, temporality and habits: measured on tests/data/time_corpus.tsv.

Each sentence is read as `remember` reads it, told live at its told time (language detection, then
`reading.enrich.enrich`). Printed as JSON, overall, per language and per construct:
- date precision: of the dates the reader gave, the share that are right (a wrong date is worse than none);
- date recall: of the sentences that have a date, the share it dated right;
- temporality accuracy (current / historical / prospective) and recurrence accuracy (a habit or not);
- per grain (the `grain` column: how precise the words are), period precision — right and no finer than the
  words — and false days (a day given for a month, a week, a year…).

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
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engrain.reading.enrich import enrich
from engrain.reading.periods import Period
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
    grain: str  # how precise the words are: day, week, month, season, year, span, or "-"

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
            lang, construct, told, text, temporality, habit, day, split, grain = line.split("\t")
            told_at = datetime.fromisoformat(told)
            rows.append(Sentence(lang, construct, told_at, text, temporality, habit == "1", day, split, grain))
    return rows


# From finest to coarsest: a period finer than the words is false precision.
FINENESS = {"day": 0, "span": 1, "week": 2, "month": 3, "season": 4, "year": 5}


@dataclass(frozen=True)
class Reading:
    sentence: Sentence
    period: Period | None
    temporality: str
    habit: bool

    @property
    def day(self) -> date | None:
        """The day the period holds that the labels accept, else its first (None: no period)."""
        if self.period is None:
            return None
        first, last = self.period.start.date(), (self.period.end - timedelta(microseconds=1)).date()
        days = [first + timedelta(days=i) for i in range(min((last - first).days + 1, 400))]
        return next((d for d in days if self.sentence.accepts(d)), first)

    @property
    def date_right(self) -> bool:
        return self.day is not None and self.sentence.accepts(self.day)

    @property
    def period_right(self) -> bool:
        """The period meets the labelled date and is no finer than the words."""
        label = FINENESS.get(self.sentence.grain)
        return (
            self.date_right and self.period is not None and (label is None or FINENESS[str(self.period.grain)] >= label)
        )


def read(sentence: Sentence) -> Reading:
    info = enrich(sentence.text, sentence.told_at, UTC, lang=detect(sentence.text))
    return Reading(
        sentence, info.event.local(UTC) if info.event else None, info.temporality, info.recurrence is not None
    )


def _ratio(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def by_grain(readings: list[Reading]) -> dict[str, Any]:
    """Per labelled grain: period precision (of the periods given, right and no finer than the words), how
    many were given, and the false days (one day given where the words give less)."""
    out: dict[str, Any] = {}
    for grain in FINENESS:
        labelled = [r for r in readings if r.sentence.grain == grain]
        given = [r for r in labelled if r.period is not None]
        out[grain] = {
            "sentences": len(labelled),
            "period_precision": _ratio(sum(r.period_right for r in given), len(given)),
            "false_days": sum(r.period is not None and str(r.period.grain) == "day" and grain != "day" for r in given),
        }
    return out


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
        "by_grain": by_grain(readings),
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
