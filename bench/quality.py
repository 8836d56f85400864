"""Retrieval quality on long conversations in the LoCoMo JSON layout, against two baselines.

Each conversation becomes one user; every turn is stored as a memory ("Speaker: text", the session
date as event_time, the dia_id in metadata) with batched `remember_many`; then the scheduler's
expiry job runs (plans whose date passed become historical, as the bundled scheduler makes them
between sessions; `--no-expiry` skips it); `--told` also tells each turn at its session's date
(`said_at`), as an import of dated history would and the table is ANALYZEd, as autovacuum would on a
running server (recall's word rarity reads those statistics). Every question goes
through `recall`; a question is a hit at k when an evidence turn is among the first k results
(any-hit) or when all of them are (all-hit). The same turns are also ranked by plain BM25
(rank-bm25, over the words engrain's index sees: jieba's for Chinese) and by vector similarity alone
(the same embedder), so gains are measured, not claimed. A CJK set also gets BM25 over character
pairs (`bm25_bigrams`), the usual baseline for Chinese retrieval.
A result is a distinct text: engrain stores a turn said word for word several times once, and the
baselines' identical turns (equal scores) are likewise one result standing for all their dia_ids,
so k counts results for every system alike.

    python bench/quality.py [--data bench/data/synthetic_locomo.json] [--embedder auto] [--details]
    python bench/quality.py --data bench/data/synthetic_locomo_zh.json --embedder hash
    python bench/quality.py --data ../shared/data/beam-500k/beam500k.locomo.json.gz --told   # long assistant chats

A `.json.gz` file is read as well. A turn longer than the longest memory (8,000 characters: BEAM has such
assistant replies) is split at paragraph, then sentence, boundaries into pieces that each stand for its
dia_id, for engrain and the baselines alike. The report gives, per kind of question and overall, any@k and
all@k of every system, recall p50/p95, and how fast the turns were stored, as JSON on stdout and as a table
side by side on stderr; `--samples N` takes the first N conversations only.

`--details` adds every question with the rank of its first evidence hit in each system and
engrain's first three results: where a figure moves, this says which questions moved it.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.reading.inputs import MAX_CONTENT_CHARS
from engrain.scheduler import jobs
from engrain.server.state import AppState
from engrain.services.memories.requests import RememberRequest
from engrain.services.recall.search import RecallRequest, estimate_tokens
from engrain.services.recall.text import render
from engrain.text.fulltext import bigram_words, words_of
from engrain.text.languages import cjk_language, detect
from engrain.text.quoting import inline

KS = (1, 5, 10, 20)
DEFAULT_DATA = Path(__file__).parent / "data" / "synthetic_locomo.json"
# 6 is ours, not LoCoMo's: a single-hop question that shares no word with its evidence (the Chinese set's
# paraphrases, as held-out conversations ask them), reported apart so the LoCoMo categories stay comparable.
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
    6: "single-hop paraphrase",
}
_TOKEN = re.compile(r"\w+")


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    when: datetime | None

    @property
    def content(self) -> str:
        return f"{self.speaker}: {self.text}"


PIECE = MAX_CONTENT_CHARS - 200  # room for the speaker's name


def pieces(text: str, size: int = PIECE) -> list[str]:
    """`text` cut into pieces of at most `size` characters, at a paragraph's end where one falls inside the
    piece, else at a sentence's, else at a space."""
    out: list[str] = []
    while len(text) > size:
        window = text[:size]
        cut = max(window.rfind("\n\n"), 0) or max(window.rfind(". "), 0) or max(window.rfind(" "), 0) or size
        out.append(text[: cut + 1].strip())
        text = text[cut + 1 :]
    return [*out, text.strip()] if text.strip() else out


