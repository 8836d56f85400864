"""SQL for traits: reading them (active, as of a time, evidence, lineage) and writing them.

The lifecycle passes (trend promotion/expiry, prospective expiry, decay) are single
set-based statements that also write their `memory_history` rows; with `user_id=None`
they cover every user (the scheduler's jobs), otherwise one user (a reflection cycle).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict, cast

from sqlalchemy import RowMapping, func, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading.metadata import Key
from engrain.rules import plans
from engrain.rules.traits import (
    ACTIVE_STAGES,
    CORE_FROM,
    PROMOTED_CONFIDENCE,
    RANKED_STAGES,
    Spread,
    Stage,
    decay_exponent_sql,
    expired_trend_sql,
    lowest_sql,
    occasion_sql,
    promotable_sql,
    rank_sql,
    stage_cap_sql,
    stage_sql,
)
from engrain.storage.models import Memory, MemoryHistory, TraitEvidence
from engrain.storage.sqltext import safe_exp
from engrain.storage.timeline import reflected_told_sql, user_now_sql, waiting_since_sql

# Strongest first in listings: a trend ranks below every stage of the confidence scale.
_LISTING_ORDER = (Stage.TREND, *RANKED_STAGES)


def _user_filter(user_id: str | None, alias: str = "m") -> str:
    return f"AND {alias}.user_id = :user" if user_id is not None else ""


def _params(user_id: str | None, **extra: Any) -> dict[str, Any]:
    return {"user": user_id, **extra} if user_id is not None else extra


# ---- reads -------------------------------------------------------------------------------


async def active_traits(
    session: AsyncSession,
    user_id: str,
    *,
    stages: Sequence[str] = ACTIVE_STAGES,
    subtype: str | None = None,
    context: str | None = None,
    limit: int | None = None,
) -> list[Memory]:
    """The user's live traits in the given stages, strongest stage first, then by confidence."""
    rank = func.array_position([str(x) for x in _LISTING_ORDER], Memory.trait_stage)
    stmt = select(Memory).where(
        Memory.user_id == user_id,
        Memory.kind == "trait",
        Memory.valid_until.is_(None),
        Memory.trait_stage.in_(list(stages)),
    )
    if subtype is not None:
        stmt = stmt.where(Memory.trait_subtype == subtype)
    if context is not None:
        stmt = stmt.where(Memory.trait_context == context)
    stmt = stmt.order_by(rank.desc(), Memory.trait_confidence.desc().nulls_last(), Memory.created_at, Memory.id)
    if limit is not None:
        stmt = stmt.limit(limit)
    return list((await session.execute(stmt)).scalars())


async def traits_as_of(
    session: AsyncSession,
    user_id: str,
    at: datetime,
    *,
    stages: Sequence[str],
    subtype: str | None = None,
    context: str | None = None,
) -> list[tuple[Memory, str, float | None, str]]:
    """The user's traits as they stood at `at` on the user's timeline, rebuilt from history: (row, stage then,
    confidence then, wording then). A trait's stage is the one its latest history row up to `at` recorded — by
    the user's clock when the change was made (`user_at`; the server's time for rows from before it was kept);
    its wording is the text before the first edit after `at`. Strongest stage first, then by confidence."""
    rank = "array_position(ARRAY[" + ", ".join(f"'{x}'" for x in _LISTING_ORDER) + "], st.stage)"
    extra = (" AND m.trait_subtype = :subtype" if subtype is not None else "") + (
        " AND m.trait_context = :context" if context is not None else ""
    )
    rows = await session.execute(
        text(f"""
        SELECT m.id, st.stage, st.confidence,
               coalesce((SELECT h.old_content FROM memory_history h WHERE h.user_id = m.user_id AND h.memory_id = m.id
                         AND h.action = 'modify' AND coalesce(h.user_at, h.at) > :at
                         ORDER BY coalesce(h.user_at, h.at), h.id LIMIT 1), m.content) AS content
        FROM memories m
        CROSS JOIN LATERAL (
            SELECT h.stage, h.confidence FROM memory_history h
            WHERE h.user_id = m.user_id AND h.memory_id = m.id AND coalesce(h.user_at, h.at) <= :at
              AND h.stage IS NOT NULL
            ORDER BY coalesce(h.user_at, h.at) DESC, h.id DESC LIMIT 1) st
        WHERE m.user_id = :user AND m.kind = 'trait' AND st.stage = ANY(:stages){extra}
        ORDER BY {rank} DESC, st.confidence DESC NULLS LAST, m.created_at, m.id
    """),
        {"user": user_id, "at": at, "stages": list(stages), "subtype": subtype, "context": context},
    )
    found = rows.all()
    ids = [r.id for r in found]
    by_id = (
        {
            t.id: t
            for t in (
                await session.execute(select(Memory).where(Memory.user_id == user_id, Memory.id.in_(ids)))
            ).scalars()
        }
        if ids
        else {}
    )
    return [(by_id[r.id], r.stage, r.confidence, r.content) for r in found]


