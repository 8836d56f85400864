"""Near-duplicate threshold study: at which cosine is a new memory the same fact as a stored one?

Reads the labelled pairs in tests/data/near_duplicates.tsv (1: the same fact said again, 0: close
wording but a different fact), embeds both sides with each embedder, and prints as JSON, per
embedder, precision and recall of a merge by cosine alone (the SPEC's rule) and by cosine plus the
word rules of `services/duplicates.py`, at each threshold. A merge that joins two different facts
loses one of them, so engrain's gate per model is the lowest with no false merge on this set.

    python bench/near_duplicates.py [--embedder hash] [--embedder minilm-int8]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engrain.providers.embeddings import load, parse_spec
from engrain.reading.duplicates import near_duplicate_threshold, same_fact

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "near_duplicates.tsv"


def read_pairs(path: Path = PAIRS) -> list[tuple[bool, str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, first, second = line.split("\t")
            rows.append((label == "1", first, second))
    return rows


def cosines(embedder_spec: str, pairs: list[tuple[bool, str, str]]) -> tuple[str, list[float]]:
    embedder = load(parse_spec(embedder_spec), Path(tempfile.gettempdir()) / "engrain-bench-models")
    vectors = embedder.embed([text for _, first, second in pairs for text in (first, second)])
    return embedder.id, [
        sum(a * b for a, b in zip(vectors[2 * i], vectors[2 * i + 1], strict=True)) for i in range(len(pairs))
    ]


def scores(labels: list[bool], merged: list[bool], threshold: float) -> dict[str, float]:
    merges = [same for same, merge in zip(labels, merged, strict=True) if merge]
    return {
        "threshold": threshold,
        "merges": len(merges),
        "false_merges": len(merges) - sum(merges),
        "precision": round(sum(merges) / len(merges), 4) if merges else 1.0,
        "recall": round(sum(merges) / sum(labels), 4),
    }


def study(embedder_spec: str) -> dict[str, object]:
    pairs = read_pairs()
    embedder_id, sims = cosines(embedder_spec, pairs)
    labels = [same for same, _, _ in pairs]
    words_agree = [same_fact(second, first) for _, first, second in pairs]

    def cosine_only(t: float) -> dict[str, float]:
        return scores(labels, [sim >= t for sim in sims], t)

    def with_words(t: float) -> dict[str, float]:
        return scores(labels, [sim >= t and ok for sim, ok in zip(sims, words_agree, strict=True)], t)

    gates = [g / 100 for g in range(30, 100)]
    safe = [g for g in gates if with_words(g)["false_merges"] == 0]
    gate = near_duplicate_threshold(embedder_id)
    return {
        "embedder": embedder_id,
        "pairs": {"same_fact": sum(labels), "different_fact": len(labels) - sum(labels)},
        "cosine_only": {"spec_0.95": cosine_only(0.95), "sweep": [cosine_only(t / 100) for t in range(80, 100)]},
        "cosine_and_words": {
            "engrain": with_words(gate),
            "lowest_gate_without_false_merges": safe[0] if safe else None,
            "sweep": [with_words(t / 100) for t in range(30, 100, 5)],
        },
        "missed_restatements_at_engrain_gate": [
            (first, second, round(sim, 4))
            for (same, first, second), sim, ok in zip(pairs, sims, words_agree, strict=True)
            if same and not (sim >= gate and ok)
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--embedder", action="append", help="embedder spec (repeatable); default: hash and the packaged MiniLM"
    )
    args = parser.parse_args()
    specs = args.embedder or ["hash", "minilm-int8"]
    print(json.dumps([study(spec) for spec in specs], indent=2))


if __name__ == "__main__":
    main()
