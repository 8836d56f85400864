"""The pieces a question that gathers is answered with (rules/gathering.py; issue 60).

Pure: the hits of the recall statement in, the pieces that fit out. Each further piece of one occasion (the day
the user told it, in their zone) counts OCCASION_DECAY of its score once more — so a list told over months is not
answered by ten near-copies from the session that talks most about it, while a day that holds much of the answer
keeps its strong pieces. They fit in what the `limit`
best whole results would have taken (never more than the text's budget): each piece is its passages for a
long memory (`excerpt`), so more of them fit.

A digest among the hits (rules/digests.py: a model's summary of everything told about one thing, with the dates)
comes before them all, whole: it holds the answer in one piece, and an excerpt of it would cut the list it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, tzinfo

from engrain.reading.dates import local
from engrain.rules.digests import DIGEST
from engrain.rules.gathering import (
    EXCERPT_CHARS,
    GATHER_FLOOR,
    GATHER_HEAD,
    LINE_OVERHEAD,
    OCCASION_DECAY,
)
from engrain.services.recall.passages import MOST_CHARS, passages
from engrain.services.recall.results import RecallHit


@dataclass(frozen=True)
class Pieces:
    hits: list[RecallHit]  # chosen, in the order chosen
    found: int
    occasions: int


def occasion(hit: RecallHit, tz: tzinfo | None) -> date:
    """The day the user told it, on their clock: one conversation, one occasion."""
    return local(hit.told_at, tz).date()


def shortened(hit: RecallHit) -> bool:
    """A told memory long enough to be shown by its passages (a digest is always whole)."""
    return hit.kind != DIGEST and len(hit.content) > EXCERPT_CHARS


def most(hit: RecallHit) -> int:
    """The most a piece can take of the text: its line, and its passages' longest for a long memory (read only
    for the pieces chosen) or else its words."""
    words = min(len(hit.content), MOST_CHARS) if shortened(hit) else len(hit.content)
    return words + LINE_OVERHEAD


def gather(hits: list[RecallHit], limit: int, budget_chars: int, tz: tzinfo | None, question: str) -> Pieces:
    """`hits` best first. The pieces take what the `limit` best whole hits would (at most `budget_chars`), less
    the gathering text's own lines; beyond those `limit`, a hit below GATHER_FLOOR of the best score is no piece.
    Digests first, whole, best first; a long memory comes with its passages that answer `question`."""
    reference = sum(len(hit.content) + LINE_OVERHEAD for hit in hits[:limit])
    left = min(reference, budget_chars) - GATHER_HEAD
    floor = GATHER_FLOOR * max((hit.score for hit in hits), default=0.0)
    hits = hits[:limit] + [hit for hit in hits[limit:] if hit.score >= floor]
    digests = [hit for hit in hits if hit.kind == DIGEST]
    told = [hit for hit in hits if hit.kind != DIGEST]
    chosen: list[RecallHit] = []
    for hit in digests + spread(told, tz):
        if most(hit) > left and chosen:  # the best piece always: the text shows one line whatever the room
            continue
        piece = hit.model_copy(update={"excerpt": passages(hit.content, question) if shortened(hit) else None})
        chosen.append(piece)
        left -= len(piece.excerpt or piece.content) + LINE_OVERHEAD  # what it takes, once its passages are read
        if left < LINE_OVERHEAD:
            break
    return Pieces(chosen, len(hits), len({occasion(hit, tz) for hit in told}))


def spread(hits: list[RecallHit], tz: tzinfo | None) -> list[RecallHit]:
    """`hits` (best first) reordered by their score times OCCASION_DECAY to the power of how many better ones
    their occasion already has. A digest is no occasion (it was told on no day of its own): none come here."""
    seen: dict[date, int] = {}
    keyed: list[tuple[float, int, RecallHit]] = []
    for n, hit in enumerate(hits):
        day = occasion(hit, tz)
        keyed.append((hit.score * OCCASION_DECAY ** seen.get(day, 0), -n, hit))
        seen[day] = seen.get(day, 0) + 1
    return [hit for _, _, hit in sorted(keyed, key=lambda k: (k[0], k[1]), reverse=True)]
