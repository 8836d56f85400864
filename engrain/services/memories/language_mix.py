"""Which languages the memories are in, for the choice of embedding model.

`auto` serves an English model unless a good share of the memories is in another language — most of
them, or a quarter for someone who writes in two languages and asks in either — then a multilingual one
(see providers/embedder_manager.py): the English model's vectors of other languages are noise, and a
question in one language cannot reach a memory in the other. The mix is read when the database opens and, after a memory
in another language is stored, at most once a minute (one query over the newest memories).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from engrain.storage import stats as stats_repo
from engrain.text.languages import ENGLISH

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

SAMPLE = 1000  # the newest live memories read
MIN_MEMORIES = 20  # fewer say nothing about a user's languages
MULTILINGUAL_SHARE = 0.25  # a quarter not in English: mostly another language, or two mixed
CHECK_SECONDS = 60.0


class LanguageMix:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self._next_check = 0.0

    def stored(self, langs: list[str]) -> None:
        """Memories in these languages were stored: read the mix again if one is not English."""
        if self.rt.embeddings.multilingual or all(lang == ENGLISH for lang in langs):
            return
        if time.monotonic() >= self._next_check:
            self._next_check = time.monotonic() + CHECK_SECONDS
            self.rt.spawn(self.check())

    async def check(self) -> None:
        db = await self.rt.database()
        async with db.sessions() as s:
            count, share = await stats_repo.language_mix(s, self.rt.clock(), SAMPLE)
        if count >= MIN_MEMORIES and share > MULTILINGUAL_SHARE:
            await self.rt.embeddings.prefer_multilingual()
