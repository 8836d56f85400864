"""One line per memory, as a model reads it in a tool's text: its date, what kind of thing it is when that
matters, its whole words (quoted, so they stay data), and a short id the tools accept back.

    - [2023-05-07] «Yesterday I finished mastering the single» (3f2a9c1e)
    - [2026-11-27, plan] «Dinner at Marlow's on Friday» (a81c02d4)
    - [habit] «I go climbing on Thursday evenings» (0b7e4f11)

Most clients hand the model a result's text, not its structured content: without the date there, a model
cannot answer "when…", and a memory cut at a fixed width loses the steps of a checklist. The date is when
the thing happened, else when the user told it, in the user's zone.
"""

from __future__ import annotations

from datetime import datetime, tzinfo

from engrain.reading import inputs
from engrain.reading.dates import meant
from engrain.rules.traits import FORMING_STAGES
from engrain.text.quoting import inline


def marks(
    kind: str, temporality: str, event_time: datetime | None, now: datetime, habit: bool, stage: str | None = None
) -> list[str]:
    """What the model should know a memory is beyond its words: a plan (overdue once its date passed), a
    habit, a procedure, a trait and its stage; plain facts and past events carry no mark."""
    if kind == "trait":
        return [f"trait, {stage}" if stage else "trait"]
    if habit:
        return ["habit"]
    if temporality == "prospective":
        return ["overdue plan"] if (when := meant(event_time)) is not None and when < now else ["plan"]
    return ["procedure"] if kind == "procedural" else []


def shown_when(kind: str, event_time: datetime | None, told_at: datetime, habit: bool) -> datetime | None:
    """The date a line shows: when the thing happened, else when the user told it (never when it was stored:
    an import is months late); a habit (a rule) and a trait (a conclusion) show none."""
    return None if habit or kind == "trait" else (event_time or told_at)


def trait_tag(stage: str | None, confidence: float | None) -> str:
    """A trait's bracket: its stage and confidence, "forming: " before a stage not yet confirmed."""
    forming = "forming: " if stage in FORMING_STAGES else ""
    return f"{forming}{stage}, {confidence or 0.0:.2f}"


def memory_line(
    content: str,
    memory_id: object,
    *,
    when: datetime | None,
    tz: tzinfo | None,
    tags: list[str],
    limit: int | None = None,
) -> str:
    """`- [date, marks] «content» (short id)`; `limit` cuts the content (in characters) when a budget runs out. A
    stored date no person means (from before the checks of issue 39) is shown as none, never a failure."""
    when = meant(when)
    head = [(when.astimezone(tz) if tz else when.astimezone()).date().isoformat()] if when is not None else []
    bracket = ", ".join(head + tags)
    prefix = f"[{bracket}] " if bracket else ""
    return f"- {prefix}«{inline(content, limit)}» ({inputs.short_id(memory_id)})"