def session_turns(sample: dict[str, Any]) -> list[Turn]:
    """Every turn of a sample (a long one in pieces), with its session's date (parsed once per session)."""
    import dateparser

    conv = sample["conversation"]
    out: list[Turn] = []
    numbers = sorted(int(m[1]) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    for n in numbers:
        raw = conv.get(f"session_{n}_date_time")
        when = dateparser.parse(raw, languages=[detect(raw)]) if raw else None
        for t in conv[f"session_{n}"]:
            out += [Turn(t["dia_id"], t["speaker"], piece, when) for piece in pieces(t.get("text") or "")]
    return out


def load_samples(path: str) -> list[dict[str, Any]]:
    """The samples of a LoCoMo-layout file, gzipped or not."""
    import gzip

    raw = Path(path).read_bytes()
    return json.loads(gzip.decompress(raw) if path.endswith(".gz") else raw)


class Scores:
    """Hits per category and overall for one system."""

    def __init__(self) -> None:
        self.any: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
        self.all: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))

    def add(self, category: str, ranked: list[list[str]], evidence: list[str]) -> int | None:
        """`ranked`: the results in order, each the dia_ids it stands for. Returns the 1-based rank of
        the first result holding an evidence turn (None when none of them does)."""
        for k in KS:
            top = {dia for result in ranked[:k] for dia in result}
            for group in (category, "overall"):
                self.any[group][k].append(any(e in top for e in evidence))
                self.all[group][k].append(all(e in top for e in evidence))
        return next((i for i, result in enumerate(ranked, 1) if set(result) & set(evidence)), None)

    def report(self) -> dict[str, Any]:
        return {
            group: {
                "questions": len(self.any[group][KS[0]]),
                **{f"any@{k}": round(sum(v) / len(v), 4) for k, v in self.any[group].items()},
                **{f"all@{k}": round(sum(v) / len(v), 4) for k, v in self.all[group].items()},
            }
            for group in sorted(self.any, key=lambda g: (g == "overall", g))
        }


def tokens(text: str) -> list[str]:
    """The words of a text as engrain's index splits them (segmented for CJK)."""
    cjk = cjk_language(text)
    return [w.lower() for w in words_of(text, cjk) or []] if cjk else _TOKEN.findall(text.lower())


def bigrams(text: str) -> list[str]:
    return [w.lower() for w in bigram_words(text)]


def ranked_dia(order: list[int], turns: list[Turn]) -> list[list[str]]:
    """Turns in score order, identical texts folded into the first one's result."""
    results: dict[str, list[str]] = {}
    for i in order:
        results.setdefault(turns[i].content, []).append(turns[i].dia_id)
    return list(results.values())


