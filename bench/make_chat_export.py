"""A synthetic ChatGPT data export for bench/import_chats.py: `conversations` conversations of `turns` user
messages each, every one answered, in the export's tree shape (seeded; no real data). A user's messages
mix statements about themselves (ten planted facts, each said in one conversation, and some 2,000 different
ones about their days, which repeat across conversations), questions, requests with code and small talk,
over two years; every answer is a different assistant reply of a few hundred characters.

    python bench/make_chat_export.py OUT.json [--conversations 2000] [--turns 15] [--seed 3]
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

START = datetime(2023, 1, 2, 9, 0, tzinfo=UTC)
PLANTED = [
    "I live in Utrecht with my partner Noor.",
    "I work as a data engineer at Rabobank.",
    "I'm allergic to penicillin.",
    "My daughter Fenna was born in March 2021.",
    "I play the cello in an amateur orchestra.",
    "I'm vegetarian since 2015.",
    "My dog Bram is a border collie.",
    "I grew up in Groningen.",
    "I run the Amsterdam half marathon every October.",
    "I prefer answers with short code examples.",
]
# Statements about the user's days, from parts: some 2,000 different ones, so that many are new and some repeat.
ACTIVITIES = [
    "went cycling",
    "went swimming",
    "cooked dinner",
    "watched a film",
    "played board games",
    "went climbing",
    "visited the market",
    "walked the dog",
    "baked bread",
    "went to a concert",
    "fixed the bike",
    "read a novel",
    "went to the museum",
    "had coffee",
    "went running",
    "worked late",
    "planted tomatoes",
    "went sailing",
]
PEOPLE = [
    "Noor",
    "my sister",
    "my colleagues",
    "Fenna",
    "my parents",
    "Jesse",
    "my neighbour",
    "old friends",
    "the team",
    "my brother",
    "Sanne",
    "nobody",
]
WHEN = [
    "this morning",
    "last night",
    "on Saturday",
    "yesterday",
    "after work",
    "on Sunday",
    "at lunch",
    "this weekend",
    "last weekend",
]
QUESTIONS = [
    "How do I reverse a list in Python?",
    "What is the capital of Canada?",
    "Can you explain how transformers work?",
    "What's a good recipe for lentil soup?",
    "Why does my SQL query return duplicates?",
    "Can you summarise this article for me?",
]
CODE = "Here is my function:\n```python\ndef total(xs):\n    return sum(x for x in xs)\n```\nwhy is it slow?"
SMALL = ["thanks!", "ok", "great, that helps", "haha nice", "perfect"]
# An assistant's answers, from parts: each one different and a few hundred to a thousand characters long, as real
# replies are (the importer keeps each one's words as a reply, issue 51).
OPENINGS = ["Good question!", "Sure, here is how I'd approach it.", "That sounds great.", "Happy to help with that."]
BODY = [
    "The main thing to keep in mind is the trade-off between simplicity and speed.",
    "Start with the smallest version that works, then measure before you optimise anything.",
    "A common mistake is to change several things at once, which hides what actually helped.",
    "If you want, I can walk you through an example step by step.",
    "Many people find it easier to write the steps down first and check each one.",
    "There are two usual options here, and the right one depends on how often it runs.",
    "You could also ask someone who has done it before; their notes save a lot of time.",
    "Keep an eye on the edge cases: empty inputs, very large inputs and repeated values.",
]


def _node(ident: str, role: str | None, text: str, parent: str | None, at: float) -> dict[str, Any]:
    message = (
        None
        if role is None
        else {
            "id": ident,
            "author": {"role": role},
            "create_time": at,
            "content": {"content_type": "text", "parts": [text]},
        }
    )
    return {"id": ident, "message": message, "parent": parent, "children": []}


def build(conversations: int, turns: int, seed: int) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The export and the planted facts with the day each was said (ISO)."""
    rng = random.Random(seed)
    planted_in = {rng.randrange(conversations): fact for fact in PLANTED}
    out: list[dict[str, Any]] = []
    said: list[tuple[str, str]] = []
    for c in range(conversations):
        started = START + timedelta(minutes=c * 525)  # about two years over 2,000 conversations
        mapping: dict[str, Any] = {"root": _node("root", None, "", None, 0)}
        parent = "root"
        for t in range(turns):
            at = (started + timedelta(minutes=2 * t)).timestamp()
            kind = rng.random()
            if t == 0 and c in planted_in:
                text = planted_in[c]
                said.append((text, started.date().isoformat()))
            elif kind < 0.25:
                text = f"I {rng.choice(ACTIVITIES)} with {rng.choice(PEOPLE)} {rng.choice(WHEN)}."
            elif kind < 0.55:
                text = rng.choice(QUESTIONS)
            elif kind < 0.65:
                text = CODE
            else:
                text = rng.choice(SMALL)
            user, answer = f"u{t}", f"a{t}"
            mapping[user] = _node(user, "user", text, parent, at)
            reply = " ".join([rng.choice(OPENINGS), *rng.sample(BODY, rng.randint(3, 8)), f"(answer {c}.{t})"])
            mapping[answer] = _node(answer, "assistant", reply, user, at + 30)
            mapping[parent]["children"].append(user)
            mapping[user]["children"].append(answer)
            parent = answer
        out.append(
            {
                "title": f"Chat {c}",
                "create_time": started.timestamp(),
                "conversation_id": f"conv-{c}",
                "current_node": parent,
                "mapping": mapping,
            }
        )
    return out, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=15)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    export, _ = build(args.conversations, args.turns, args.seed)
    Path(args.out).write_text(json.dumps(export), encoding="utf-8")


if __name__ == "__main__":
    main()
