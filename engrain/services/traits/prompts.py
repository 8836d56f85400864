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
from engrain.services.wording.lines import marks, replaced_mark, shown_when, trait_tag, when_text
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

MAIN_SCHEMA = """\
{
  "new_trends": [{"content": "about the user", "evidence_ids": ["m1"], "window_days": 30, "context": "general"}],
  "new_behaviors": [{"content": "...", "evidence_ids": ["m1", "m2"], "confidence": 0.4, "context": "work"}],
  "reinforcements": [{"trait_id": "t1", "new_evidence_ids": ["m3"], "quality_grade": "A|B|C|D"}],
  "contradictions": [{"trait_id": "t2", "contradicting_evidence_ids": ["m4"], "description": "..."}],
  "upgrades": [{"from_trait_ids": ["t1", "t3"], "new_content": "...", "new_subtype": "preference|core",
                "reasoning": "..."}],
  "links": [{"source_id": "m1", "target_id": "m2", "relation": "elaborates|contradicts|same_topic|causal|related"}],
  "updates": [{"old_id": "e1", "new_id": "m6", "key": "user · home"}],
  "keys": [{"memory_id": "m2", "key": "user · gym"}],
  "rewords": [{"trait_id": "t3", "new_content": "...", "reason": "..."}],
  "digests": [{"topic": "books", "content": "everything told about it, with the dates",
               "evidence_ids": ["m2", "m5", "e1"], "digest_id": "d1 (only to rewrite that digest)"}]
}"""

RULES = """\
Rules (context: work, personal, social, learning or general):
- new_trends: a pattern seen once or twice, possibly passing (a mood: window_days 14; a current focus: 30).
- new_behaviors: a recurring behavior with at least two supporting memories; confidence 0.3-0.5.
- reinforcements: new memories that support an existing trait. quality_grade: A seen across contexts, B the
  user says it of themselves, C seen across separate conversations, D same conversation or only implied.
- contradictions: new memories that go against an existing trait.
- upgrades: established behaviors that together show a preference, or preferences that show a core value.
- links: pairs of memories that explain each other.
- updates: an older fact a newer memory replaces (old "I live in Berlin", new "I moved to Lisbon"); a new
  memory marked "(may replace [e1])" speaks of the same fact as [e1]: add the update if it ends it. Its key
  (whose · what) names a fact that holds one value at a time, so that a later value replaces it in turn.
- keys: a memory that states the current value of such a fact (user · phone, user · gym, Mei · due date).
- rewords: an existing trait the new memories make stale ("Researching adoption agencies" once the
  interviews are passed): its new words; it keeps its evidence and history.
- digests: a thing the user told about on several days (at least 3 memories: the books they read, their
  recipes, a project, a tournament record): one digest of everything told about it, in the memories' language,
  each item with its date, citing in evidence_ids every memory it draws on (older ones found with recall too).
  A digest shown as [d1] under "Current digests" is rewritten whole when new memories add to it: "digest_id":
  "d1", the whole new text, and the new memories as evidence (it keeps the old one's evidence).
- Do not repeat existing traits as new ones: reinforce them. Leave out what does not apply.
Stages, weakest first: trend (may pass), candidate, emerging, established, core. Subtypes: behavior (what the
user does), preference (what they like or choose), core (a value that explains many preferences)."""


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
        lines.append(f"[{alias}] [{', '.join(tags)}] {quoted(m.content)}{hint}")
    return "\n".join(lines) or "(none)"


def trait_lines(traits: Iterable[tuple[str, Memory]]) -> str:
    """`[t1] [established, 0.70, behavior, context work, reinforced 3, contradicted 0] «words»`."""
    lines = [
        f"[{alias}] [{trait_tag(t.trait_stage, t.trait_confidence)}, {t.trait_subtype}, "
        f"context {inline(t.trait_context or 'general', 40)}, reinforced {t.trait_reinforcement_count or 0}, "
        f"contradicted {t.trait_contradiction_count or 0}] {quoted(t.content)}"
        for alias, t in traits
    ]
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


def main_prompt(memories: str, traits: str, evidence: str | None, digests: str = "(none yet)") -> Prompt:
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
        RULES,
        "",
        "Answer as JSON with these keys:",
        MAIN_SCHEMA,
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
