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

from engrain.text.languages import cjk_language

# A memory longer than this gets windows; a shorter one is read whole by its own vector already.
WINDOWED_CHARS = 400
# A window's length: a few sentences (~120 tokens), well inside the model's cut, so that one thought is what it
# means, not a tenth of it. A CJK character is about a token: a CJK text's windows are shorter.
WINDOW_CHARS = 480
CJK_WINDOW_CHARS = 160
# At most this many windows a memory (~5,700 characters): a chat turn's reply, not a pasted book, is what recall
# reads this way; the rest of a longer text is still found by its words.
MAX_WINDOWS = 12

# Where a run of text may be cut: after a sentence's end mark and its space, or at a line break.
_BREAK = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def windows(content: str) -> list[str]:
    """`content` as consecutive windows of at most WINDOW_CHARS (CJK_WINDOW_CHARS for a CJK text; whole sentences
    and lines joined, a longer one cut at a space, or anywhere in a CJK text), none for a memory of WINDOWED_CHARS
    or less; at most MAX_WINDOWS."""
    if len(content) <= WINDOWED_CHARS:
        return []
    size = WINDOW_CHARS if cjk_language(content) is None else CJK_WINDOW_CHARS
    out: list[str] = []
    current = ""
    for part in _parts(content, size):
        if current and len(current) + 1 + len(part) > size:
            out.append(current)
            if len(out) == MAX_WINDOWS:
                return out
            current = part
        else:
            current = f"{current} {part}" if current else part
    if current:
        out.append(current)
    return out[:MAX_WINDOWS]


def _parts(content: str, size: int) -> list[str]:
    """The text's sentences and lines, spaces folded, each at most `size` (a longer one cut at a space, else at
    `size`)."""
    parts: list[str] = []
    for piece in _BREAK.split(content):
        flat = " ".join(piece.split())
        while len(flat) > size:
            cut = flat.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            parts.append(flat[:cut])
            flat = flat[cut:].lstrip()
        if flat:
            parts.append(flat)
    return parts
