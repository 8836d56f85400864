"""The profile's sections, in the order a model needs them, and the token budget they share.

The standing picture comes first (issues 42, 52): the current facts by key (who the user is, where they live
and work, their phone or gym), the people and pets in their life, how they want answers and what they prefer,
their health; then what engrain concluded (traits by stage and confidence, the forming ones apart) and how they
live (habits); then what is ahead (plans, on the user's clock) and the dates that matter; then what was told
lately and not yet digested. Each section keeps a share of the budget (`Section.share`), and lines that repeat
one another are folded into the first (view.py). Each line is a memory line (services/wording/lines.py): its
date, its mark, its whole words up to LINE_CHARS, a short id. What a section has beyond its share, and what the
budget leaves out, is counted with where it is listed, never cut mid-line or dropped without a word.
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
# Rows a section's query reads: its share, and enough beyond it to count what it leaves out.
FETCHED = 5 * PER_SECTION


# Where what a section leaves out is listed: its memories by recall, plans in engrain://intentions, traits
# by get_user_traits (issue 42: a profile cut 16 entries without a word).
LISTED_BY = {"memories": "recall finds them", "plans": "engrain://intentions", "traits": "get_user_traits"}
_LEFT_OUT = "({} more not shown here — {})"


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
    more: int = 0  # rows beyond the section's share, not shown anywhere in the profile
    listed: str = "memories"  # where the rest is listed (LISTED_BY)
    share: int = 2  # lines it keeps before any section's further lines take the budget (`render`)


def left_out_line(counts: dict[str, int]) -> str:
    """ "(5 more not shown here — 3 memories: recall finds them; 2 plans: engrain://intentions)"."""
    parts = [f"{n} {what}: {LISTED_BY[what]}" for what, n in counts.items() if n]
    return _LEFT_OUT.format(sum(counts.values()), "; ".join(parts))


def item_line(item: Item, tz: tzinfo | None) -> str:
    return memory_line(item.content, item.id, shown=item.shown, tz=tz, tags=item.tags, limit=LINE_CHARS)


def render(head: list[str], sections: list[Section], budget_tokens: int, tail: list[str], tz: tzinfo | None) -> str:
    """`head`, then each non-empty section with the lines the budget holds, then a count of what did not fit, then
    `tail` (the line that says a reflection is due); all of it within the budget. The budget is spent by value
    (issue 52): first each section's share of lines, in the sections' order, then the further lines in the same
    order — so that no section is left out because those above it had many lines (the traits were: the facts,
    people and preferences of a year filled the budget before them)."""
    longest = len(left_out_line({what: 99_999 for what in LISTED_BY}))
    left = 4 * budget_tokens - sum(len(x) + 1 for x in head) - sum(len(x) + 2 for x in tail) - longest - 8
    lines = [[item_line(item, tz) for item in section.items] for section in sections]
    chosen: list[set[int]] = [set() for _ in sections]
    for shares in (True, False):
        for i, section in enumerate(sections):
            for j, line in enumerate(lines[i]):
                if shares and len(chosen[i]) >= section.share:
                    break
                cost = len(line) + 1 + (0 if chosen[i] else len(section.title) + 5)
                if j not in chosen[i] and cost <= left:
                    chosen[i].add(j)
                    left -= cost
    out = list(head)
    left_out = dict.fromkeys(LISTED_BY, 0)
    for i, section in enumerate(sections):
        left_out[section.listed] += section.more + len(lines[i]) - len(chosen[i])
        if chosen[i]:
            out += ["", f"## {section.title}", *(line for j, line in enumerate(lines[i]) if j in chosen[i])]
    if any(left_out.values()):
        out += ["", left_out_line(left_out)]
    if tail:
        out += ["", *tail]
    return "\n".join(out).rstrip() + "\n"
