"""Could a small classifier over a packaged model's sentence vectors read corrections the rules miss? (issue 52)

The rules (reading/leaving.py, reading/changes.py) replace a fact only when a statement says a change of it in
words they know; on batches written after them they reach about half of the corrections. This measures the other
road, a logistic regression over the packaged multilingual encoder's vectors of (fact, later statement), trained on
the dev split of tests/data/corrections.tsv and corrections_in_their_words.tsv and scored on their test split:
- `pairs`: of the held-out pairs, corrections replaced and non-corrections wrongly replaced, at each threshold, and
  the same for the held-out halves of the fifth and sixth batches (written after the rules; the rules: 9/26);
- `other_facts`: of the held-out statements, how many would replace a fact of another attribute among the other
  held-out pairs' facts (a user has many facts; one such is a wrong replacement).
Trained with same-attribute pairs only, nearly every statement "replaces" some other attribute's fact; so each pair
adds five facts of other attributes as negatives (`--negatives`). Needs the `bench` extra (scikit-learn) and the
packaged encoder. Prints JSON.

    python bench/correction_classifier.py [--negatives 5] [--c 10]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression  # pyright: ignore[reportMissingTypeStubs]

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from engrain.providers.embeddings import UniversalSentenceEncoder

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
THRESHOLDS = (0.5, 0.7, 0.9)
LATER_BATCHES = 79  # the last rows of corrections_in_their_words.tsv: the fifth and sixth batches


@dataclass(frozen=True)
class Pair:
    attribute: str
    label: int
    first: str
    second: str
    dev: bool
    later: bool  # of the batches written after the rules


def _pairs() -> list[Pair]:
    out: list[Pair] = []
    for name in ("corrections.tsv", "corrections_in_their_words.tsv"):
        rows = [line.rstrip("\n").split("\t") for line in (DATA / name).open(encoding="utf-8")]
        rows = [r for r in rows if not r[0].startswith("#")]
        for i, (_, label, attribute, first, second, split) in enumerate(rows):
            later = name.startswith("corrections_in") and i >= len(rows) - LATER_BATCHES
            out.append(Pair(attribute, int(label), first, second, split == "dev", later))
    return out


def _features(fact: Any, statement: Any) -> Any:
    return np.hstack([fact * statement, np.abs(fact - statement), statement])


def measure(negatives: int, c: float) -> dict[str, Any]:
    pairs = _pairs()
    encoder = UniversalSentenceEncoder()
    facts = np.array(encoder.embed([p.first for p in pairs]))
    statements = np.array(encoder.embed([p.second for p in pairs]))
    dev = [i for i, p in enumerate(pairs) if p.dev]
    test = [i for i, p in enumerate(pairs) if not p.dev]
    rng = random.Random(0)
    x = [_features(facts[i], statements[i]) for i in dev]
    y = [pairs[i].label for i in dev]
    for i in dev:  # facts of other attributes: what the statement must not replace
        others = [j for j in dev if pairs[j].attribute != pairs[i].attribute]
        for j in rng.sample(others, min(negatives, len(others))):
            x.append(_features(facts[j], statements[i]))
            y.append(0)
    model = LogisticRegression(C=c, max_iter=5000).fit(np.array(x), np.array(y))
    own = model.predict_proba(np.array([_features(facts[i], statements[i]) for i in test]))[:, 1]
    worst_other = [
        max(
            model.predict_proba(
                np.array([_features(facts[j], statements[i]) for j in test if pairs[j].attribute != pairs[i].attribute])
            )[:, 1]
        )
        for i in test
    ]
    result: dict[str, Any] = {"negatives_per_pair": negatives, "c": c, "dev_pairs": len(dev), "test_pairs": len(test)}
    for t in THRESHOLDS:
        hit = [own[k] >= t for k in range(len(test))]
        score = {"corrections": 0, "of_corrections": 0, "wrong": 0, "of_non_corrections": 0}
        later = dict(score)
        for k, i in enumerate(test):
            for bucket in (score, later) if pairs[i].later else (score,):
                bucket["of_corrections" if pairs[i].label else "of_non_corrections"] += 1
                bucket["corrections" if pairs[i].label else "wrong"] += int(hit[k])
        other = sum(w >= t for w in worst_other)
        result[str(t)] = {"pairs": score, "later_batches": later, "other_facts": f"{other}/{len(test)}"}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--negatives", type=int, default=5)
    parser.add_argument("--c", type=float, default=10.0)
    args = parser.parse_args()
    print(json.dumps(measure(args.negatives, args.c), indent=2))


if __name__ == "__main__":
    main()