async def evaluate(
    samples: list[dict[str, Any]],
    embedder: str,
    home: str | None = None,
    details: bool = False,
    database_url: str | None = None,
    expire_plans: bool = True,
    told: bool = False,
    text_budgets: tuple[int, ...] = (),
    gather: bool | None = None,
) -> dict[str, Any]:
    import numpy as np
    from rank_bm25 import BM25Okapi

    settings = bench_settings(home or scratch_home("engrain-quality-"), embedder, database_url=database_url)
    app = AppState(settings)
    app.start(scheduler_loop=False)
    systems = {"engrain": Scores(), "bm25": Scores(), "vector": Scores()}
    cjk = any(cjk_language(t.text) for sample in samples[:1] for t in session_turns(sample)[:50])
    if cjk:
        systems["bm25_bigrams"] = Scores()
    latencies: list[float] = []
    # Per text budget: does the recall's text (as the tool renders it, the tool's defaults) hold an evidence
    # memory whole, and how many tokens is the text.
    in_text: dict[int, list[bool]] = defaultdict(list)
    text_tokens: dict[int, list[int]] = defaultdict(list)
    by_kind: dict[tuple[int, str], list[tuple[bool, int]]] = defaultdict(list)  # (budget, category) → (shown, tokens)
    asked: list[dict[str, Any]] = []
    ingest_s = 0.0
    questions = 0
    try:
        model = await app.embeddings.ready()
        stored_samples = []
        for sample in samples:
            user = f"locomo-{sample.get('sample_id', id(sample))}"
            turns = session_turns(sample)
            started = time.perf_counter()
            stored = await app.memories.remember_many(
                user,
                [
                    RememberRequest(
                        content=t.content,
                        event_time=t.when.isoformat() if t.when else None,
                        said_at=t.when.isoformat() if told and t.when else None,
                        metadata={"dia_id": t.dia_id},
                    )
                    for t in turns
                ],
            )
            ingest_s += time.perf_counter() - started
            stored_samples.append((sample, user, turns, stored))
        # Long memories' windows, made in the background after each write (a live server's between calls).
        started = time.perf_counter()
        await app.reembedding.windows_settled()
        windows_s = time.perf_counter() - started
        if expire_plans:  # the scheduler's expiry job (every 15 min on a live server): past plans are history
            await jobs.expiry(app.job_context, app.clock(), None, False)
        db = await app.database()
        async with db.engine.begin() as conn:  # word statistics, as autovacuum keeps them on a live server
            await conn.execute(text("ANALYZE memories"))
            await conn.execute(text("ANALYZE memory_windows"))
        for sample, user, turns, stored in stored_samples:
            dia_of: dict[str, list[str]] = defaultdict(list)  # a deduplicated memory stands for each turn
            for turn, result in zip(turns, stored, strict=True):
                dia_of[result.id].append(turn.dia_id)
            bm25 = BM25Okapi([tokens(t.content) for t in turns])
            bm25_pairs = BM25Okapi([bigrams(t.content) for t in turns]) if cjk else None
            _, turn_vectors = await app.embeddings.embed([t.content for t in turns])
            matrix = np.asarray(turn_vectors)
            for qa in sample["qa"]:
                evidence = [e for e in qa.get("evidence", []) if isinstance(e, str)]
                if not evidence or not qa.get("question"):
                    continue
                questions += 1
                category = CATEGORY_NAMES.get(qa.get("category"), str(qa.get("category")))
                started = time.perf_counter()
                request = RecallRequest(
                    qa["question"], limit=max(KS), include_links=False, track_access=False, gather=gather
                )
                result = await app.recall.recall(user, request)
                latencies.append(time.perf_counter() - started)
                if text_budgets:
                    shown = await app.recall.recall(
                        user, RecallRequest(qa["question"], track_access=False, gather=gather)
                    )
                    bearing = [h for h in shown.results if set(dia_of.get(h.id, [])) & set(evidence)]
                    for budget in text_budgets:
                        rendered = render(shown, now=app.clock(), tz=UTC, explain=False, budget=budget)
                        held = any(_shown(h, rendered) for h in bearing)
                        in_text[budget].append(held)
                        text_tokens[budget].append(estimate_tokens(rendered))
                        by_kind[(budget, category)].append((held, estimate_tokens(rendered)))
                ranks = {
                    "engrain": systems["engrain"].add(
                        category, [dia_of.get(hit.id, []) for hit in result.results], evidence
                    )
                }
                scores = bm25.get_scores(tokens(qa["question"]))
                ranks["bm25"] = systems["bm25"].add(
                    category, ranked_dia(list(np.argsort(-scores, kind="stable")), turns), evidence
                )
                if bm25_pairs is not None:
                    pair_scores = bm25_pairs.get_scores(bigrams(qa["question"]))
                    ranks["bm25_bigrams"] = systems["bm25_bigrams"].add(
                        category, ranked_dia(list(np.argsort(-pair_scores, kind="stable")), turns), evidence
                    )
                _, [qv] = await app.embeddings.embed([qa["question"]])
                sims = matrix @ np.asarray(qv)
                ranks["vector"] = systems["vector"].add(
                    category, ranked_dia(list(np.argsort(-sims, kind="stable")), turns), evidence
                )
                asked.append(
                    {
                        "user": user,
                        "category": category,
                        "question": qa["question"],
                        "evidence": evidence,
                        "rank": ranks,
                        "engrain_top3": [hit.content for hit in result.results[:3]],
                    }
                )
    finally:
        await app.close()
    ordered = sorted(latencies)
    stored_turns = sum(len(turns) for _, _, turns, _ in stored_samples)
    report = {
        "embedder": model.id,
        "samples": len(samples),
        "questions": questions,
        "ingest_seconds": round(ingest_s, 3),
        "stored_per_second": round(stored_turns / ingest_s, 1) if ingest_s else None,
        "windows_seconds": round(windows_s, 3),
        "recall_latency_ms": {
            "p50": round(statistics.median(ordered) * 1000, 2) if ordered else None,
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2) if ordered else None,
        },
        "systems": {name: scores.report() for name, scores in systems.items()},
    }
    if text_budgets:
        report["recall_text"] = {
            str(b): {
                "evidence_in_text": round(sum(in_text[b]) / len(in_text[b]), 4),
                "tokens_mean": round(statistics.mean(text_tokens[b]), 1),
                "tokens_p95": sorted(text_tokens[b])[int(0.95 * (len(text_tokens[b]) - 1))],
                "by_category": {
                    category: {
                        "evidence_in_text": round(sum(h for h, _ in rows) / len(rows), 4),
                        "tokens_mean": round(statistics.mean(t for _, t in rows), 1),
                    }
                    for (budget, category), rows in sorted(by_kind.items())
                    if budget == b
                },
            }
            for b in text_budgets
        }
    if details:
        report["questions_detail"] = asked
    return report


