"""Topic digests (issue 60, part 2): what the user told about one thing over months — their books, their recipes, a
project, a tournament record — kept as one memory of kind `digest`, written by a model in a reflection, with the
memories it draws on (its evidence) and their dates.

A question that gathers ("what books have I read?") is answered from the whole history, and the ranking alone
fills the first ten with near-copies from the session that talks most about it; a digest holds the answer in one
piece, so recall shows it first (services/recall/gathering.py). A digest is never what the user told: it is
never new to a reflection, never evidence, and never moves the user's clock.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime

DIGEST = "digest"  # the kind of a memory that summarizes what the user told about one thing
# The relation a digest's links carry to each memory it draws on, and back from each of them.
SUMMARIZES = "summarizes"
SUMMARIZED_BY = "summarized_by"
# A new digest needs memories of at least this many: a thing told once or twice needs no summary.
MIN_EVIDENCE = 3
# The user's live digests a reflection shows (newest first), as d1, d2…: enough for the topics a user returns to.
SHOWN_DIGESTS = 20
# The words of one digest (characters): a year of a topic in dated sentences; a longer answer is refused by name.
MAX_DIGEST_CHARS = 4_000
MAX_TOPIC_CHARS = 120


def evidence_of(old: Sequence[uuid.UUID], new: Iterable[uuid.UUID]) -> list[uuid.UUID]:
    """A rewritten digest draws on what the old one did and what the new memories add: the union, the old
    evidence first, each once."""
    return list(dict.fromkeys([*old, *new]))


def enough_evidence(rewrite: bool, evidence: int) -> bool:
    """A new digest needs MIN_EVIDENCE memories; a rewrite adds to one that had them."""
    return evidence >= (1 if rewrite else MIN_EVIDENCE)


def evidence_span(times: Iterable[tuple[datetime | None, datetime]]) -> tuple[datetime, datetime] | None:
    """The first and last time of the evidence — each memory's event time, else when it was told — (None without
    evidence): the period a digest's line shows as `happened a..b`."""
    moments = [event if event is not None else told for event, told in times]
    return (min(moments), max(moments)) if moments else None
