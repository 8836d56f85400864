"""Writing the topic digests of a reflection's answer (rules/digests.py, issue 60 part 2).

A digest is a memory of kind `digest`: the model's words about one thing the user told about on several days,
with the dates; `metadata.digest` keeps its topic and the ids of the memories it draws on, and a link
`summarizes` leads to each of them. It is told when its latest evidence was told, and happened over the span of
its evidence, so that its line shows "happened 2025-01-03..2025-11-20" and recall's time filters see it where its
memories are. A digest rewritten whole (`digest_id`) replaces the old one as an update replaces a fact; the new
one draws on the old one's evidence and the new memories.
"""

from __future__ import annotations

import logging
import uuid
from datetime import tzinfo

from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading.dates import local
from engrain.reading.enrich import content_hash
from engrain.reading.metadata import Digest, MemoryMetadata
from engrain.reading.periods import Period
from engrain.rules.digests import DIGEST, enough_evidence, evidence_of, evidence_span
from engrain.services.traits.answers import NewDigest
from engrain.services.traits.reflection.planning import Plan
from engrain.storage import digests as digest_repo
from engrain.storage import memories as repo
from engrain.storage.models import Memory

log = logging.getLogger(__name__)

CREATED_BY = "reflection"
Vectors = dict[str, tuple[str, int, list[float]]]


def evidence_ids(digest: Memory) -> list[uuid.UUID]:
    """The memories a stored digest draws on (ids that do not read as one are left out)."""
    meta = MemoryMetadata.of(digest.metadata_).digest
    found: list[uuid.UUID] = []
    for value in meta.evidence if meta is not None else []:
        try:
            found.append(uuid.UUID(value))
        except ValueError:  # an imported row may hold anything there
            continue
    return found


def span(evidence: list[Memory], tz: tzinfo | None) -> Period | None:
    """The days from the first to the last of the evidence's times (each one's event, else when it was told),
    in the user's zone: one day when they all fall on it."""
    found = evidence_span((m.event_time, m.told_at) for m in evidence)
    if found is None:
        return None
    first, last = (local(moment, tz) for moment in found)
    return Period.between(first, last)


async def write(s: AsyncSession, plan: Plan, digests: list[NewDigest], vectors: Vectors) -> int:
    """The answer's digests, in the answer's transaction: each one new, or rewriting a current one whole. One that
    cites too few memories of the user, or a digest it was not shown, is left out (the host route refuses the
    latter by name before: services/traits/host_tasks.py). Returns how many were written."""
    written = 0
    for item in digests:
        old = plan.digest_ref(item.digest_id) if item.digest_id is not None else None
        if item.digest_id is not None and (old is None or old.valid_until is not None):
            log.debug("a digest rewriting %r, which the model was not shown, was left out", item.digest_id)
            continue
        cited = plan.memory_refs(item.evidence_ids)
        wanted = evidence_of(evidence_ids(old) if old is not None else [], cited)
        rows = {m.id: m for m in await repo.get_many(s, plan.user_id, wanted) if m.kind not in ("trait", DIGEST)}
        evidence = [rows[i] for i in wanted if i in rows]
        if not cited or not enough_evidence(old is not None, len(evidence)):
            continue
        digest_hash = content_hash(item.content)
        twin = await repo.find_live_duplicate(s, plan.user_id, "default", DIGEST, digest_hash)
        if twin is not None and (old is None or twin.id != old.id):
            continue  # the same words are a live digest already
        new_id = uuid.uuid4()
        if old is not None and not await digest_repo.supersede_digest(s, plan.user_id, old.id, new_id, plan.now):
            continue  # rewritten already (by an earlier item of this answer): one live digest a topic
        await _insert(s, plan, new_id, item, evidence, vectors, digest_hash)
        written += 1
    return written


async def _insert(
    s: AsyncSession,
    plan: Plan,
    new_id: uuid.UUID,
    item: NewDigest,
    evidence: list[Memory],
    vectors: Vectors,
    digest_hash: str,
) -> Memory:
    """The digest's row, its vector (recall finds it by meaning, as any memory), its links and its history."""
    happened = span(evidence, plan.tz)
    told = max(m.told_at for m in evidence)
    metadata = MemoryMetadata(digest=Digest(topic=item.topic, evidence=[str(m.id) for m in evidence])).stored()
    digest = Memory(
        id=new_id,
        user_id=plan.user_id,
        namespace="default",
        kind=DIGEST,
        content=item.content,
        content_hash=digest_hash,
        importance=max(m.importance for m in evidence),
        category=DIGEST,
        tags=[],
        temporality="current",  # what the user told, never a plan
        event_time=happened.start if happened is not None else None,
        event_end=happened.end if happened is not None else None,
        event_grain=str(happened.grain) if happened is not None else None,
        created_at=plan.now,
        told_at=told,
        updated_at=plan.now,
        pinned=False,
        metadata_=metadata,
    )
    embedder_id, _, vector = vectors.get(item.content, (None, 0, None))
    await repo.insert(s, digest, repo.Vector(embedder_id, vector) if embedder_id and vector else None)
    await digest_repo.link_evidence(s, plan.user_id, digest.id, [m.id for m in evidence], CREATED_BY)
    await repo.add_history(
        s,
        digest.id,
        plan.user_id,
        "create",
        new=item.content,
        reason=f"digest of {len(evidence)} memories by reflection",
        at=plan.now,
    )
    return digest
