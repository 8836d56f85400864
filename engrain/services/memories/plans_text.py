"""The text of the plans resources (engrain://intentions and engrain://intentions/{period}), as a model reads
them: one memory line per plan (services/wording/lines.py), upcoming apart from overdue, on the user's clock."""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

from engrain.reading.metadata import MemoryMetadata
from engrain.reading.periods import Period
from engrain.services.memories.results import MemoryView, PlansInPeriod
from engrain.services.wording.lines import marks, memory_line, shown_when
from engrain.text.quoting import DATA_NOTICE, inline


def plan_line(plan: MemoryView, at: datetime, tz: tzinfo | None) -> str:
    meta = MemoryMetadata.of(plan.metadata)
    happened = Period.stored(plan.event_time, plan.event_end, plan.event_grain, tz)
    tags = marks(plan.kind, plan.temporality, happened, at, meta.habit, was_plan=bool(meta.was_plan))
    return memory_line(plan.content, plan.id, shown=shown_when(plan.kind, plan.told_at, happened), tz=tz, tags=tags)


def render(upcoming: list[MemoryView], overdue: list[MemoryView], at: datetime, tz: tzinfo | None) -> str:
    """Every live plan: upcoming (and undated) soonest first, then the overdue ones."""
    day = (at.astimezone(tz) if tz else at.astimezone()).date().isoformat()
    lines = [f"# Plans as of {day} in the user's time", "", DATA_NOTICE]
    for title, group in (("Upcoming", upcoming), ("Overdue", overdue)):
        if group:
            lines += ["", f"## {title}", *(plan_line(p, at, tz) for p in group)]
    if not upcoming and not overdue:
        lines += ["", "No plans."]
    return "\n".join(lines) + "\n"


def render_period(plans: PlansInPeriod, at: datetime, tz: tzinfo | None) -> str:
    """The plans of a named period ahead, with the days it covers."""

    def day(t: datetime) -> str:
        return (t.astimezone(tz) if tz else t.astimezone()).date().isoformat()

    # The period's end is exclusive (next Monday's midnight); the heading names its last day (Sunday).
    last = day(plans.end - timedelta(microseconds=1))
    lines = [f"# Plans for «{inline(plans.period, 80)}»: {day(plans.start)} to {last}", "", DATA_NOTICE, ""]
    lines += [plan_line(p, at, tz) for p in plans.upcoming] or ["No plans in that period."]
    return "\n".join(lines) + "\n"
