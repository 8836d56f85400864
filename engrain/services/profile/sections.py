"""The profile's sections, in the order a model needs them, and the token budget they share.

The standing picture comes first (issues 42, 52, 61): the current facts by key (who the user is, where they live
and work, their phone or gym), the people and pets in their life, how they want answers, their health; then what
engrain concluded (the core and established traits); the dates that matter and what is ahead (plans, on the user's
clock); then what they prefer, the traits still forming and how they live (habits); then what was told lately and
not yet digested. The budget is spent in tokens, not lines (issue 61: six 250-character memories filled it before
a single established trait): the core and established traits — the distilled user model, a few words each — first
and whole, then each section's share of lines, then the further lines (`render`); and lines that repeat one another
are folded into the first (view.py). Each line is a memory line (services/wording/lines.py): its date, its mark,
the statement it is shown for — a long memory cut to its sentences within LINE_CHARS (`lines.gist`), the whole
memory one call away by its short id. What a section has beyond its share, and what the budget leaves out, is
counted with where it is listed, never cut mid-line or dropped without a word.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import tzinfo

from engrain.services.wording.lines import Shown, gist, memory_line

# The profile's budget, in tokens (about four characters each, as recall counts them). Chosen by measurement on a
# year of chat (tests/services/profile/test_a_year_of_chat.py: 29 sessions, 174 memories of 206 characters on
# average, 9 core and established traits, 16 key facts): every trait and 13 of the 16 facts fit in 1,000 tokens,
# 15 in 1,200, all 16 in 1,400 (lines of LINE_CHARS); 1,500 leaves room for a second year's traits and plans. (It
# was 1,000, chosen on a ten-session person whose ten facts fit in 508 tokens: issue 61 showed a year does not.)
PROFILE_TOKENS = 1500
# The instructions' summary: the same sections, fewer of them.
SUMMARY_TOKENS = 400
# A profile line states a fact, it is not a document: a longer memory shows the sentences, from the one that says
# what the line is shown for, that fit in this many characters (`lines.gist`). Measured on the same year: at 120 a
# fact in a memory's second sentence ("… I have mild asthma") is cut off, at 160 and more fewer facts fit a budget.
LINE_CHARS = 140
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
    focus: str | None = None  # the words the line is shown for (a key's value): the sentence it shows holds them


@dataclass
class Section:
    title: str
    items: list[Item] = field(default_factory=list[Item])
    more: int = 0  # rows beyond the section's share, not shown anywhere in the profile
    listed: str = "memories"  # where the rest is listed (LISTED_BY)
    share: int = 2  # lines it keeps before any section's further lines take the budget (`render`)
    whole: bool = False  # every line of it is spent before any section's share (the core and established traits)


def left_out_line(counts: dict[str, int]) -> str:
    """ "(5 more not shown here — 3 memories: recall finds them; 2 plans: engrain://intentions)"."""
    parts = [f"{n} {what}: {LISTED_BY[what]}" for what, n in counts.items() if n]
    return _LEFT_OUT.format(sum(counts.values()), "; ".join(parts))


def item_line(item: Item, tz: tzinfo | None) -> str:
    words = gist(item.content, LINE_CHARS, item.focus)
    return memory_line(words, item.id, shown=item.shown, tz=tz, tags=item.tags)


def render(head: list[str], sections: list[Section], budget_tokens: int, tail: list[str], tz: tzinfo | None) -> str:
    """`head`, then each non-empty section with the lines the budget holds, then a count of what did not fit, then
    `tail` (the line that says a reflection is due); all of it within the budget. The budget is spent by value, in
    three passes over the sections in their order: the whole sections (the traits: what engrain concluded of a
    year, in a few words each — issue 61 showed 2 of 9 when six long memories came first), then each section's share
    of lines (issue 52: no section left out because those above it had many), then the further lines."""
    longest = len(left_out_line({what: 99_999 for what in LISTED_BY}))
    left = 4 * budget_tokens - sum(len(x) + 1 for x in head) - sum(len(x) + 2 for x in tail) - longest - 8
    lines = [[item_line(item, tz) for item in section.items] for section in sections]
    chosen: list[set[int]] = [set() for _ in sections]
    passes = (
        [len(s.items) if s.whole else 0 for s in sections],
        [s.share for s in sections],
        [len(s.items) for s in sections],
    )
    for upto in passes:
        for i, section in enumerate(sections):
            for j, line in enumerate(lines[i]):
                if len(chosen[i]) >= upto[i]:
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
