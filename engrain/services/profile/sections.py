"""The profile's sections, in the order a model needs them, and the token budget they share.

The facts come first (who the user is, where they live and work, the people and pets in their life, the
dates that matter), then what engrain concluded (traits by stage, the forming ones apart), then what is
ahead (plans, in the user's time) and how they live (habits), then what was told lately and not yet
digested. Each line is a memory line (services/wording/lines.py): its date, its mark, its whole words up to
LINE_CHARS, a short id. When the budget runs out, the rest is counted, never cut mid-line.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import tzinfo

from engrain.services.wording.lines import Shown, memory_line

# The profile's budget, in tokens (about four characters each, as recall counts them). Chosen by measurement
# (bench/profile_coverage.py, a ten-session person's ten key facts): 7 fit in 250 tokens, 8 in 400, all 10 in 508;
# 1,000 leaves room for the traits and plans of a year of use.
PROFILE_TOKENS = 1000
# The instructions' summary: the same sections, fewer of them.
SUMMARY_TOKENS = 400
LINE_CHARS = 300  # a profile line holds a statement, not a document: longer memories are cut here
PER_SECTION = 8


_LEFT_OUT = "({} more not shown here: recall finds them, get_user_traits lists every trait)"


@dataclass(frozen=True)
class Item:
    """One memory or trait of a section: what the model reads as a memory line, and the page as a row."""

    id: uuid.UUID
    content: str
    shown: Shown  # the times the line shows (services/wording/lines.shown_when)
    tags: list[str]  # "home", "plan", "core, 0.91"…
    trait: bool = False


@dataclass
class Section:
    title: str
    items: list[Item] = field(default_factory=list[Item])


def item_line(item: Item, tz: tzinfo | None) -> str:
    return memory_line(item.content, item.id, shown=item.shown, tz=tz, tags=item.tags, limit=LINE_CHARS)


def render(head: list[str], sections: list[Section], budget_tokens: int, tail: list[str], tz: tzinfo | None) -> str:
    """`head`, then each non-empty section with as many of its lines as the budget holds, then a count of
    what did not fit, then `tail` (the line that says a reflection is due); all of it within the budget."""
    left = 4 * budget_tokens - sum(len(x) + 1 for x in head) - sum(len(x) + 2 for x in tail) - len(_LEFT_OUT) - 8
    out = list(head)
    left_out = 0
    for section in sections:
        if not section.items:
            continue
        title = f"## {section.title}"
        opened = False  # the title is written with the section's first line that fits
        for line in (item_line(item, tz) for item in section.items):
            if len(line) + 1 + (0 if opened else len(title) + 2) > left:
                left_out += 1
                continue
            if not opened:
                out += ["", title]
                left -= len(title) + 2
                opened = True
            out.append(line)
            left -= len(line) + 1
    if left_out:
        out += ["", _LEFT_OUT.format(left_out)]
    if tail:
        out += ["", *tail]
    return "\n".join(out).rstrip() + "\n"