@dataclass(frozen=True, slots=True)
class Evidence:
    """A memory cited for (`polarity` supporting) or against (contradicting) a trait, with its text."""

    trait_id: uuid.UUID
    memory_id: uuid.UUID
    polarity: str
    quality: str | None
    created_at: datetime  # when it was cited
    content: str
    kind: str
    event_time: datetime | None
    told_at: datetime  # when the user said it
    learned_at: datetime  # when the memory was stored


async def evidence(session: AsyncSession, user_id: str, trait_ids: Sequence[uuid.UUID]) -> list[Evidence]:
    """Evidence rows of traits with the memories' text (memories of one user by construction)."""
    if not trait_ids:
        return []
    stmt = (
        select(
            TraitEvidence.trait_id,
            TraitEvidence.memory_id,
            TraitEvidence.polarity,
            TraitEvidence.quality,
            TraitEvidence.created_at,
            Memory.content,
            Memory.kind,
            Memory.event_time,
            Memory.told_at,
            Memory.created_at.label("learned_at"),
        )
        .join(Memory, (Memory.user_id == TraitEvidence.user_id) & (Memory.id == TraitEvidence.memory_id))
        .where(TraitEvidence.user_id == user_id, TraitEvidence.trait_id.in_(list(trait_ids)))
        .order_by(TraitEvidence.created_at, TraitEvidence.memory_id)
    )
    return [Evidence(**m) for m in (await session.execute(stmt)).mappings()]


def _spread_sql(where: str) -> str:
    """How the supporting evidence `where` selects lies on the user's timeline (rules.traits.Spread):
    occasions, and the told times of its earliest and latest memory; one row, also for no evidence."""
    return f"""
    SELECT count(DISTINCT {occasion_sql("x")}) AS occasions, min(x.told_at) AS first, max(x.told_at) AS last
    FROM trait_evidence e JOIN memories x ON x.user_id = e.user_id AND x.id = e.memory_id
    WHERE e.polarity = 'supporting' {where}"""


async def spreads(session: AsyncSession, user_id: str, trait_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Spread]:
    """The spread of each trait's supporting evidence (a trait without any is absent)."""
    if not trait_ids:
        return {}
    rows = await session.execute(
        text(
            "SELECT t.id AS trait_id, sp.* FROM unnest(CAST(:ids AS uuid[])) AS t(id), "
            f"LATERAL ({_spread_sql('AND e.user_id = :user AND e.trait_id = t.id')}) sp WHERE sp.occasions > 0"
        ),
        {"user": user_id, "ids": list(trait_ids)},
    )
    return {r.trait_id: Spread(int(r.occasions), r.first, r.last) for r in rows}


async def joint_spread(session: AsyncSession, user_id: str, trait_ids: Sequence[uuid.UUID]) -> Spread:
    """The spread of the traits' supporting evidence taken together (what an upgrade inherits)."""
    row = (
        await session.execute(
            text(_spread_sql("AND e.user_id = :user AND e.trait_id = ANY(:ids)")),
            {"user": user_id, "ids": list(trait_ids)},
        )
    ).one()
    return Spread(int(row.occasions), row.first, row.last)


async def told_range(
    session: AsyncSession, user_id: str, memory_ids: Sequence[uuid.UUID]
) -> tuple[datetime, datetime] | None:
    """The earliest and latest told time of the user's memories `memory_ids` (None: none of them)."""
    if not memory_ids:
        return None
    row = (
        await session.execute(
            select(func.min(Memory.told_at), func.max(Memory.told_at)).where(
                Memory.user_id == user_id, Memory.id.in_(list(memory_ids))
            )
        )
    ).one()
    first, last = cast("tuple[datetime | None, datetime | None]", tuple(row))
    return None if first is None or last is None else (first, last)


async def owned(session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID], *, traits: bool) -> set[uuid.UUID]:
    """Which of `ids` are the user's live memories (traits=False) or active traits (traits=True)."""
    if not ids:
        return set()
    stmt = select(Memory.id).where(Memory.id.in_(list(ids)), Memory.user_id == user_id, Memory.valid_until.is_(None))
    stmt = stmt.where(Memory.kind == "trait") if traits else stmt.where(Memory.kind != "trait")
    return set((await session.execute(stmt)).scalars())


