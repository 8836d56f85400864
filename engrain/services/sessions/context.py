"""What a coding session is given of the user's memory: at its start, the profile and what was told about its
project; with each prompt, only the memories that bear on it.

A project's memories are kept in its own namespace (reading/projects.py). The opening shows the profile without
any project's memories (the profile's sections read every namespace; a memory of another project is left out
here, so that a session in project A shows nothing private to project B), then a section of this project's own.
A prompt is recalled in the default namespace and in this project's, never another's, and a hit is shown only
when it bears on the prompt (`bears`) — "what is 17 times 23?" brings nothing. Every text quotes memories as data
(text/quoting.py), with dates and short ids, within a small budget: it is read with every prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engrain.reading.inputs import MAX_QUERY_CHARS
from engrain.reading.metadata import MemoryMetadata
from engrain.reading.periods import Period
from engrain.reading.projects import GLOBAL, is_project
from engrain.services.profile.sections import PER_SECTION, Item, Section, render
from engrain.services.recall.results import RecallHit, RecallResult
from engrain.services.recall.search import RecallRequest
from engrain.services.wording.lines import marks, shown_when
from engrain.storage import projects as project_repo
from engrain.text.quoting import DATA_NOTICE, inline

if TYPE_CHECKING:
    from engrain.services.profile.view import ProfileView
    from engrain.services.recall.search import RecallSearch
    from engrain.services.runtime import Runtime

# The opening's budget (tokens, about four characters each): the profile's own (services/profile/sections.py,
# 1,500) and a little for the project's section; read once a session.
OPENING_TOKENS = 2_000
# A prompt's budget: read with every prompt, so a few lines — the best hits that bear on it.
PROMPT_TOKENS = 300
PROMPT_HITS = 5
# A hit bears on the prompt when recall scores it this high with a model of meaning (measured with MiniLM on ten
# memories of a developer: what a prompt asks about scores 0.51–1.33; the best of unrelated prompts — "what is 17
# times 23?", "write a haiku about autumn" — 0.27 and 0.46), or, answered by words alone (the model still loading),
# when it holds this share of the prompt's words (IDF-weighted, recall's lexical term); and in both cases when it
# scores at least half the best hit's (a shared common word is no answer next to the memory asked about).
MIN_SCORE = 0.5
MIN_LEXICAL = 0.5
PROJECT_LINES = 8


class SessionContext:
    """Receives the runtime, the profile view and recall."""

    def __init__(self, runtime: Runtime, profile: ProfileView, recall: RecallSearch) -> None:
        self.rt, self.profile, self.recall = runtime, profile, recall

    async def opening(self, user_id: str, project: str, project_name: str) -> str:
        """The profile without any project's memories, and what was told about this one; "" when nothing is
        known."""
        page = await self.profile.sections(user_id)
        ids = [item.id for section in page.sections for item in section.items if not item.trait]
        async with (await self.rt.database()).sessions() as s:
            spaces = await project_repo.namespaces_of(s, user_id, ids)
            told = await project_repo.told_in(s, user_id, project, self.rt.clock(), PROJECT_LINES)
        for section in page.sections:
            section.items = [i for i in section.items if i.trait or not is_project(spaces.get(i.id, GLOBAL))]
        tz, now = self.rt.settings.tz, page.at
        items: list[Item] = []
        for m in told:
            happened = Period.stored(m.event_time, m.event_end, m.event_grain, tz)
            meta = MemoryMetadata.of(m.metadata_)
            tags = marks(m.kind, m.temporality, happened, now, meta.habit, was_plan=bool(meta.was_plan))
            items.append(Item(m.id, m.content, shown_when(m.kind, m.told_at, happened), tags))
        here = Section(f"About this project ({inline(project_name, 80)})", items, share=PER_SECTION)
        sections = [*page.sections, here]
        if not any(section.items for section in sections):
            return ""
        head = [
            "# What engrain remembers about the user (long-term memory, from earlier sessions)",
            "",
            DATA_NOTICE,
            f"As of {page.at.date().isoformat()} in the user's time.",
        ]
        return render(head, sections, OPENING_TOKENS, [], tz)

    async def for_prompt(self, user_id: str, project: str, prompt: str) -> str:
        """The memories that bear on `prompt`, from the default namespace and this project's; "" when none does."""
        found: list[RecallResult] = []
        for namespace in (GLOBAL, project):
            request = RecallRequest(
                query=prompt[:MAX_QUERY_CHARS],
                limit=PROMPT_HITS,
                namespace=namespace,
                include_links=False,
                track_access=False,
                gather=False,
            )
            found.append(await self.recall.recall(user_id, request))
        best = max((h.score for result in found for h in result.results), default=0.0)
        hits = sorted(
            (h for result in found for h in result.results if bears(h, best, by_words=result.embedder is None)),
            key=lambda h: -h.score,
        )
        if not hits:
            return ""
        result = found[0].model_copy(update={"results": hits[:PROMPT_HITS]})
        return self.recall.text_of(result, explain=False, budget=PROMPT_TOKENS)


def bears(hit: RecallHit, best: float, *, by_words: bool) -> bool:
    """Whether a hit bears on the prompt it was recalled for, `best` the best hit's score (see MIN_SCORE): the fact
    the prompt asks for ("where do I live") always does."""
    terms = hit.breakdown
    if terms is None:
        return False
    if terms.slot > 0:
        return True
    if hit.score < best / 2:
        return False
    return terms.lexical >= MIN_LEXICAL if by_words else hit.score >= MIN_SCORE
