"""A long memory's passages that answer a question that gathers (issue 60): its sentences holding most of the
question's words, in their order, so that more pieces fit in the text than whole memories would.

Pure and cheap, and run only for the pieces chosen (a dozen or so): PostgreSQL's ts_headline over every row the
statement returned cost a gathering recall 24 ms of its 60 at 4,000 memories (bench/gathering.py). Words match
by their first PREFIX characters (a cheap stem: "recommended" meets "recommend", "tournaments" "tournament");
the question's own function words never count. CJK text matches by the segmenter's words, as the index does.
"""

from __future__ import annotations

import re

from engrain.reading.mood import sentences
from engrain.rules.gathering import PASSAGE_CHARS, PASSAGES
from engrain.text.fulltext import words_of
from engrain.text.languages import cjk_language

PREFIX = 5
_WORD = re.compile(r"[^\W_]+")
# Words of a question that say what kind of answer it wants, not what it is about.
_FUNCTION_WORDS = (
    "what which when where whom whose why how many much did does have has had the and you your yours my mine "
    "about that this these those with for from into over all any can could would should give tell list "
    "summary summarize summarise mention mentioned said say told talk talked discussed everything kinds kind "
    "types type sorts sort were was are is been being there their them they other besides"
)
_QUESTION_WORDS = frozenset(_FUNCTION_WORDS.split())


def stems(text: str) -> set[str]:
    """The words of `text` that can match, as their first PREFIX characters (CJK: the segmenter's words)."""
    lang = cjk_language(text)
    if lang:
        return {w for w in words_of(text, lang) or [] if w.strip()}
    return {w[:PREFIX] for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 2 and w not in _QUESTION_WORDS}


def passages(content: str, question: str) -> str:
    """The PASSAGES sentences of `content` sharing most words with `question` (the first ones when none does), in
    the memory's order, each cut to PASSAGE_CHARS, joined by " … "."""
    wanted = stems(question)
    found = sentences(content) or [content]
    scored = sorted(range(len(found)), key=lambda i: (-len(stems(found[i]) & wanted), i))
    chosen = sorted(scored[:PASSAGES])
    return " … ".join(_cut(found[i]) for i in chosen)


def _cut(sentence: str) -> str:
    flat = " ".join(sentence.split())
    return flat if len(flat) <= PASSAGE_CHARS else flat[: PASSAGE_CHARS - 1].rstrip() + "…"