async def ancestors(session: AsyncSession, user_id: str, trait_id: uuid.UUID) -> set[uuid.UUID]:
    """The trait's chain of parents (upgrades), for refusing cycles."""
    rows = await session.execute(
        text(
            "WITH RECURSIVE up(id, parent) AS ("
            " SELECT id, trait_parent_id FROM memories WHERE user_id = :u AND id = :id"
            " UNION SELECT m.id, m.trait_parent_id FROM memories m JOIN up ON m.user_id = :u AND m.id = up.parent)"
            " SELECT parent FROM up WHERE parent IS NOT NULL"
        ),
        {"u": user_id, "id": trait_id},
    )
    return set(rows.scalars())


async def children(session: AsyncSession, user_id: str, trait_id: uuid.UUID) -> list[Memory]:
    stmt = select(Memory).where(Memory.user_id == user_id, Memory.trait_parent_id == trait_id).order_by(Memory.id)
    return list((await session.execute(stmt)).scalars())


# ---- writes ------------------------------------------------------------------------------


async def near_core(session: AsyncSession, user_id: str, margin: float) -> Memory | None:
    """The strongest established trait within `margin` of core that the user was not asked about yet."""
    stmt = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.kind == "trait",
            Memory.valid_until.is_(None),
            Memory.trait_stage == Stage.ESTABLISHED,
            Memory.trait_confidence >= CORE_FROM - margin,
            Memory.metadata_[Key.CORE_ASKED_AT.value].astext.is_(None),
        )
        .order_by(Memory.trait_confidence.desc(), Memory.id)
        .limit(1)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def is_dismissed(session: AsyncSession, user_id: str, digest: str) -> bool:
    """A trait with this text was dismissed by the user (metadata.dismissed_at on the dissolved row)."""
    return bool(
        await session.scalar(
            text(
                "SELECT EXISTS (SELECT 1 FROM memories WHERE user_id = :u AND kind = 'trait' AND content_hash = :h "
                f"AND metadata ->> '{Key.DISMISSED_AT}' IS NOT NULL)"
            ),
            {"u": user_id, "h": digest},
        )
    )


async def add_evidence(
    session: AsyncSession,
    user_id: str,
    trait_id: uuid.UUID,
    memory_ids: Sequence[uuid.UUID],
    polarity: str,
    quality: str | None,
    cycle_id: uuid.UUID | None,
) -> int:
    if not memory_ids:
        return 0
    rows = [
        {
            "user_id": user_id,
            "trait_id": trait_id,
            "memory_id": m,
            "polarity": polarity,
            "quality": quality,
            "cycle_id": cycle_id,
        }
        for m in dict.fromkeys(memory_ids)
    ]
    result = await session.execute(
        pg_insert(TraitEvidence).values(rows).on_conflict_do_nothing().returning(TraitEvidence.memory_id)
    )
    return len(result.all())


async def inherit_evidence(
    session: AsyncSession, user_id: str, target: uuid.UUID, sources: Sequence[uuid.UUID], cycle_id: uuid.UUID | None
) -> None:
    await session.execute(
        text(
            "INSERT INTO trait_evidence (user_id, trait_id, memory_id, polarity, quality, cycle_id) "
            "SELECT user_id, :target, memory_id, polarity, quality, :cycle FROM trait_evidence "
            "WHERE user_id = :u AND trait_id = ANY(:sources) ON CONFLICT DO NOTHING"
        ),
        {"u": user_id, "target": target, "sources": list(sources), "cycle": cycle_id},
    )


async def set_parent(
    session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID], parent: uuid.UUID, now: datetime
) -> None:
    await session.execute(
        update(Memory)
        .where(Memory.id.in_(list(ids)), Memory.user_id == user_id)
        .values(trait_parent_id=parent, updated_at=now)
    )


async def history_of(session: AsyncSession, user_id: str, ids: Sequence[uuid.UUID]) -> list[MemoryHistory]:
    stmt = (
        select(MemoryHistory)
        .where(MemoryHistory.user_id == user_id, MemoryHistory.memory_id.in_(list(ids)))
        .order_by(MemoryHistory.at, MemoryHistory.id)
    )
    return list((await session.execute(stmt)).scalars())


# ---- set-based lifecycle passes ----------------------------------------------------------


SAMPLE = 5  # rows each pass lists by id and content (what a dry run shows)


def sample_sql(cte: str) -> str:
    """A column listing a few changed rows of `cte` (which returns id, user_id, content)."""
    return (
        f"(SELECT coalesce(json_agg(json_build_object('id', id, 'user_id', user_id, 'content', "
        f"left(content, 120))), '[]'::json) FROM (SELECT * FROM {cte} ORDER BY id LIMIT {SAMPLE}) s) AS sample"
    )


