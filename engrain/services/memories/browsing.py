"""The memory browser of the local page (engrain ui): the user's live memories by kind, temporality,
namespace and told time, a page at a time, with how many were told each week. A search goes through
recall instead (services/recall), as the model's does."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from engrain.reading import inputs
from engrain.services.memories.results import MemoryView
from engrain.storage import browse

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

PAGE_SIZE = 50


@dataclass(frozen=True)
class BrowseRequest:
    """The filters as a form sends them (empty strings are no filter); each is checked, and an error names it."""

    kind: str = ""
    temporality: str = ""
    namespace: str = ""
    since: str = ""
    until: str = ""
    page: int = 1


@dataclass(frozen=True)
class BrowsePage:
    memories: list[MemoryView]
    total: int
    page: int
    pages: int
    weeks: list[tuple[datetime, int]]
    namespaces: list[str]


class MemoryBrowser:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    def _filter(self, r: BrowseRequest, now: datetime) -> browse.BrowseFilter:
        tz = self.rt.settings.tz
        return browse.BrowseFilter(
            kinds=(inputs.kind("kind", r.kind, inputs.ALL_KINDS),) if r.kind else None,
            temporality=inputs.kind("temporality", r.temporality, inputs.TEMPORALITIES) if r.temporality else None,
            namespace=inputs.namespace(r.namespace) if r.namespace else None,
            since=inputs.when("since", r.since, now, tz) if r.since else None,
            until=inputs.when("until", r.until, now, tz) if r.until else None,
        )

    async def page(self, user_id: str, request: BrowseRequest, *, listing: bool = True) -> BrowsePage:
        """The memories `request` selects, a page of them, with the weekly counts and the user's namespaces;
        `listing=False` (a search shows recall's hits instead): the counts and namespaces only."""
        now = self.rt.clock()
        f = self._filter(request, now)
        page = inputs.int_range("page", request.page, 1, 1_000_000)
        async with (await self.rt.database()).sessions() as s:
            rows, total = (
                await browse.memories(s, user_id, now, f, PAGE_SIZE, (page - 1) * PAGE_SIZE) if listing else ([], 0)
            )
            weeks = await browse.weekly(s, user_id, now, f)
            names = await browse.namespaces(s, user_id, now)
        return BrowsePage(
            memories=[MemoryView.of(m) for m in rows],
            total=total,
            page=page,
            pages=max(1, -(-total // PAGE_SIZE)),
            weeks=weeks,
            namespaces=names,
        )
