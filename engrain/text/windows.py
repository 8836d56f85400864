"""A long memory's windows: its text in consecutive runs of whole lines and sentences, each embedded on its own
(storage/windows.py) so that recall meets the one sentence that answers inside a long reply.

A memory's own vector reads its first 256 tokens (the model's cut) as one meaning: in a 2,000-character chat turn
that opens with "aiming for an initial deployment by March 1, 2024" and goes on with a Dockerfile, the question
"What deadline did I set for the initial deployment?" met it at cosine 0.21 and ranked it 24th (BEAM-500K dev,
issue 60). A window of a few sentences carries that sentence's meaning, and a window beyond the cut is read at
all. Pure: the pass that embeds them runs in the background (services/memories/reembedding.py).
"""

from __future__ import annotations

import re

# A memory longer than this gets windows; a shorter one is read whole by its own vector already.
WINDOWED_CHARS = 400
# A window's length: a few sentences (~120 tokens), well inside the model's cut, so that one thought is what it
# means, not a tenth of it.
WINDOW_CHARS = 480
# At most this many windows a memory (~5,700 characters): a chat turn's reply, not a pasted book, is what recall
# reads this way; the rest of a longer text is still found by its words.
MAX_WINDOWS = 12

# Where a run of text may be cut: after a sentence's end mark and its space, or at a line break.
_BREAK = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def windows(content: str) -> list[str]:
    """`content` as consecutive windows of at most WINDOW_CHARS (whole sentences and lines joined, a longer one cut
    at a space), none for a memory of WINDOWED_CHARS or less; at most MAX_WINDOWS."""
    if len(content) <= WINDOWED_CHARS:
        return []
    out: list[str] = []
    current = ""
    for part in _parts(content):
        if current and len(current) + 1 + len(part) > WINDOW_CHARS:
            out.append(current)
            if len(out) == MAX_WINDOWS:
                return out
            current = part
        else:
            current = f"{current} {part}" if current else part
    if current:
        out.append(current)
    return out[:MAX_WINDOWS]


def _parts(content: str) -> list[str]:
    """The text's sentences and lines, spaces folded, each at most WINDOW_CHARS (a longer one cut at spaces)."""
    parts: list[str] = []
    for piece in _BREAK.split(content):
        flat = " ".join(piece.split())
        while len(flat) > WINDOW_CHARS:
            cut = flat.rfind(" ", 0, WINDOW_CHARS)
            cut = cut if cut > WINDOW_CHARS // 2 else WINDOW_CHARS
            parts.append(flat[:cut])
            flat = flat[cut:].lstrip()
        if flat:
            parts.append(flat)
    return parts
