"""Two wordings of one trait (issue 42, item 5): a model rewords a pattern it reports again; the trait writer
reinforces the existing trait instead of creating a twin when the two name the same pattern."""

from __future__ import annotations

import pytest

from engrain.reading.duplicates import same_pattern


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("Cooks dinner at home most evenings", "Often cooks at home in the evening", True),
        ("Goes climbing on Thursdays", "Climbs every Thursday evening", True),
        ("Plays guitar to unwind after work", "Unwinds after work by playing guitar", True),
        ("Reads before bed", "Reads a book before going to bed", True),
        ("Runs in the morning", "Reads in the morning", False),  # one shared content word is no pattern
        ("Works late on Fridays", "Works from home on Fridays", False),  # a detail changed, not added
        ("Avoids coffee", "Does not avoid coffee", False),  # a negation turns it around
        ("Habit number 1", "Habit number 2", False),  # numbers must agree
    ],
)
def test_two_wordings_name_one_pattern_or_not(first, second, same):
    assert same_pattern(first, second) is same
