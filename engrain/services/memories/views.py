"""Reading memories back as resources show them: one memory with its links and history, the newest,
and the user's plans (upcoming and overdue)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from engrain.errors import InvalidInput, NotFound
from engrain.reading import inputs
from engrain.reading.dates import period_ahead
from engrain.rules import plans as plans_rules
from engrain.services.memories import plans_text
from engrain.services.memories.results import (
    HistoryEntry,
    LinkView,
    MemoryDetail,
    MemoryRef,
    MemoryView,
    PlansInPeriod,
)
from engrain.services.wording import short_ids as ids
from engrain.storage import browse
from engrain.storage import links as link_repo
from engrain.storage import memories as repo
from engrain.storage.models import Memory
from engrain.storage.timeline import user_now
from engrain.text.languages import detect

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime


def split_intentions(plans: list[Memory], at: datetime) -> tuple[list[Memory], list[Memory]]:
    """Prospective memories as (upcoming or undated, overdue) at the user's moment `at` (rules/plans.py): a plan
    whose period is over stays overdue until the expiry pass makes it historical; an undated plan told long
    before is left out (it lapsed)."""
    live = [m for m in plans if not plans_rules.lapsed(m.event_time, m.told_at, at)]
    overdue = [m for m in live if plans_rules.over(m.event_time, m.event_end, at)]
    return [m for m in live if m not in overdue], overdue


class MemoryViews:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def detail(self, user_id: str, memory_id: str) -> MemoryDetail:
        """One memory with its links and its history (the `engrain://memories/{id}` resource)."""
        db = await self.rt.database()
        async with db.sessions() as s:
            mid = await ids.resolve(s, user_id, "memory_id", memory_id)
            m = await repo.get(s, user_id, mid)
            if m is None:
                raise NotFound("memory_id", mid)
            links = await link_repo.links_of(s, user_id, mid)
            hist = await repo.history(s, user_id, mid)
            older = await browse.replaced_by(s, user_id, mid)
        return MemoryDetail(
            **MemoryView.of(m).model_dump(),
            links=[LinkView.of(link) for link in links],
            history=[HistoryEntry.of(h) for h in hist],
            superseded_by=str(m.superseded_by) if m.superseded_by else None,
            supersedes=[MemoryRef(id=str(o.id), content=o.content, told_at=o.told_at) for o in older],
        )

    async def recent(self, user_id: str, limit: int = 20) -> list[MemoryView]:
        db = await self.rt.database()
        async with db.sessions() as s:
            return [MemoryView.of(m) for m in await repo.recent(s, user_id, self.rt.clock(), limit)]

    async def intentions(self, user_id: str) -> str:
        """Prospective memories split into upcoming (or undated) and overdue on the user's clock, as text
        (the `engrain://intentions` resource)."""
        now = self.rt.clock()
        db = await self.rt.database()
        async with db.sessions() as s:
            at = await user_now(s, user_id, now)
            rows = await repo.intentions(s, user_id, now)
        upcoming, overdue = split_intentions(rows, at)
        views = [MemoryView.of(m) for m in upcoming], [MemoryView.of(m) for m in overdue]
        return plans_text.render(*views, at, self.rt.settings.tz)

    async def intentions_in(self, user_id: str, period: str) -> str:
        """The plans and appointments dated in what is still ahead of `period` ("this week", "next month",
        "这周", "nächste Woche"), whenever they were told, as text (the `engrain://intentions/{period}`
        resource)."""
        text = inputs.text_field("period", period, 200)
        now = self.rt.clock()
        window = period_ahead(text, now, self.rt.settings.tz, detect(text))
        if window is None:
            raise InvalidInput("period", f"{text!r} names no period ahead, like 'this week', 'next month' or '这周'")
        db = await self.rt.database()
        async with db.sessions() as s:
            rows = await repo.plans_between(s, user_id, window[0], window[1], now)
        plans = PlansInPeriod(period=text, start=window[0], end=window[1], upcoming=[MemoryView.of(m) for m in rows])
        return plans_text.render_period(plans, now, self.rt.settings.tz)
