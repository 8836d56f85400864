"""A profile line is a statement, not a document (issue 61): what `lines.gist` keeps of a long memory."""

from __future__ import annotations

import pytest

from engrain.services.wording.lines import gist

TURN = (
    "Funny, the rain today reminded me of winter at home. I'm from Valparaíso originally, and my parents still live "
    "in the same house on Cerro Alegre. I fly back every December though the flights are brutal."
)

MOVE = (
    "Ugh. Big news! We finally moved to Portland last weekend, and the new place has a balcony that gets the afternoon "
    "sun all day long."
)


@pytest.mark.parametrize(
    ("content", "focus", "shown"),
    [
        ("I live in Lisbon.\n\nIt's lovely.", None, "I live in Lisbon. It's lovely."),  # short: whole, on one line
        # The sentence that holds the key's value, with the ones after it that fit; "…" on both sides.
        (
            TURN,
            "valparaíso",
            "… I'm from Valparaíso originally, and my parents still live in the same house on Cerro Alegre. …",
        ),
        # No value to find: from the first sentence.
        (TURN, None, "Funny, the rain today reminded me of winter at home. …"),
        (TURN, "nowhere", "Funny, the rain today reminded me of winter at home. …"),
        # Sentences that fill less than half the room go on to the limit, cut at a word.
        (
            MOVE,
            None,
            "Ugh. Big news! We finally moved to Portland last weekend, and the new place has a balcony that …",
        ),
        # The last sentence holds it: nothing is left out after it.
        (TURN, "december", "… I fly back every December though the flights are brutal."),
        # Words without spaces (Chinese) are cut at the limit.
        ("我" * 200, None, "我" * 98 + " …"),
    ],
)
def test_a_long_memory_shows_the_sentences_that_state_its_fact(content, focus, shown):
    assert gist(content, 100, focus) == shown
    assert len(gist(content, 100, focus)) <= 100
