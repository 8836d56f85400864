"""The passages a long memory is shown by for a question that gathers (services/recall/passages.py)."""

from __future__ import annotations

from engrain.rules.gathering import PASSAGE_CHARS
from engrain.services.recall.passages import passages

REPLY = (
    "Here is a plan for your garden this year. Keep the soil loose and water early in the morning. "
    "The tomatoes you plant should be staked in June. Compost the beds in autumn. "
    "For the roses, prune them back hard in March and feed them in May."
)


def test_the_sentences_sharing_most_words_with_the_question_in_their_order():
    shown = passages(REPLY, "Which plants did you recommend, like tomatoes and roses?")
    assert shown == (
        "The tomatoes you plant should be staked in June. … For the roses, prune them back hard in March and feed "
        "them in May."
    )


def test_words_match_by_their_stem_and_question_words_do_not_count():
    shown = passages(REPLY, "What have I composted?")  # "composted" meets "Compost"; "what", "have" count for nothing
    assert "Compost the beds in autumn." in shown


def test_no_shared_word_gives_the_first_sentences_and_a_long_one_is_cut():
    assert passages(REPLY, "zzz qqq").startswith("Here is a plan for your garden this year.")
    long = "Tournament " + "games " * 80 + "ended. Short one."
    first = passages(long, "tournaments").split(" … ")[0]
    assert len(first) == PASSAGE_CHARS and first.endswith("…")
