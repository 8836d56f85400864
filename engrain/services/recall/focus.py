"""Query focus: what recall embeds of a query.

A word found in most of a user's memories (their name on every turn of a transcript, "User" at the
head of every extracted fact) says nothing about which memory is meant, yet in a short text it
dominates the embedding: with the packaged MiniLM, "What profession did Alice's sibling start?" is
closer to "Alice: No way, really?" (0.64) than to "Alice: My brother Tom just got a job as a
firefighter" (0.57); without "Alice's" the order flips (0.13 against 0.41). So recall embeds the
query without such words. Full-text matching still sees every word, weighted by rarity.

The common words of a user are read from a bounded sample of their memories and renewed each minute.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engrain.services.recall.refreshing import RefreshingCache
from engrain.storage.vocabulary import common_words
from engrain.text.fulltext import words_of
from engrain.text.languages import cjk_language

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

# A word in at least this share of the user's memories is left out of the query's embedding. Well
# above what a topic reaches (a pet named in a fifth of a long chat), well below a speaker's name in
# a two-person transcript (about half) or a prefix every memory carries.
COMMON_SHARE = 0.3
# Below this many memories a share means little: three memories out of five is no pattern.
MIN_MEMORIES = 20
CACHE_SECONDS = 60.0
CACHE_USERS = 1024
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class FocusedQuery:
    text: str  # what to embed
    left_out: tuple[str, ...]  # the user's common words found in the query, lower-cased


def focus(query: str, common: frozenset[str]) -> FocusedQuery:
    """The query without the user's common words (and their possessive 's). A query made only of
    common words is kept whole: there would be nothing left to embed. CJK words are the segmenter's
    (the same as the index's), found inside the text without word boundaries."""
    cjk = cjk_language(query)
    words = (words_of(query, cjk) or []) if cjk else _WORD.findall(query)
    found = tuple(dict.fromkeys(w.lower() for w in words if w.lower() in common))
    if not found:
        return FocusedQuery(query, ())
    alternatives = "|".join(map(re.escape, sorted(found, key=len, reverse=True)))
    pattern = re.compile(
        alternatives if cjk else r"(?<![^\W_])(?:" + alternatives + r")(?:['’]s)?(?![^\W_])", re.IGNORECASE
    )
    rest = " ".join(pattern.sub(" ", query).split())
    if not _WORD.search(rest):
        return FocusedQuery(query, ())
    return FocusedQuery(rest, found)


class QueryFocus:
    """Per-user common words. A user's vocabulary drifts slowly: the first recall of a user reads it
    (a few milliseconds); after CACHE_SECONDS the cached words keep answering while a background
    task reads them again (services/recall/refreshing.py), so no later recall waits for it."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self.words = RefreshingCache(self._read, runtime.spawn, ttl=CACHE_SECONDS, max_entries=CACHE_USERS)

    async def common_words(self, user_id: str) -> frozenset[str]:
        return await self.words.get(user_id)

    async def _read(self, user_id: str) -> frozenset[str]:
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            sampled, shares = await common_words(s, user_id, self.rt.clock(), COMMON_SHARE)
        return frozenset(shares) if sampled >= MIN_MEMORIES else frozenset()

    async def focus(self, user_id: str, query: str) -> FocusedQuery:
        return focus(query, await self.common_words(user_id))
