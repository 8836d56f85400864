"""engrain://profile and the instructions' summary: the user's facts, traits, plans and habits, read in one
session and written as memory lines under a token budget (sections.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from engrain.reading import inputs
from engrain.reading.duplicates import repeats
from engrain.reading.metadata import MemoryMetadata
from engrain.reading.periods import Period
from engrain.reading.slots import PROFILE_ORDER, of_family, slot_of, tag
from engrain.rules.traits import FORMING_STAGES, Stage
from engrain.services.profile.results import ProfileResult
from engrain.services.profile.sections import (
    FETCHED,
    PER_SECTION,
    PROFILE_TOKENS,
    SUMMARY_TOKENS,
    Item,
    Section,
    render,
)
from engrain.services.wording.lines import NOT_SHOWN, marks, replaced_mark, shown_when, trait_tag
from engrain.storage import memories as repo
from engrain.storage import profile as profile_repo
from engrain.storage import traits as trait_repo
from engrain.storage.models import Memory
from engrain.storage.profile import summary
from engrain.storage.timeline import user_now
from engrain.text.quoting import DATA_NOTICE, inline

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime
    from engrain.services.traits.reflection.due import ReflectionDue

# A dated event at least this important (as a model rated it, or the text: services/memories) is a key date.
KEY_DATE_IMPORTANCE = 7
LATELY = 5


@dataclass(frozen=True)
class _Slot:
    """Whose fact a slot memory states, and what it is ("user", "home"; "sister", "person")."""

    whose: str
    what: str

    @classmethod
    def of(cls, m: Memory) -> _Slot:
        whose, _, what = str(MemoryMetadata.of(m.metadata_).slot).rpartition(":")
        return cls(whose, what)

    @property
    def key(self) -> str:
        return f"{self.whose}:{self.what}"

    @property
    def tag(self) -> str:
        """ "home", "origin" for the user's own; "sister", "sister's home", "dog" for others'."""
        return tag(self.key)

    @property
    def order(self) -> tuple[int, str, str]:
        rank = PROFILE_ORDER.index(self.what) if self.what in PROFILE_ORDER else len(PROFILE_ORDER)
        return (0 if self.whose == "user" else 1, self.whose, f"{rank:02d}{self.what}")


def holds_now(m: Memory) -> bool:
    """Whether a memory that fills a key states who the user is now (issue 61: "By early February 2022 I had sent
    my first screenplay…", given a key by a calling model, stood in "About them" until November). A past event
    fills its key for now only where its words say the value that results ("we moved to Portland last weekend":
    the rules read the home from them); where the key was given to a past event whose words the rules read no
    value of that key from, it is history, not who they are."""
    if m.temporality != "historical":
        return True
    read = slot_of(m.content, m.lang)
    return read is not None and read.key == MemoryMetadata.of(m.metadata_).slot


@dataclass(frozen=True)
class ProfileSections:
    sections: list[Section]
    at: datetime  # the user's now, or the moment travelled to
    due: list[str]  # the reflection-due line, if one is due
    past: bool  # a profile as of a past moment

    @property
    def known(self) -> bool:
        return any(s.items for s in self.sections)


