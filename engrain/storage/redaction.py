"""SQL of `engrain redact`: reading stored texts in key order, and writing them back without their secrets.

Rows are read in batches in the order of their primary key, so a pass can stop anywhere and the next one
resumes; the texts are judged in Python (reading/redaction.py), and only the rows whose text changes are
written.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class StoredMemory:
    user_id: str
    id: uuid.UUID
    namespace: str
    kind: str
    content: str
    tags: list[str]
    metadata: dict[str, Any]
    live: bool


@dataclass(frozen=True)
class StoredHistory:
    user_id: str
    id: int
    old_content: str | None
    new_content: str | None


@dataclass(frozen=True)
class RedactedMemory:
    """A memory's texts as they are to be stored, and its new content hash."""

    row: StoredMemory
    content: str
    digest: str
    tags: list[str]
    metadata: dict[str, Any]


def _users(user_id: str | None) -> str:
    return "" if user_id is None else " AND user_id = :user"


async def memories_after(
    session: AsyncSession, after: tuple[str, uuid.UUID] | None, limit: int, user_id: str | None = None
) -> list[StoredMemory]:
    """The next `limit` memories (every kind, live or not) after the key `after`, in key order."""
    rows = await session.execute(
        text(
            "SELECT user_id, id, namespace, kind, content, tags, metadata, valid_until IS NULL AS live "
            "FROM memories WHERE (user_id, id) > (:u, CAST(:i AS uuid))"
            + _users(user_id)
            + " ORDER BY user_id, id LIMIT :n"
        ),
        {"u": after[0] if after else "", "i": str(after[1]) if after else str(uuid.UUID(int=0)), "n": limit}
        | ({"user": user_id} if user_id is not None else {}),
    )
    return [
        StoredMemory(
            r.user_id, r.id, r.namespace, r.kind, r.content, list(r.tags or []), dict(r.metadata or {}), r.live
        )
        for r in rows
    ]


async def history_after(
    session: AsyncSession, after: tuple[str, int] | None, limit: int, user_id: str | None = None
) -> list[StoredHistory]:
    """The next `limit` history rows that keep a text, after the key `after`, in key order."""
    rows = await session.execute(
        text(
            "SELECT user_id, id, old_content, new_content FROM memory_history "
            "WHERE (user_id, id) > (:u, :i) AND (old_content IS NOT NULL OR new_content IS NOT NULL)"
            + _users(user_id)
            + " ORDER BY user_id, id LIMIT :n"
        ),
        {"u": after[0] if after else "", "i": after[1] if after else -1, "n": limit}
        | ({"user": user_id} if user_id is not None else {}),
    )
    return [StoredHistory(r.user_id, r.id, r.old_content, r.new_content) for r in rows]


async def rewrite_memories(session: AsyncSession, changes: Sequence[RedactedMemory], now: datetime) -> int:
    """Write the redacted texts. Two live memories whose texts become one ("my key is [secret: …]" twice) would
    break the rule that a live text is stored once: the later one is retired, replaced by the one already
    stored (its history says why). Returns how many were retired."""
    retired = 0
    for change in changes:
        row = change.row
        twin = None
        if row.live:
            twin = (
                await session.execute(
                    text(
                        "SELECT id FROM memories WHERE user_id = :u AND namespace = :ns AND kind = :k "
                        "AND content_hash = :h AND valid_until IS NULL AND id <> :i"
                    ),
                    {"u": row.user_id, "ns": row.namespace, "k": row.kind, "h": change.digest, "i": row.id},
                )
            ).scalar()
        await session.execute(
            text(
                "UPDATE memories SET content = :c, content_hash = :h, tags = :t, metadata = CAST(:m AS jsonb), "
                "updated_at = :now"
                + (", valid_until = :now, superseded_by = :twin" if twin is not None else "")
                + " WHERE user_id = :u AND id = :i"
            ),
            {
                "c": change.content,
                "h": change.digest,
                "t": change.tags,
                "m": _json(change.metadata),
                "now": now,
                "u": row.user_id,
                "i": row.id,
            }
            | ({"twin": twin} if twin is not None else {}),
        )
        if twin is not None:
            retired += 1
            await session.execute(
                text(
                    "INSERT INTO memory_history (user_id, memory_id, action, reason, at) "
                    "VALUES (:u, :i, 'supersede', 'the same text once its secrets were redacted', :now)"
                ),
                {"u": row.user_id, "i": row.id, "now": now},
            )
    return retired


async def rewrite_history(session: AsyncSession, changes: Sequence[StoredHistory]) -> None:
    for row in changes:
        await session.execute(
            text("UPDATE memory_history SET old_content = :o, new_content = :n WHERE user_id = :u AND id = :i"),
            {"o": row.old_content, "n": row.new_content, "u": row.user_id, "i": row.id},
        )


def _json(value: dict[str, Any]) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
