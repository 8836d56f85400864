"""The rows of the user's profile (services/profile): the facts it opens with, and the memories that fill its
sections. Each query reads one user's live memories through an index that leads with the user."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading.metadata import Key
from engrain.storage.memories import known
from engrain.storage.models import Memory

# What ingest_conversation stores a conversation's summary as: a recap of memories listed on their own.
SUMMARY_PREFIX = "Conversation summary: "
_SLOT = Memory.metadata_[Key.SLOT.value].astext
_SLOT_VALUE = Memory.metadata_[Key.SLOT_VALUE.value].astext


def summary(memory: Memory) -> bool:
    return memory.content.startswith(SUMMARY_PREFIX)


async def slot_facts(session: AsyncSession, user_id: str, now: datetime) -> list[Memory]:
    """The live memories that fill a slot (reading/slots.py), the newest told of each slot and value: a
    corrected single-valued slot has one live value left, a many-valued one (the people named) has each."""
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, Memory.metadata_.has_key(Key.SLOT.value), Memory.kind != "trait", known(now))
        .distinct(_SLOT, _SLOT_VALUE)
        .order_by(_SLOT, _SLOT_VALUE, Memory.told_at.desc(), Memory.id)
    )
    return list((await session.execute(stmt)).scalars())


async def facts_in(session: AsyncSession, user_id: str, category: str, now: datetime, limit: int) -> list[Memory]:
    """Live facts of a category that fill no slot and are no habit: the people and pets in the user's life
    ("We have two kids", "My dad had surgery in May": relationship), their health ("I'm allergic to
    peanuts"), their preferences ("I'm vegetarian"). The most important first, then the newest told."""
    stmt = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.category == category,
            Memory.kind.in_(("fact", "episodic")),
            Memory.temporality != "prospective",
            ~Memory.metadata_.has_key(Key.SLOT.value),
            ~Memory.metadata_.has_key(Key.RECURRENCE.value),
            ~Memory.content.startswith(SUMMARY_PREFIX),
            known(now),
        )
        .order_by(Memory.importance.desc(), Memory.told_at.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def key_dates(
    session: AsyncSession, user_id: str, now: datetime, min_importance: int, limit: int
) -> list[Memory]:
    """Dated events that matter (importance ≥ `min_importance`, as a model or the text rated them): the
    milestones of the user's life, newest first."""
    stmt = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.kind.in_(("fact", "episodic")),
            Memory.event_time.is_not(None),
            Memory.temporality == "historical",
            Memory.importance >= min_importance,
            ~Memory.content.startswith(SUMMARY_PREFIX),
            known(now),
        )
        .order_by(Memory.event_time.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def standing(session: AsyncSession, user_id: str, now: datetime, limit: int) -> list[Memory]:
    """The user's standing instructions, then their preferences (reading/standing.py), each newest told first."""
    kind = Memory.metadata_[Key.STANDING.value].astext
    stmt = (
        select(Memory)
        .where(Memory.user_id == user_id, kind.in_(("instruction", "preference")), Memory.kind != "trait", known(now))
        .order_by(kind, Memory.told_at.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def habits(session: AsyncSession, user_id: str, now: datetime, limit: int) -> list[Memory]:
    """Habits the user keeps ("every Thursday I swim": a recurrence read at write time), newest told first."""
    stmt = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.metadata_.has_key(Key.RECURRENCE.value),
            Memory.temporality == "current",
            Memory.kind != "trait",
            known(now),
        )
        .order_by(Memory.told_at.desc(), Memory.id)
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())
