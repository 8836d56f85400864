"""The prompts of a reflection cycle (instructions in English, answers in the memories' language).
Each one demands a single JSON object."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, tzinfo

from engrain.providers.llm import Prompt
from engrain.reading.enrich import DEFAULT_IMPORTANCE
from engrain.reading.metadata import MemoryMetadata
from engrain.reading.periods import Period
from engrain.services.wording.lines import marks, replaced_mark, shown_when, when_text
from engrain.storage.models import Memory
from engrain.text.quoting import DATA_NOTICE, inline, quoted

SYSTEM = (
    "You maintain a long-term model of one user for a memory system. You read what was recently learned "
    "about the user and decide which patterns it shows. Be conservative: a trait needs evidence, one "
    "memory is a trend at most, and nothing is inferred about sensitive attributes unless stated. "
    "Refer to memories, traits and digests only by the ids shown in square brackets. Write every statement in the "
    "language the memories are written in (Chinese memories get Chinese traits); keep names as written. "
    "Answer with one JSON object and nothing else."
)

# The answer's keys, each with what it is for, said once (issue 61: the schema and then the rules said most of it twice,
# and each task repeated both: 3,200 of a task's characters). `{today}`: the user's today, where a trend's window
# starts.
ANSWER = """\
Answer with one JSON object of these keys, each a list; leave out a key with nothing to say. Cite memories, traits
and digests by the ids in square brackets ([m1] new, [e1] older, [t1], [d1]), a memory found with recall by its
8-character id. context: work, personal, social, learning or general.
- "new_trends": [{{"content", "evidence_ids", "window_days", "context"}}]: a pattern seen once or twice, maybe
  passing. Its window counts from {today}, the user's today, whatever its evidence's dates: reinforced twice within
  window_days (14 a mood, 30 a current focus) it becomes a candidate, else it passes.
- "new_behaviors": [{{"content", "evidence_ids", "confidence": 0.3-0.5, "context"}}]: a recurring behavior, two
  memories or more.
- "reinforcements": [{{"trait_id", "new_evidence_ids", "quality_grade"}}]: new memories that support a trait; grade
  A seen across contexts, B the user says it of themselves, C across separate conversations, D same conversation or
  only implied.
- "contradictions": [{{"trait_id", "contradicting_evidence_ids", "description"}}]: new memories against a trait.
- "upgrades": [{{"from_trait_ids", "new_content", "new_subtype", "reasoning"}}]: established behaviors that together
  show a preference ("preference"), or preferences that one value explains ("core"; reasoning: which preferences it
  explains and how). Only such an upgrade makes a trait core: confidence alone never does.
- "links": [{{"source_id", "target_id", "relation": "elaborates|contradicts|same_topic|causal|related"}}]: memories
  that explain each other.
