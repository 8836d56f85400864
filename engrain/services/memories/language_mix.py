"""Which languages the memories are in, for the choice of embedding model.

`auto` serves an English model unless a good share of the memories is in another language — most of
them, or a quarter for someone who writes in two languages and asks in either — then a multilingual one
(see providers/embedder_manager.py): the English model's vectors of other languages are noise, and a
question in one language cannot reach a memory in the other. The mix is read before `auto` loads a model and,
after a memory in another language is stored, at most once a minute (one query over the newest memories). A
batch (a conversation, an import) is weighed with the home before it is embedded: a new user's first batch in
Chinese is embedded by the multilingual model at once, not by the English one and then again in the background
while their first questions find half of it by words only (issue 51: 0.625 against 0.708 any@10 on the Chinese
set, `bench/quality.py`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from engrain.storage import stats as stats_repo
from engrain.text.languages import ENGLISH

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

SAMPLE = 1000  # the newest live memories read
MIN_MEMORIES = 20  # from this many on, the share decides
# Below it, a new user who writes in another language from the start: this many memories not in English
# (and the share) switch at once, so their first questions are answered by meaning; one foreign sentence
# among an English user's first memories does not.
EARLY_FOREIGN = 2
MULTILINGUAL_SHARE = 0.25  # a quarter not in English: mostly another language, or two mixed
CHECK_SECONDS = 60.0


def wants_multilingual(count: int, share: float) -> bool:
    """Whether `count` newest memories, `share` of them not in English, call for the multilingual model."""
    if share <= MULTILINGUAL_SHARE:
        return False
    return count >= MIN_MEMORIES or round(count * share) >= EARLY_FOREIGN


class LanguageMix:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self._next_check = 0.0
        self._few = True  # the last reading saw fewer than MIN_MEMORIES: read on every foreign memory

    def stored(self, langs: list[str]) -> None:
        """Memories in these languages were stored: read the mix again if one is not English (at most once
        a minute, except while there are few memories: then a new user's second sentence decides)."""
        if self.rt.embeddings.multilingual or all(lang == ENGLISH for lang in langs):
            return
        if self._few or time.monotonic() >= self._next_check:
            self._next_check = time.monotonic() + CHECK_SECONDS
            self.rt.spawn(self.check())

    async def _mix(self) -> tuple[int, float]:
        """How many of the home's newest memories were read, and the share of them not in English (one query)."""
        db = await self.rt.database()
        async with db.sessions() as s:
            return await stats_repo.language_mix(s, self.rt.clock(), SAMPLE)

    async def wanted(self) -> bool:
        """Whether the home's newest memories call for the multilingual model (one query)."""
        count, share = await self._mix()
        self._few = count < MIN_MEMORIES
        return wants_multilingual(count, share)

    async def before_embedding(self, langs: list[str]) -> None:
        """A batch in these languages is about to be embedded: when it and the home's newest memories together
        call for the multilingual model, it serves first (one query; nothing when the batch is all English)."""
        foreign = sum(lang != ENGLISH for lang in langs)
        if self.rt.embeddings.multilingual or self.rt.embeddings.spec.kind != "auto" or not foreign:
            return
        count, share = await self._mix()
        kept = min(count, max(0, SAMPLE - len(langs)))  # the home's newest that a sample with the batch keeps
        total = len(langs) + kept
        if not wants_multilingual(total, (foreign + share * kept) / total):
            return
        if self.rt.embeddings.current is None:  # still loading: the batch is stored first, embedded once it serves
            self.rt.spawn(self.rt.embeddings.prefer_multilingual())
        else:
            await self.rt.embeddings.prefer_multilingual()

    async def check(self) -> None:
        if await self.wanted():
            await self.rt.embeddings.prefer_multilingual()
