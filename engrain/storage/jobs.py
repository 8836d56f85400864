"""Job run records (`job_runs`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.storage.models import JobRun


async def last_runs(session: AsyncSession) -> dict[str, dict[str, Any]]:
    """The newest run of each job."""
    stmt = select(JobRun).distinct(JobRun.job).order_by(JobRun.job, JobRun.started_at.desc(), JobRun.id.desc())
    return {
        run.job: {
            "status": run.status,
            "started_at": run.started_at.isoformat(),
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            "stats": run.stats,
            "error": run.error,
        }
        for run in (await session.execute(stmt)).scalars()
    }
