"""A small cache for slowly drifting reads that recall consults on every call (a user's common
words, the table's word rarity): the first call for a key reads and waits; once an entry is older
than its time to live it keeps answering while one background task reads it again, so no later
call waits for the database."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class RefreshingCache(Generic[K, V]):
    """`load(key)` cached for `ttl` seconds, at most `max_entries` keys (least recently used go)."""

    def __init__(
        self,
        load: Callable[[K], Awaitable[V]],
        spawn: Callable[[Awaitable[Any]], None],
        *,
        ttl: float,
        max_entries: int,
    ) -> None:
        self._load = load
        self._spawn = spawn
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._refreshing: set[K] = set()

    async def get(self, key: K) -> V:
        cached = self._entries.get(key)
        if cached is None:
            return await self._read(key)
        self._entries.move_to_end(key)
        if cached[0] <= time.monotonic() and key not in self._refreshing:
            self._refreshing.add(key)
            self._spawn(self._refresh(key))
        return cached[1]

    async def read(self, key: K) -> V:
        """`load(key)` now, kept for the next `get`s (a caller that knows the cached value is out of date)."""
        return await self._read(key)

    def forget(self) -> None:
        """Drop every entry: the next call for each key reads again."""
        self._entries.clear()

    async def _refresh(self, key: K) -> None:
        try:
            await self._read(key)
        finally:
            self._refreshing.discard(key)

    async def _read(self, key: K) -> V:
        value = await self._load(key)
        self._entries[key] = (time.monotonic() + self.ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return value
