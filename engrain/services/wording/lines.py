"""One line per memory, as a model reads it in a tool's text: when the user said it and when it happened, what
kind of thing it is when that matters, its whole words (quoted, so they stay data), and a short id the tools
accept back.

    - [said 2023-01-01 · happened 2022-12] «I took this photo last month» (3f2a9c1e)
    - [said 2026-11-20 · happened 2026-11-27, plan] «Dinner at Marlow's on Friday» (a81c02d4)
    - [said 2026-03-02, habit] «I go climbing on Thursday evenings» (0b7e4f11)

Most clients hand the model a result's text, not its structured content: without the dates there, a model
cannot answer "when…". The two are labelled and each is shown at its own precision (issue 41): one date in a
bracket was read as the day the user spoke, and "last month" shown as 2022-12-01 was shifted once more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo

from engrain.reading import inputs
from engrain.reading.dates import local, meant
from engrain.reading.metadata import MemoryMetadata
from engrain.reading.mood import sentences
from engrain.reading.periods import Period
from engrain.reading.slots import tag
from engrain.reading.speakers import REPLY
from engrain.rules import plans
from engrain.rules.digests import DIGEST
from engrain.rules.traits import FORMING_STAGES
from engrain.text.quoting import inline


def marks(
    kind: str,
    temporality: str,
    happened: Period | None,
    now: datetime,
    habit: bool,
    stage: str | None = None,
    digest_of: int = 0,
    *,
    was_plan: bool = False,
) -> list[str]:
    """What the model should know a memory is beyond its words: a plan (overdue once its whole period passed:
    "next month" is not overdue on its 2nd), a habit, a procedure, a trait and its stage; what an assistant said is
    marked as its reply; a digest, a model's summary of `digest_of` memories, says so (it is no statement of the
    user's, and its dates are theirs). What is over says so (issue 61: lines that read as current but are not): a
    plan whose time passed (`was_plan`) is a "past plan", a habit told in the past a "past habit", and a past
    statement with no period of its own to show it "past"; a dated past event's "happened" date says it."""
    if kind == "trait":
        return [f"trait, {stage}" if stage else "trait"]
    if kind == DIGEST:
        return [f"digest of {digest_of} {'memory' if digest_of == 1 else 'memories'}"]
    if kind == REPLY:
        return ["assistant's reply"]  # what was said to the user, not what the user said
    past = temporality == "historical"
    if habit:
        return ["past habit" if past else "habit"]
    if temporality == "prospective":
        overdue = (
            happened is not None and meant(happened.start) is not None and plans.over(happened.start, happened.end, now)
        )
        return ["overdue plan"] if overdue else ["plan"]
    if past and was_plan:
        return ["past plan"]
    if kind == "procedural":
        return ["procedure"]
    return ["past"] if past and (happened is None or meant(happened.start) is None) else []


def replaced_mark(meta: MemoryMetadata) -> list[str]:
    """A memory whose value of a key a later one replaced, the rest of it still true: "home replaced by
    5991d65a" (services/memories/replacing.py) — so that the old value never passes as current."""
    if meta.replaced_key is None or meta.replaced_by is None:
        return []
    return [f"{tag(meta.replaced_key)} replaced by {inputs.short_id(meta.replaced_by)}"]


@dataclass(frozen=True)
class Shown:
    """The two times a memory line shows: when the user said it (never when engrain stored it: an import is
    months late), and when it happened, as the period its words gave."""

    said: datetime | None
    happened: Period | None = None


NOT_SHOWN = Shown(None)  # a trait: a conclusion, said by no one
_MORE = " …"  # a line's words go on in the memory (`gist`)


def shown_when(kind: str, told_at: datetime, happened: Period | None) -> Shown:
    return NOT_SHOWN if kind == "trait" else Shown(told_at, happened)


def trait_tag(stage: str | None, confidence: float | None) -> str:
    """A trait's bracket: its stage and confidence, "forming: " before a stage not yet confirmed."""
    forming = "forming: " if stage in FORMING_STAGES else ""
    return f"{forming}{stage}, {confidence or 0.0:.2f}"


def memory_line(
    content: str,
    memory_id: object,
    *,
    shown: Shown,
    tz: tzinfo | None,
    tags: list[str],
    limit: int | None = None,
) -> str:
    """`- [said D · happened P, marks] «content» (short id)`; `limit` cuts the content (in characters) when a
    budget runs out. A stored date no person means (from before the checks of issue 39) is shown as none."""
    times = when_text(shown, tz)
    bracket = ", ".join([times, *tags] if times else tags)
    prefix = f"[{bracket}] " if bracket else ""
    return f"- {prefix}«{inline(content, limit)}» ({inputs.short_id(memory_id)})"


def gist(content: str, limit: int, focus: str | None = None) -> str:
    """What a line shows of a memory longer than `limit` characters: its sentences from the one that holds `focus`
    (the value of the key the line is shown for: "I'm from Valparaíso" in a chat turn that opens with the weather),
    else from the first, as many as fit — or, when those would fill less than half the room, its words up to the
    limit, cut at a word. "…" marks words left out before or after, so that the line never passes for the whole
    memory (recall or its id brings that back: issue 61, a profile line is a statement, not a document)."""
    flat = " ".join(content.split())
    if len(flat) <= limit:
        return flat
    parts = sentences(flat) or [flat]
    wanted = focus.lower() if focus else None
    at = next((i for i, sentence in enumerate(parts) if wanted and wanted in sentence.lower()), 0)
    lead = "… " if at else ""
    rest = " ".join(parts[at:])
    room = limit - len(lead)
    if len(rest) <= room:
        return lead + rest
    room -= len(_MORE)
    kept = ""
    for sentence in parts[at:]:
        if len(kept) + 1 + len(sentence) > room:
            break
        kept = f"{kept} {sentence}".lstrip()
    if len(kept) < room // 2:
        cut = rest[: room + 1]
        kept = cut.rsplit(" ", 1)[0].rstrip(" ,;:") if " " in cut else rest[:room]
    return lead + kept + _MORE


def when_text(shown: Shown, tz: tzinfo | None) -> str:
    """ "said 2023-01-01 · happened 2022-12", or either alone, or "" (a trait)."""
    said = meant(shown.said)
    happened = shown.happened if shown.happened is not None and meant(shown.happened.start) else None
    times = [f"said {local(said, tz).date().isoformat()}"] if said else []
    times += [f"happened {happened.label(tz)}"] if happened is not None else []
    return " · ".join(times)