- "updates": [{{"old_id", "new_id", "key"}}]: an older fact a newer memory replaces ("I live in Berlin", then "I
  moved to Lisbon"); a memory marked "(may replace [e1])" may end [e1]. key (optional; whose · what) names a fact
  that holds one value at a time, so that a later value replaces it in turn.
- "keys": [{{"memory_id", "key"}}]: a memory that states the current value of such a fact (user · gym, Mei · due
  date).
- "rewords": [{{"trait_id", "new_content", "reason"}}]: a trait the new memories make stale, in new words (it keeps
  its evidence and history).
- "digests": [{{"topic", "content", "evidence_ids", "digest_id"}}]: a thing the user told about on several days (3
  memories or more: books read, recipes, a project): everything told about it in one text, each item dated, citing
  every memory it draws on (older ones found with recall too); "digest_id": "d1" rewrites that digest whole with
  the new memories (it keeps the old one's evidence).
Do not repeat a listed trait as new: reinforce it. Stages: trend, candidate, emerging, established (evidence from 3
occasions), core (a core value made by an upgrade, with evidence from 5 occasions over 30 days). Subtypes: behavior
(what the user does), preference (what they like or choose), core (a value that explains preferences)."""
# A memory's words in a task are cut here: most are one sentence, and a cut one is whole in recall.
LINE_CHARS = 200


def memory_lines(
    memories: Iterable[tuple[str, Memory]],
    now: datetime,
    tz: tzinfo | None,
    replaces: Mapping[uuid.UUID, str] | None = None,
) -> str:
    """One line a memory, as every text engrain writes for a model shows one (services/wording/lines.py), led
    by the alias the answer cites: `[m1] [said 2023-05-07 · happened 2023-05, plan, importance 8] «words»`:
    when the user said it (never when it was stored: an import is months late) and when it happened, at its
    precision; importance where it is not the default. "(may replace [e1])" where the rules could not tell
    whether it ends an older fact (`replaces`: memory id → the older fact's alias)."""
    hints = replaces or {}
    lines: list[str] = []
    for alias, m in memories:
        meta = MemoryMetadata.of(m.metadata_)
        happened = Period.stored(m.event_time, m.event_end, m.event_grain, tz)
        tags = [times] if (times := when_text(shown_when(m.kind, m.told_at, happened), tz)) else []
        tags += marks(m.kind, m.temporality, happened, now, meta.habit) or [m.kind]
        tags += replaced_mark(meta)
        tags += [f"importance {m.importance}"] if m.importance != DEFAULT_IMPORTANCE else []
        hint = f" (may replace [{hints[m.id]}])" if m.id in hints else ""
        lines.append(f"[{alias}] [{', '.join(tags)}] {quoted(m.content, LINE_CHARS)}{hint}")
    return "\n".join(lines) or "(none)"


def trait_lines(traits: Iterable[tuple[str, Memory]]) -> str:
    """`[t1] [established 0.70, behavior, work, 3 for, 1 against] «words»` (no context when general, no count against
    when none)."""
    lines: list[str] = []
    for alias, t in traits:
        tags = [f"{t.trait_stage} {t.trait_confidence or 0.0:.2f}", t.trait_subtype or "behavior"]
        tags += [inline(t.trait_context, 40)] if t.trait_context and t.trait_context != "general" else []
        tags += [f"{t.trait_reinforcement_count or 0} for"]
        tags += [f"{t.trait_contradiction_count} against"] if t.trait_contradiction_count else []
        lines.append(f"[{alias}] [{', '.join(tags)}] {quoted(t.content)}")
    return "\n".join(lines) or "(none yet)"


def digest_lines(digests: Iterable[tuple[str, Memory]], now: datetime, tz: tzinfo | None) -> str:
    """The user's current digests, led by their alias: `[d1] [said D · happened a..b, digest of 7 memories]
    topic «books»: «words»` — what a rewrite starts from."""
    lines: list[str] = []
    for alias, d in digests:
        digest = MemoryMetadata.of(d.metadata_).digest
        happened = Period.stored(d.event_time, d.event_end, d.event_grain, tz)
        tags = [times] if (times := when_text(shown_when(d.kind, d.told_at, happened), tz)) else []
        tags += marks(d.kind, d.temporality, happened, now, False, digest_of=len(digest.evidence) if digest else 0)
        topic = f"topic {quoted(digest.topic)}: " if digest else ""
        lines.append(f"[{alias}] [{', '.join(tags)}] {topic}{quoted(d.content)}")
    return "\n".join(lines) or "(none yet)"


def questions_prompt(memories: str, traits: str) -> Prompt:
    user = (
        DATA_NOTICE
        + "\n\nRecently learned about the user:\n"
        + memories
        + "\n\nWhat we already believe about the user:\n"
        + traits
        + "\n\nList the 3 to 5 most useful questions to check against the user's older memories before "
        "deciding what these new memories say about them (e.g. 'Has the user mentioned running before?').\n"
        'Answer as JSON: {"questions": ["...", "..."]}'
    )
    return Prompt(SYSTEM, user, max_tokens=500)


def main_prompt(
    memories: str, traits: str, evidence: str | None, digests: str = "(none yet)", today: str = "today"
) -> Prompt:
    """`today`: the user's today (their newest told date), where a new trend's window starts."""
    parts = [DATA_NOTICE, "", "Recently learned about the user:", memories]
    if evidence is not None:
        parts += ["", "Older memories (evidence, and the facts a new memory may replace):", evidence]
    parts += [
        "",
        "Current traits of the user:",
        traits,
        "",
        "Current digests (summaries of one thing the user told about; newest first):",
        digests,
        "",
        ANSWER.format(today=today),
    ]
    # Room for the traits and for digests rewritten whole (each up to about 1,000 tokens).
    return Prompt(SYSTEM, "\n".join(parts), max_tokens=6000)


def review_prompt(cases: str) -> Prompt:
    user = (
        DATA_NOTICE
        + "\n\nThese traits of the user are now contradicted often. For each, decide whether to keep it reworded "
        '("modify", give new_content that fits all the evidence) or drop it ("dissolve").\n\n'
        + cases
        + '\n\nAnswer as JSON: {"decisions": [{"trait_id": "t1", "action": "modify|dissolve", '
        '"new_content": "..."}]}'
    )
    return Prompt(SYSTEM, user, max_tokens=1000)