def _shown(hit: Any, rendered: str) -> bool:
    """Whether the text shows the memory: whole, or (a question that gathers) by its passages that match."""
    if f"«{inline(hit.content)}»" in rendered:
        return True
    return bool(hit.excerpt) and f"«…{inline(hit.excerpt)}…»" in rendered


def table(report: dict[str, Any]) -> str:
    """The report side by side, one line per kind of question: engrain's any@1/5/10 and all@10, then every
    baseline's, then recall's p50/p95 and the store rate."""
    systems = report["systems"]
    lines = [f"{'kind':28s}{'n':>4s}  " + "  ".join(f"{name + ' @1/@5/@10/all@10':>30s}" for name in systems)]
    for group, first in systems["engrain"].items():
        cells = [
            "/".join(f"{systems[name][group][key]:.3f}" for key in ("any@1", "any@5", "any@10", "all@10"))
            for name in systems
        ]
        lines.append(f"{group:28s}{first['questions']:4d}  " + "  ".join(f"{c:>30s}" for c in cells))
    latency = report["recall_latency_ms"]
    lines.append(
        f"engrain recall p50 {latency['p50']} ms, p95 {latency['p95']} ms; stored {report['stored_per_second']} "
        f"turns/s ({report['embedder']})"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="auto")
    parser.add_argument("--details", action="store_true", help="every question's first evidence rank per system")
    parser.add_argument(
        "--told",
        action="store_true",
        help="tell each turn at its session's date (said_at), as an import of dated history would",
    )
    parser.add_argument(
        "--no-expiry",
        action="store_true",
        help="skip the scheduler's expiry job (plans whose date passed keep the 0.5 penalty)",
    )
    parser.add_argument(
        "--gather",
        choices=("auto", "off", "on"),
        default="auto",
        help="questions that gather (issue 60): read from each question (auto, as the tool does), or never/always",
    )
    parser.add_argument("--samples", type=int, default=0, help="only the first N conversations (0: all)")
    parser.add_argument(
        "--text-budgets",
        default="",
        help="comma-separated token budgets: how often the recall text (tool defaults) holds an evidence memory "
        "whole, and its size",
    )
    args = parser.parse_args()
    budgets = tuple(int(b) for b in args.text_budgets.split(",") if b.strip())
    samples = load_samples(args.data)[: args.samples or None]
    report = anyio.run(
        lambda: evaluate(
            samples,
            args.embedder,
            None,
            args.details,
            expire_plans=not args.no_expiry,
            told=args.told,
            text_budgets=budgets,
            gather={"auto": None, "off": False, "on": True}[args.gather],
        )
    )
    print(json.dumps(report, indent=2))
    print(table(report), file=sys.stderr)


if __name__ == "__main__":
    main()
