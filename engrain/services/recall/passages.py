"""A long memory's passages that answer a question that gathers (issue 60): its sentences holding most of the
question's words, in their order, so that more pieces fit in the text than whole memories would.

Pure and cheap, and run only for the pieces chosen (a dozen or so): PostgreSQL's ts_headline over every row the
statement returned cost a gathering recall 24 ms of its 60 at 4,000 memories (bench/gathering.py). A sentence
counts the question's words it holds, each as its first PREFIX characters found anywhere in it (a cheap stem:
"recommended" meets "recommend", "tournaments" "tournament"; a substring search, 0.1 ms for a long reply where
splitting each sentence into words took 0.7); the question's own function words never count. A CJK question's
words are the segmenter's, as the index's are.
"""

from __future__ import annotations

import re

from engrain.rules.gathering import PASSAGE_CHARS, PASSAGES
from engrain.text.fulltext import words_of
from engrain.text.languages import cjk_language

PREFIX = 5
_WORD = re.compile(r"[^\W_]+")
# Where a sentence ends: its mark and the space after it, or a line break (a list, a code block's lines).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\s*\n\s*")
# Words of a question that say what kind of answer it wants, not what it is about.
_FUNCTION_WORDS = (
    "what which when where whom whose why how many much did does have has had the and you your yours my mine "
    "about that this these those with for from into over all any can could would should give tell list "
    "summary summarize summarise mention mentioned said say told talk talked discussed everything kinds kind "
    "types type sorts sort were was are is been being there their them they other besides"
)
_QUESTION_WORDS = frozenset(_FUNCTION_WORDS.split())
_JOIN = " … "
# The longest text `passages` returns: what a piece shown by its passages may take of the recall text.
MOST_CHARS = PASSAGES * PASSAGE_CHARS + (PASSAGES - 1) * len(_JOIN)


def stems(text: str, cjk: str | None = None) -> set[str]:
    """The words of `text` that can match, as their first PREFIX characters (`cjk`, the language of a CJK text:
    the segmenter's words)."""
    if cjk:
        return {w for w in words_of(text, cjk) or [] if w.strip()}
    return {w.lower()[:PREFIX] for w in _WORD.findall(text) if len(w) > 2 and w.lower() not in _QUESTION_WORDS}


def passages(content: str, question: str) -> str:
    """The PASSAGES sentences of `content` sharing most words with `question` (the first ones when none does), in
    the memory's order, each cut to PASSAGE_CHARS, joined by " … "."""
    wanted = stems(question, cjk_language(question))
    found = [part for part in _SENTENCE_END.split(content) if part.strip()] or [content]
    lowered = [sentence.lower() for sentence in found]
    shared = [sum(stem in sentence for stem in wanted) for sentence in lowered]  # C's substring search
    chosen = sorted(sorted(range(len(found)), key=lambda i: (-shared[i], i))[:PASSAGES])
    return _JOIN.join(_cut(found[i]) for i in chosen)


def _cut(sentence: str) -> str:
    flat = " ".join(sentence.split())
    return flat if len(flat) <= PASSAGE_CHARS else flat[: PASSAGE_CHARS - 1].rstrip() + "…"