class SampleRow(TypedDict):
    id: str
    user_id: str
    content: str  # its first 120 characters


class Changed(TypedDict):
    """What a pass changed: how many rows, and a few of them (what a dry run shows)."""

    changed: int
    sample: list[SampleRow]


class Decayed(TypedDict):
    decayed: int
    dissolved: int
    stage_changes: int  # a trait decayed into a lower stage
    sample: list[SampleRow]


NO_DECAY = Decayed(decayed=0, dissolved=0, stage_changes=0, sample=[])  # a cycle that leaves decay for later


async def run_pass(session: AsyncSession, sql: str, params: dict[str, Any]) -> RowMapping:
    """Run a pass statement; its single row holds counts (and optionally a sample of changed rows)."""
    return (await session.execute(text(sql), params)).mappings().one()


async def _update_with_history(
    session: AsyncSession,
    user_id: str | None,
    now: datetime,
    *,
    set_sql: str,
    where_sql: str,
    action: str,
    reason: str,
) -> Changed:
    """One statement: update the matching rows and write a history row for each."""
    sql = f"""
    WITH upd AS (
        UPDATE memories m SET {set_sql}, updated_at = :now
        WHERE {where_sql} {_user_filter(user_id)}
        RETURNING m.id, m.user_id, m.content, m.kind, m.trait_stage, m.trait_confidence),
    hist AS (
        INSERT INTO memory_history (memory_id, user_id, action, reason, at, stage, confidence, user_at)
        SELECT id, user_id, :action, :reason, :now, CASE WHEN kind = 'trait' THEN trait_stage END,
               CASE WHEN kind = 'trait' THEN trait_confidence END,
               CASE WHEN kind = 'trait' THEN {user_now_sql("upd.user_id")} END FROM upd RETURNING 1)
    SELECT (SELECT count(*) FROM upd) AS changed, {sample_sql("upd")}
    """
    row = await run_pass(session, sql, _params(user_id, now=now, action=action, reason=reason))
    return Changed(changed=int(row["changed"]), sample=row["sample"])


async def promote_trends(session: AsyncSession, user_id: str | None, now: datetime) -> Changed:
    """Trends reinforced at least twice inside their window become candidates."""
    return await _update_with_history(
        session,
        user_id,
        now,
        action="stage",
        # What the reinforcements earned is kept (issue 52: promotion reset 0.36 to 0.30).
        set_sql=f"trait_stage = '{Stage.CANDIDATE}', "
        f"trait_confidence = greatest({PROMOTED_CONFIDENCE}, coalesce(m.trait_confidence, 0))",
        where_sql=f"m.kind = 'trait' AND m.valid_until IS NULL AND {promotable_sql('m')}",
        reason=f"trend → candidate (reinforced twice within its window; confidence at least {PROMOTED_CONFIDENCE})",
    )


async def expire_trends(session: AsyncSession, user_id: str | None, now: datetime) -> Changed:
    """Trends whose window passed with fewer than 2 reinforcements dissolve, once a reflection has looked past
    it (rules/traits.expired_trend_sql)."""
    return await _update_with_history(
        session,
        user_id,
        now,
        action="dissolve",
        set_sql=f"trait_stage = '{Stage.DISSOLVED}', valid_until = :now",
        where_sql="m.kind = 'trait' AND m.valid_until IS NULL AND "
        + expired_trend_sql(
            "m",
            reflected_told_sql("m.user_id"),
            user_now_sql("m.user_id"),
            waiting_since_sql("m.user_id", "coalesce(m.trait_first_observed, m.told_at)"),
        ),
        reason="trend window passed with fewer than 2 reinforcements",
    )


async def expire_prospective(session: AsyncSession, user_id: str | None, now: datetime) -> Changed:
    """Plans whose period is over, and undated plans that lapsed, become historical — on each user's clock
    (storage/timeline.py): in an imported history a plan is over when the user's time has passed it, not the
    server's (rules/plans.py)."""
    at = user_now_sql("m.user_id")
    return await _update_with_history(
        session,
        user_id,
        now,
        action="expire",
        set_sql=f"temporality = 'historical', metadata = coalesce(m.metadata, '{{}}'::jsonb) || "
        f"jsonb_build_object('{Key.WAS_PLAN}', true)",
        where_sql=f"m.temporality = 'prospective' AND ({plans.over_sql(at)} OR {plans.lapsed_sql(at)}) "
        "AND (m.valid_until IS NULL OR m.valid_until > :now)",
        reason="prospective → historical (its date passed, or it had none and lapsed)",
    )


