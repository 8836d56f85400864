"""Recall's scoring rules (docs/SPEC.md §6): every weight of the score, and each term beside its SQL.

The recall statement (storage/recall.py) is assembled from the fragments here; the service describes
each term of a hit's breakdown from the same constants (services/recall/search.Breakdown). A term is
written once in Python (`score`, `recency`, `redundancy`) and once as SQL over the statement's
columns; `tests/rules/test_recall_rules.py` evaluates both on the same values in PostgreSQL.

    score = penalty · (min(1, vector + TEXT_BUMP·text) + LEXICAL_WEIGHT·lexical + temporal + slot + bridge
                       + standing·vector)
                    · (1 - RECENCY_WEIGHT·(1 - recency) + IMPORTANCE_WEIGHT·importance + trait_boost)

Recency only takes away: the user's newest memories keep the whole score, older ones lose up to
RECENCY_WEIGHT of it. Memories told together (a history imported at once, without told times) are
then scored exactly as if recency were not there.
"""

from __future__ import annotations

import math

# Beyond the SPEC's bump for a full match of the query, every query word found in a candidate counts,
# weighted by how rare the word is (IDF): `lexical` is the IDF-weighted share of the query's words the
# memory contains, in [0, 1], and enters the base score with this weight, after the base's cap.
TEXT_BUMP = 0.05
LEXICAL_WEIGHT = 0.5
RECENCY_WEIGHT = 0.15
IMPORTANCE_WEIGHT = 0.15
# A vivid memory (emotional arousal in [0, 1]) stays recent longer: its decay time grows by up to half.
AROUSAL_SLOWS_DECAY = 0.5
# A plan whose date has passed is worth half as much as a current one.
OVERDUE_PENALTY = 0.5
# A reply (what an assistant said in a chat, reading/speakers.py) stands behind the user's own words: unless
# the query asks what the assistant said, suggested or wrote, it keeps this share of its score (issue 51: long,
# generic answers crowded the user's short statements out of the first ten).
REPLY_WEIGHT = 0.5
# And further behind on a question the user asks about themselves in the first person (reading/speakers.
# asks_about_user): the user's words answer it. Issue 61: a friend in the assistant's part said "Playing video games
# and watching movies are my main hobbies", which at REPLY_WEIGHT outranked the user's own hobbies on "What are my
# hobbies?" — the same words and the same first person, about someone else.
ABOUT_USER_REPLY_WEIGHT = 0.25
# Query-time date understanding: a "when did…" question prefers memories that say when (a time phrase in
# the text), and a period named in the query ("last March") prefers memories dated in it.
WHEN_WEIGHT = 0.1
WINDOW_WEIGHT = 0.15
# "What's coming up this week?": a plan dated inside the period asked about is what the question is for.
# Such plans are candidates even when they share no word with the question, and gain this.
PLAN_AHEAD_WEIGHT = 0.3
# Multi-hop questions ("why did Alice's dog need care?" → the turn naming the dog → the vet turn): a
# candidate that shares a rarer word the query lacks with one of the first BRIDGE_SEEDS hits gains this.
BRIDGE_SEEDS = 3
BRIDGE_WEIGHT = 0.1
# Besides the rows matching every word, candidates include the rows with any of the query's rarer words
# (in under 1% of memories): paraphrased questions seldom repeat every word, and rare words are cheap to
# look up in the GIN index.
RARE_WORD_FREQ = 0.01
# Diversity: ten wordings of one thing tell the client less than ten things. Among the best
# DIVERSITY_POOL_MIN (or 3 × the limit asked) candidates, each loses up to DIVERSITY_WEIGHT of its score for its
# resemblance (cosine above DIVERSITY_FLOOR) to the closest better-scored one that matches at least as
# much of the query. A share, not an amount: weak matches are not pushed under weaker ones.
DIVERSITY_POOL_MIN = 30
DIVERSITY_WEIGHT = 0.3
DIVERSITY_FLOOR = 0.5
# A question about a single-valued fact ("where do I live", "what phone do I have": reading/slots.asked_slot):
# the live memories holding that key are candidates, and gain this — enough to rank the current value first
# (issue 42: at 0.3, "My mother lives in York", a word shared with the question, outranked the user's move).
SLOT_WEIGHT = 1.0
# A standing instruction or preference of the user's (reading/standing.py) bears on later requests that do not
# repeat its words ("always give TypeScript examples" on "how do I read a file?"): it gains this share of its
# similarity to the query, and the user's instructions are candidates for every query (issue 51). Not on a
# question about what the user told ("what did I say about…", reading/asks.asks_what_user_told): that looks up
# the past, which an instruction for answers says nothing about (BEAM-500K dev: instructions crowded out facts).
STANDING_WEIGHTS = {"instruction": 0.5, "preference": 0.25}
STANDING_CANDIDATES = 50  # the newest instructions a recall looks at whatever its words
# Memories linked to the best hits that come along with them (one hop).
LINK_EXPANSION = 3


def score(
    *,
    vector: float,
    text: bool,
    lexical: float,
    temporal: float,
    bridge: float,
    recency: float,
    importance: float,
    trait_boost: float,
    penalty: float,
    slot: float = 0.0,
    standing: float = 0.0,
) -> float:
    """The score of one candidate from its terms (the module docstring's formula)."""
    base = min(1.0, vector + (TEXT_BUMP if text else 0.0)) + LEXICAL_WEIGHT * lexical + temporal + slot + bridge
    base += standing * vector
    return penalty * base * (1 - RECENCY_WEIGHT * (1 - recency) + IMPORTANCE_WEIGHT * importance + trait_boost)