class ProfileView:
    """Receives the runtime (clock, zone, database) and the reflection-due reader for the closing line."""

    def __init__(self, runtime: Runtime, due: ReflectionDue) -> None:
        self.rt = runtime
        self.due = due

    async def profile(self, user_id: str, budget: int = PROFILE_TOKENS, as_of: str | None = None) -> str:
        """Markdown for engrain://profile, within `budget` tokens (bench/profile_coverage.py measures other budgets).
        `as_of`: the profile as it stood then (see `sections`)."""
        return (await self.read(user_id, budget, as_of))[0]

    async def read(
        self, user_id: str, budget: int = PROFILE_TOKENS, as_of: str | None = None
    ) -> tuple[str, ProfileResult]:
        """The profile's text and its sections (`get_profile`), read once."""
        text, page = await self._page(user_id, budget, as_of)
        return text, ProfileResult.of(page.at, page.sections, self.rt.settings.tz)

    async def _page(self, user_id: str, budget: int, as_of: str | None) -> tuple[str, ProfileSections]:
        page = await self.sections(user_id, as_of)
        head = [
            f"# What engrain knows about {inline(user_id, 200)}",
            "",
            DATA_NOTICE,
            f"As of {page.at.date().isoformat()} in the user's time.",
        ]
        if not page.known:
            head += ["", "Nothing known yet: remember facts about the user, and reflect to build traits."]
        return render(head, page.sections, budget, page.due, self.rt.settings.tz), page

    async def summary(self, user_id: str) -> str:
        """The same sections within SUMMARY_TOKENS, for the server instructions ("" when nothing is known)."""
        page = await self.sections(user_id)
        if not page.known:
            return ""
        return render([], page.sections, SUMMARY_TOKENS, page.due, self.rt.settings.tz).strip()

    async def sections(self, user_id: str, as_of: str | None = None) -> ProfileSections:
        """The profile's sections, for the text above and for the local page. `as_of` (a date or a phrase, in
        the user's zone): as it stood then — the memories stored by then and still valid then, the traits at
        their stage and wording of then (time travel; no reflection-due line)."""
        then = inputs.when("as_of", as_of, self.rt.clock(), self.rt.settings.tz) if as_of else None
        sections, at = await self._sections(user_id, then)
        return ProfileSections(sections, at, [] if then else await self._due(user_id), then is not None)

    async def _due(self, user_id: str) -> list[str]:
        note = await self.due.read(user_id)
        return [note] if note else []

    async def _sections(self, user_id: str, then: datetime | None = None) -> tuple[list[Section], datetime]:
        now = then or self.rt.clock()
        tz = self.rt.settings.tz
        stages = (Stage.CORE, Stage.ESTABLISHED, *FORMING_STAGES)
        async with (await self.rt.database()).sessions() as s:
            at = now if then else await user_now(s, user_id, now)
            slot_facts = await profile_repo.slot_facts(s, user_id, now)
            people, health, likes = [
                await profile_repo.facts_in(s, user_id, category, now, FETCHED)
                for category in ("relationship", "health", "preference")
            ]
            dates = await profile_repo.key_dates(s, user_id, now, KEY_DATE_IMPORTANCE, FETCHED)
            traits = (
                await trait_repo.traits_as_of(s, user_id, now, stages=stages)
                if then
                else [
                    (t, t.trait_stage, t.trait_confidence, t.content)
                    for t in await trait_repo.active_traits(s, user_id, stages=stages)
                ]
            )
            # Twice a section's worth: a plan already shown among the key dates is not shown again.
            upcoming, overdue = await repo.plans_around(s, user_id, now, at, FETCHED)
            habits = await profile_repo.habits(s, user_id, now, FETCHED)
            asked = await profile_repo.standing(s, user_id, now, FETCHED)
            pinned = await repo.pinned(s, user_id, now)
            lately = await repo.recent(s, user_id, now, LATELY + 3 * PER_SECTION, users_own=True)

        # A trait an upgrade restates (its parent is shown) is not shown again (issue 42: a preference and the two
        # behaviours it was made from filled three lines with one thing).
        shown_traits = {t.id for t, *_ in traits}
        traits = [row for row in traits if row[0].trait_parent_id not in shown_traits]
        # A key told of a past event is no fact about now: history, shown with its date where it is shown at all.
        slot_facts = [m for m in slot_facts if holds_now(m)]
        slots = {m.id: _Slot.of(m) for m in slot_facts}  # each fact's metadata read once
        facts = sorted(slot_facts, key=lambda m: slots[m.id].order)
        shown: set[object] = set()

        # What each section had beyond its share; counted once the whole profile is laid out, so that a row
        # shown further down is not also counted as left out.
        overflow: list[tuple[Section, list[Memory]]] = []

        def fill(
            into: Section, rows: list[Memory], tagged: bool = False, limit: int = PER_SECTION, counted: bool = True
        ) -> Section:
            """Add to `into` the rows not shown above, up to `limit`, and keep the rest for counting (`counted`). A
            row that repeats one already in the section is folded into it ("+1 alike"), not shown again."""
            rest = [m for m in rows if m.id not in shown]
            alike: dict[uuid.UUID, int] = {}
            left: list[Memory] = []
            for m in rest:
                if (first := next((i for i in into.items if repeats(i.content, m.content)), None)) is not None:
                    shown.add(m.id)
                    alike[first.id] = alike.get(first.id, 0) + 1
                    continue
                if len(into.items) >= limit:
                    left.append(m)
                    continue
                shown.add(m.id)
                meta = MemoryMetadata.of(m.metadata_)
                happened = Period.stored(m.event_time, m.event_end, m.event_grain, tz)
                tags = (
                    [slots[m.id].tag]
                    if tagged
                    else marks(m.kind, m.temporality, happened, at, meta.habit, was_plan=bool(meta.was_plan))
                )
                tags += replaced_mark(meta)
                # A fact shown for its key shows the sentence that states it (its value), wherever it stands.
                focus = meta.slot_value if tagged else None
                into.items.append(Item(m.id, m.content, shown_when(m.kind, m.told_at, happened), tags, focus=focus))
            for item in into.items:
                if item.id in alike:
                    item.tags.append(f"+{alike[item.id]} alike")
            if counted:
                overflow.append((into, left))
            return into

        def traits_section(title: str, stages: tuple[str, ...], settled: bool) -> Section:
            """The traits at `stages`: every one when they are `settled` (core, established), spent before any
            memory (issue 61); the forming ones up to PER_SECTION, with a share like a memory section's."""
            rows = [
                Item(t.id, words, NOT_SHOWN, [trait_tag(stage, conf)], trait=True)
                for t, stage, conf, words in traits
                if stage in stages
            ]
            if settled:
                return Section(title, rows, listed="traits", whole=True)
            kept = rows[:PER_SECTION]
            return Section(title, kept, more=len(rows) - len(kept), listed="traits", share=3)

        own = [m for m in facts if not of_family(slots[m.id].key)]
        # Filled in this order, so that a memory fit for two sections shows in the first: a health fact told with a
        # date ("had a scare at lunch today: I'm allergic to shellfish") is health (issue 61: among the key dates, a
        # year of newer ones left it out); a milestone about the family ("we adopted") is a key date; a plan among
        # the key dates is not shown again.
        about = fill(Section("About them", share=6), own, tagged=True, limit=2 * PER_SECTION)
        health_ = fill(Section("Health", share=3), health)
        dated = fill(Section("Key dates", share=3), dates)
        family = fill(
            Section("People and pets", share=4), [m for m in facts if m not in own], tagged=True, limit=2 * PER_SECTION
        )
        family = fill(family, people)
        standing = fill(Section("Instructions and preferences for answers", share=4), asked)
        likes_ = fill(Section("Preferences", share=3), likes)
        ahead = fill(Section("Upcoming plans", listed="plans", share=3), upcoming)
        late = fill(Section("Overdue plans", listed="plans"), overdue)
        habits_ = fill(Section("Habits", share=3), habits)
        pinned_ = fill(Section("Pinned"), pinned, limit=len(pinned))
        # The newest told: what is older is no section's leftover.
        lately_ = fill(Section("Lately told"), [m for m in lately if not summary(m)], limit=LATELY, counted=False)
        for into, rest in overflow:
            into.more += sum(m.id not in shown for m in rest)
        # In the order of their value to a model that reads only this text (issues 52, 61): who the user is, the
        # people in their life, how they want answers, their health; then what engrain concluded about them (every
        # core and established trait, spent first); the dates that matter and what is ahead; then what they prefer
        # and how they live.
        sections = [
            about,
            family,
            standing,
            health_,
            traits_section("Core traits", (Stage.CORE,), settled=True),
            traits_section("Established traits", (Stage.ESTABLISHED,), settled=True),
            dated,
            ahead,
            late,
            likes_,
            traits_section("Forming traits (tentative, not yet confirmed)", FORMING_STAGES, settled=False),
            habits_,
            pinned_,
            lately_,
        ]
        return sections, at
