"""Job run records (`job_runs`) and the user look-ups the jobs need."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.models import JobRun


class JobRunRow(TypedDict):
    """A job's run: `user_id` None for a run over every user; times in ISO 8601; `stats` as the job wrote them."""

    status: str
    user_id: str | None
    started_at: str
    finished_at: str | None
    stats: dict[str, Any] | None
    error: str | None


def _run_row(run: JobRun) -> JobRunRow:
    return JobRunRow(
        status=run.status,
        user_id=run.user_id,
        started_at=run.started_at.isoformat(),
        finished_at=run.finished_at.isoformat() if run.finished_at else None,
        stats=run.stats,
        error=run.error,
    )


async def last_runs(session: AsyncSession, *, scheduled_only: bool = False) -> dict[str, JobRunRow]:
    """The newest run of each job (scheduled_only: runs over all users, not one session's digest)."""
    stmt = select(JobRun).distinct(JobRun.job).order_by(JobRun.job, JobRun.started_at.desc(), JobRun.id.desc())
    if scheduled_only:
        stmt = stmt.where(JobRun.user_id.is_(None), JobRun.status.in_(["completed", "failed"]))
    return {run.job: _run_row(run) for run in (await session.execute(stmt)).scalars()}


async def completed_stats(session: AsyncSession, job: str) -> list[dict[str, Any]]:
    """The stats of every completed run of `job` over all users (what a once-per-version job looks for)."""
    rows = await session.execute(
        select(JobRun.stats).where(JobRun.job == job, JobRun.status == "completed", JobRun.user_id.is_(None))
    )
    return [dict(stats or {}) for stats in rows.scalars()]


async def start_run(session: AsyncSession, job: str, user_id: str | None, now: datetime) -> int:
    run = JobRun(job=job, user_id=user_id, status="running", started_at=now, stats={})
    session.add(run)
    await session.flush()
    return run.id


async def finish_run(
    session: AsyncSession, run_id: int, status: str, stats: dict[str, Any], error: str | None, now: datetime
) -> None:
    await session.execute(
        update(JobRun).where(JobRun.id == run_id).values(status=status, stats=stats, error=error, finished_at=now)
    )


async def users_with_new_memories(session: AsyncSession, user_id: str | None) -> list[str]:
    """Users with a fact/episodic/procedural memory learned after their reflection watermark."""
    rows = await session.execute(
        text(
            "SELECT DISTINCT m.user_id FROM memories m LEFT JOIN user_state u ON u.user_id = m.user_id "
            "WHERE m.kind IN ('fact', 'episodic', 'procedural') "
            "AND (u.last_reflected_at IS NULL OR m.created_at > u.last_reflected_at "
            "OR (m.created_at = u.last_reflected_at AND m.id > u.last_reflected_id))"
            + (" AND m.user_id = :user" if user_id is not None else "")
            + " ORDER BY 1"
        ),
        {"user": user_id} if user_id is not None else {},
    )
    return list(rows.scalars())
