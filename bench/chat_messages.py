"""What an import keeps of a user's chat messages (issue 43): tests/data/chat_messages.tsv — 201 messages as
users write them to ChatGPT or Claude, hand-labelled `keep` (it says something about the user: a fact, a
plan, a preference, a way of working) or `drop` (a question, a request, a reply, small talk, an opinion on
the world) before the rules were run on them. Each goes through `services/memories/importing.statements`
as a one-message conversation. Prints JSON per split (dev may be tuned on, test is held out): precision
(of the messages that kept something, the share labelled keep) and recall (of those labelled keep, the
share that kept something), and the dev split's misses.

    python bench/chat_messages.py
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from engrain.reading.chats import Chat, ChatMessage
from engrain.services.memories.importing import statements

MESSAGES = Path(__file__).resolve().parents[1] / "tests" / "data" / "chat_messages.tsv"
AT = datetime(2025, 3, 4, 10, 0, tzinfo=UTC)


def read(path: Path = MESSAGES) -> list[tuple[str, bool, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            split, label, text = line.split("\t")
            rows.append((split, label == "keep", text))
    return rows


def measure() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in ("dev", "test"):
        results = []
        misses = []
        for part, keep, text in read():
            if part != split:
                continue
            kept = bool(statements(Chat("bench:1", "", AT, [ChatMessage("user", text, AT)]), None, AT))
            results.append((keep, kept))
            if keep != kept and split == "dev":
                misses.append({"text": text, "want": keep, "got": kept})
        predicted = [r for r in results if r[1]]
        wanted = [r for r in results if r[0]]
        right = [r for r in results if r[0] and r[1]]
        out[split] = {
            "messages": len(results),
            "precision": round(len(right) / len(predicted), 3) if predicted else None,
            "recall": round(len(right) / len(wanted), 3) if wanted else None,
        }
        if split == "dev":
            out["dev_misses"] = misses
    return out


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2, ensure_ascii=False))
