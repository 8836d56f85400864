"""The form a text takes in the full-text index, the same for a memory and for a query.

PostgreSQL's parser splits words at spaces and punctuation, so a Chinese sentence is one giant
"word" to it. Texts are therefore prepared here and indexed with `to_tsvector(ts_config,
coalesce(search_text, content))`:

- Chinese is segmented into words by jieba (its search mode also emits the words inside a long
  one: 北京大学 → 北京, 大学, 北京大学), dropping function words by jieba's part-of-speech
  dictionary (pronouns, particles, prepositions, conjunctions, adverbs, measure words,
  interjections, punctuation), as the English configuration drops its stop words. Japanese and
  Korean, which jieba does not know, are indexed as overlapping character pairs (bigrams). The
  words in Latin letters inside CJK text stay whole, and the configuration is `english`, so that
  "Alice" or "latte" is stemmed exactly as in an English question.
- A language with a PostgreSQL Snowball configuration (German, French, Spanish…) is indexed by
  it: stemming and stop words of its own.
- Any other language gets `simple` over its lower-cased, unaccented text.

A query is prepared the same way, by its own language: a Chinese question finds Chinese memories
(and the Latin names in them), an English one English memories.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from dataclasses import dataclass
from typing import Any

import anyio

from engrain.text.languages import CJK, CJK_CHARS, TS_CONFIGS, detect, has_cjk, identifier_ready, load_identifier

CJK_CONFIG = "english"
OTHER_CONFIG = "simple"
# jieba part-of-speech tags of words that say nothing about a memory's subject (like English stop words).
_FUNCTION_TAGS = frozenset({"r", "u", "uj", "ul", "uz", "ug", "uv", "ud", "y", "p", "c", "d", "e", "o", "x", "zg", "q"})
# jieba tags the copula and "to have" as verbs; the English configuration drops "is", "was", "have".
_FUNCTION_VERBS = frozenset({"是", "有", "没有", "没"})
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_SPACE = re.compile(r"\s+")

_segmenter: Any = None
_tags: dict[str, str] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class TextForm:
    lang: str  # ISO 639-1 code
    ts_config: str  # PostgreSQL text-search configuration
    search_text: str | None  # what the index reads instead of the content (None: the content itself)


async def load_for(text: str) -> None:
    """Load, in a thread, the models preparing `text` needs (py3langid and jieba, each once per process and
    each a large part of a second), so that the first text in a language never stalls the event loop."""
    if has_cjk(text):
        if _segmenter is None:
            await anyio.to_thread.run_sync(_jieba)
    elif not identifier_ready():
        await anyio.to_thread.run_sync(load_identifier)


def _jieba() -> Any:
    """jieba's tokenizer and tag dictionary, loaded once on the first Chinese text."""
    global _segmenter, _tags
    with _lock:
        if _segmenter is None:
            import jieba
            import jieba.posseg

            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            _tags = jieba.posseg.dt.word_tag_tab
            _segmenter = jieba.dt
    return _segmenter


def _content(word: str) -> bool:
    return (
        bool(word)
        and _tags.get(word) not in _FUNCTION_TAGS
        and word not in _FUNCTION_VERBS
        and any(ch.isalnum() for ch in word)
    )


def chinese_words(text: str) -> list[str]:
    """The content words of a Chinese text (Latin words kept whole), in order, then the character pairs of
    what jieba did not know: a run of content words of one character each (撸串 cut as 撸 + 串) and a
    word of three characters or more that is no dictionary word (二丫说, a name merged with a verb). A
    name or a colloquial word jieba splits wrongly then still matches as a pair; pairs across known
    words would be noise ("去游" of 去游泳), so there are none."""
    tokens = [w.strip() for w in _jieba().cut_for_search(text)]
    words = [w for w in tokens if _content(w)]
    pairs: list[str] = []
    run: list[str] = []
    for token in [*tokens, ""]:
        if len(token) == 1 and _CJK_RUN.fullmatch(token) and _content(token):
            run.append(token)
            continue
        pairs += ["".join(run[i : i + 2]) for i in range(len(run) - 1)]
        run = []
        if len(token) >= 3 and _CJK_RUN.fullmatch(token) and token not in _tags:
            pairs += [token[i : i + 2] for i in range(len(token) - 1)]
    return words + [p for p in dict.fromkeys(pairs) if p not in words]


def bigram_words(text: str) -> list[str]:
    """Japanese and Korean: each CJK run as overlapping character pairs, the rest as it is."""
    out: list[str] = []
    position = 0
    for run in _CJK_RUN.finditer(text):
        out.append(text[position : run.start()])
        chars = run.group(0)
        out += [chars] if len(chars) == 1 else [chars[i : i + 2] for i in range(len(chars) - 1)]
        position = run.end()
    out.append(text[position:])
    return [w for piece in out for w in _SPACE.split(piece) if w]


def unaccented(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words_of(text: str, lang: str) -> list[str] | None:
    """The words of a CJK text as the index sees them (None for other languages: PostgreSQL splits them)."""
    if lang == "zh":
        return chinese_words(text)
    if lang in CJK:
        return bigram_words(text)
    return None


def _with_characters(words: list[str], lang: str) -> list[str]:
    """Chinese words followed by the single characters of the longer ones (爱吃 → 爱, 吃): a question
    that says 兄弟姐妹 still shares 弟 with a memory that says 弟弟, as a partial match. Japanese and
    Korean words are already character pairs: they stay as they are."""
    if lang != "zh":
        return words
    return words + [ch for w in words if len(w) > 1 and _CJK_RUN.fullmatch(w) for ch in w]


def form(text: str, lang: str | None = None) -> TextForm:
    """How `text` (in `lang`, detected when not given) is indexed: a Chinese memory's index holds its
    words and the characters of its longer words."""
    lang = lang or detect(text)
    words = words_of(text, lang)
    if words is not None:
        return TextForm(lang, CJK_CONFIG, " ".join(_with_characters(words, lang)))
    config = TS_CONFIGS.get(lang)
    if config is not None:
        return TextForm(lang, config, None)
    return TextForm(lang, OTHER_CONFIG, unaccented(text))


@dataclass(frozen=True)
class QueryForm:
    """A query as the index sees it."""

    lang: str
    ts_config: str
    text: str  # a full match has every word of this (websearch_to_tsquery)
    terms: str  # whose words weigh in `lexical` and bring candidates: with Chinese characters, as indexed


def query_form(query: str) -> QueryForm:
    lang = detect(query)
    words = words_of(query, lang)
    if words is not None:
        terms = _with_characters(words, lang)
        return QueryForm(lang, CJK_CONFIG, " ".join(words), " ".join(terms))
    f = form(query, lang)
    text = f.search_text if f.search_text is not None else query
    return QueryForm(lang, f.ts_config, text, text)
