"""How recall answers a question that gathers (issue 60): a list, a count, the kinds of a thing, a summary.

Such an answer is spread over the whole history ("What books has Tim read?": seven titles told in seven
sessions), while today's ranking fills the first ten with near-copies from the one session that talks most
about it. So the statement returns GATHER_FETCH times the limit, and recall spreads the pieces over the days they
were told (each further piece of one day ranks lower), as many as fit in what the ten best whole results would
have taken; a long memory shows only its passages that match the question.
"""

from __future__ import annotations

# The statement returns this many times the limit for a gathering question (at most the tool's largest limit).
GATHER_FETCH = 3
# A memory found beyond the `limit` best is a piece only when it scores at least this share of the best one: the
# best memory of a day that has nothing to do with the question ("I cook lentil soup every Sunday" to "what books
# have I read?") is no piece of the answer.
GATHER_FLOOR = 0.5
# Each further piece of one occasion counts this share of its score once more (the second 0.7, the third 0.49):
# one day's near-copies make room for other days, while a day that holds much of the answer (a long chat about
# one project, BEAM-500K's summaries) still gives its strong second piece before another day's weak first one.
# Put strictly one per day first, summaries' evidence fell from ranks 2–3 to 9–11 on BEAM-500K (dev).
OCCASION_DECAY = 0.7
# A memory longer than this (characters) is shown by its PASSAGES sentences that share most words with the question,
# each cut to PASSAGE_CHARS (services/recall/passages.py); the whole memory is one read of engrain://memories/{id}.
EXCERPT_CHARS = 320
PASSAGES = 2
PASSAGE_CHARS = 200
# What a line costs beside its words (the bracket with both dates and marks, the quotes, the short id), in
# characters: a piece's cost is its words plus this (the longest bracket: both dates, a span, a mark).
LINE_OVERHEAD = 80
# The gathering text's own lines beside the pieces (its longer first line, the passages' notice, the count of
# more): kept out of the pieces' room so that the whole text stays within what the ten best whole results take.
GATHER_HEAD = 220