def score_sql(bridge: str = "0.0") -> str:
    """`score` over the columns vector, text, lexical, temporal, slot, standing, recency, importance,
    trait_boost, penalty and the expression `bridge`."""
    return (
        f"penalty * (least(1.0, vector + CASE WHEN text THEN {TEXT_BUMP} ELSE 0.0 END) + {LEXICAL_WEIGHT} * lexical"
        f" + temporal + slot + {bridge} + standing * vector) * (1 - {RECENCY_WEIGHT} * (1 - recency)"
        f" + {IMPORTANCE_WEIGHT} * importance + trait_boost)"
    )


def standing_sql(standing: str, reply: str, scale: str) -> str:
    """The STANDING_WEIGHTS weight of a row (`standing`: its standing, a SQL text; `reply`: the condition that it
    is what an assistant said, which is never the user's) times `scale`, the query's `standing_scale`."""
    cases = " ".join(f"WHEN '{name}' THEN {weight}" for name, weight in STANDING_WEIGHTS.items())
    return f"CASE WHEN {reply} THEN 0.0 ELSE CASE {standing} {cases} ELSE 0.0 END END * {scale}"


def standing_scale(asks_what_user_told: bool) -> float:
    """How much of STANDING_WEIGHTS a query gives: none to a question about what the user told."""
    return 0.0 if asks_what_user_told else 1.0


def recency(age_seconds: float, decay_seconds: float, arousal: float = 0.0) -> float:
    """exp(-age / (decay · (1 + AROUSAL_SLOWS_DECAY · arousal))), where `age` is how long before the user's
    latest told time this memory was told: recency runs on the user's timeline, so an imported history
    ranks as it did when it was lived, a fact about long ago is not stale for it, and of two memories about
    one thing the one told later ranks higher. A memory told "after" the latest (none is) would be recent."""
    return math.exp(-max(0.0, age_seconds) / (decay_seconds * (1 + AROUSAL_SLOWS_DECAY * arousal)))


def recency_exponent_sql(age_seconds: str, decay_seconds: str, arousal: str) -> str:
    """The exponent of `recency` over SQL expressions (the caller takes a safe exp)."""
    return f"-greatest(0.0, {age_seconds}) / ({decay_seconds} * (1 + {AROUSAL_SLOWS_DECAY} * {arousal}))"


def temporal_sql(asks_when: bool, window: bool, says_when: str, in_window: str, ahead: str | None = None) -> str:
    """The date terms of a query: WHEN_WEIGHT for a memory that says when (`says_when`, a SQL condition) to
    a "when…" question, WINDOW_WEIGHT for one dated inside the period the query names (`in_window`). A query
    about what is ahead passes `ahead`, the condition of a plan dated in its window, which gains
    PLAN_AHEAD_WEIGHT instead: what was merely told this week is not what is coming."""
    terms: list[str] = []
    if asks_when:
        terms.append(f"CASE WHEN {says_when} THEN {WHEN_WEIGHT} ELSE 0.0 END")
    if window and ahead is not None:
        terms.append(f"CASE WHEN {ahead} THEN {PLAN_AHEAD_WEIGHT} ELSE 0.0 END")
    elif window:
        terms.append(f"CASE WHEN {in_window} THEN {WINDOW_WEIGHT} ELSE 0.0 END")
    return " + ".join(terms) or "0.0"


def slot_sql(asked: bool, fills: str) -> str:
    """SLOT_WEIGHT for a memory filling the slot the query asks about (`fills`, a SQL condition)."""
    return f"CASE WHEN {fills} THEN {SLOT_WEIGHT} ELSE 0.0 END" if asked else "0.0"


def reply_weight(asks_assistant: bool, about_user: bool) -> float:
    """What a reply keeps of its score for a query: all of it when the query asks what the assistant said,
    ABOUT_USER_REPLY_WEIGHT when the user asks about themselves, else REPLY_WEIGHT."""
    if asks_assistant:
        return 1.0
    return ABOUT_USER_REPLY_WEIGHT if about_user else REPLY_WEIGHT


def penalty_sql(overdue: str, reply: str, weight: str) -> str:
    """What a candidate keeps of its score, over SQL conditions: OVERDUE_PENALTY for a plan whose date has passed
    (`overdue`), the reply's weight for this query (`weight`: `reply_weight`) for a reply (`reply`)."""
    return f"CASE WHEN {overdue} THEN {OVERDUE_PENALTY} ELSE 1.0 END * CASE WHEN {reply} THEN {weight} ELSE 1.0 END"


def redundancy(first_score: float, closest: float) -> float:
    """What a candidate loses for resembling (cosine `closest`) a better-ranked one."""
    return first_score * DIVERSITY_WEIGHT * max(0.0, closest - DIVERSITY_FLOOR) / (1 - DIVERSITY_FLOOR)


def redundancy_sql(first_score: str, closest: str) -> str:
    """`redundancy` over SQL expressions."""
    return f"{first_score} * {DIVERSITY_WEIGHT} * greatest(0.0, {closest} - {DIVERSITY_FLOOR}) / {1 - DIVERSITY_FLOOR}"