async def decay_traits(session: AsyncSession, user_id: str | None, now: datetime) -> Decayed:
    """`rules.traits.decayed` for every non-trend active trait, on each user's clock (storage/timeline.py).

    Days count from the later of the last reinforcement (the told time of its latest evidence) and the
    last decay pass (the user's clock then, kept in metadata.last_decay_at), so running the pass often
    never decays twice for the same time. Decay may only lower a stage, and the pass also holds every
    trait to what its evidence's spread allows (`rules.traits.stage_cap`); below `DISSOLVE_BELOW` the
    trait dissolves.
    """
    days = f"""extract(epoch FROM (b.user_now - greatest(
                         coalesce(b.trait_last_reinforced, b.created_at),
                         coalesce((b.metadata ->> '{Key.LAST_DECAY_AT}')::timestamptz, '-infinity'::timestamptz))))
                     / 86400.0"""
    exponent = decay_exponent_sql("b.trait_subtype", "b.trait_reinforcement_count", days)
    spread_days = "coalesce(extract(epoch FROM (sp.last - sp.first)) / 86400.0, 0)"
    sql = f"""
    WITH old AS (
        SELECT m.user_id, m.id, m.trait_stage FROM memories m
        WHERE m.kind = 'trait' AND m.valid_until IS NULL AND m.trait_stage NOT IN ('{Stage.TREND}', '{Stage.DISSOLVED}')
          {_user_filter(user_id)}
        FOR UPDATE),
    base AS (
        SELECT m.user_id, m.id, old.trait_stage AS old_stage, m.trait_confidence, m.trait_subtype,
               m.trait_reinforcement_count, m.trait_last_reinforced, m.created_at, m.metadata,
               {user_now_sql("m.user_id")} AS user_now
        FROM memories m JOIN old ON old.user_id = m.user_id AND old.id = m.id),
    calc AS (
        SELECT b.user_id, b.id, b.old_stage, b.user_now, b.trait_subtype,
               least(1.0, greatest(0.0, b.trait_confidence * {safe_exp(exponent)})) AS c,
               coalesce(sp.occasions, 0) AS occasions, {spread_days} AS span
        FROM base b, LATERAL ({_spread_sql("AND e.user_id = b.user_id AND e.trait_id = b.id")}) sp),
    staged AS (
        SELECT calc.*, {stage_sql("calc.c")} AS mapped,
               {stage_cap_sql("calc.occasions", "calc.span", "calc.trait_subtype")} AS cap
        FROM calc),
    upd AS (
        UPDATE memories m SET
            trait_confidence = s.c,
            trait_stage = {lowest_sql("s.old_stage", "s.mapped", "s.cap")},
            valid_until = CASE WHEN s.mapped = '{Stage.DISSOLVED}' THEN :now ELSE m.valid_until END,
            metadata = jsonb_set(m.metadata, '{{last_decay_at}}', to_jsonb(s.user_now)),
            updated_at = :now
        FROM staged s WHERE m.user_id = s.user_id AND m.id = s.id
        RETURNING m.id, m.user_id, m.content, s.old_stage, m.trait_stage AS new_stage, m.trait_confidence AS c,
                  s.user_now, {rank_sql("s.cap")} < {rank_sql("s.mapped")} AS held, s.occasions, s.span),
    hist AS (
        INSERT INTO memory_history (memory_id, user_id, action, reason, at, stage, confidence, user_at)
        SELECT id, user_id, CASE WHEN new_stage = '{Stage.DISSOLVED}' THEN 'dissolve' ELSE 'stage' END,
               CASE WHEN held AND new_stage <> '{Stage.DISSOLVED}'
                    THEN format('held by time: %s → %s (evidence from %s occasions over %s days)',
                                old_stage, new_stage, occasions, round(span::numeric))
                    ELSE format('decay: %s → %s (confidence %s)', old_stage, new_stage, round(c::numeric, 3)) END,
               :now, new_stage, c, user_now
        FROM upd WHERE new_stage <> old_stage RETURNING 1)
    SELECT (SELECT count(*) FROM upd) AS decayed,
           (SELECT count(*) FROM upd WHERE new_stage = '{Stage.DISSOLVED}') AS dissolved,
           (SELECT count(*) FROM hist) AS stage_changes, {sample_sql("upd")}
    """
    row = await run_pass(session, sql, _params(user_id, now=now))
    return Decayed(
        decayed=int(row["decayed"]),
        dissolved=int(row["dissolved"]),
        stage_changes=int(row["stage_changes"]),
        sample=row["sample"],
    )
