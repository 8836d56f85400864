"""When jobs run, and making sure each runs once (docs/SPEC.md §8).

Whether a job is due is decided from `job_runs` in the database, so every server and worker on
one database shares the schedule: a job that ran anywhere within the interval is not due
anywhere. A Postgres advisory lock per job makes concurrent attempts skip instead of running
twice. Every run (not dry runs) is a `job_runs` row; a failing job is recorded and the others
still run.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from typing import Any

import anyio
from pydantic import BaseModel

from engrain import metrics
from engrain.scheduler.jobs import JOBS, Job, JobContext, JobFailed
from engrain.services.status.report import JobRunView, JobSchedule, SchedulerStatus
from engrain.storage import jobs as job_repo
from engrain.storage.jobs import JobRunRow

log = logging.getLogger(__name__)
ORDER = ("expiry", "digest", "decay")  # expire first, reflect, then decay what is left
MAX_SLEEP = 60.0


class JobResult(BaseModel):
    job: str
    status: str  # completed | failed | skipped | dry-run
    stats: dict[str, Any] = {}
    error: str | None = None
    started_at: datetime
    finished_at: datetime


def job_lock_name(job: str, user_id: str | None) -> str:
    """The advisory lock of a job (of one user's run, for a session's digest)."""
    return f"engrain:job:{job}" if user_id is None else f"engrain:job:{job}:{user_id}"


class Scheduler:
    def __init__(self, context: JobContext, jobs: dict[str, Job] | None = None) -> None:
        self.context = context
        self.rt = context.runtime
        self.jobs = dict(jobs or JOBS)

    @property
    def interval(self) -> timedelta:
        return timedelta(seconds=self.rt.settings.scheduler_interval)

    async def run(
        self, name: str, *, dry_run: bool = False, user_id: str | None = None, only_if_due: bool = False
    ) -> JobResult:
        """Run one job now, unless it is already running somewhere (then: skipped). `only_if_due`
        re-checks the schedule once the lock is held, so a run another process just finished counts."""
        if name not in self.jobs:
            raise ValueError(f"unknown job {name!r}; jobs: {', '.join(self.jobs)}")
        db = await self.rt.database()
        started = self.rt.clock()
        async with db.try_advisory_lock(job_lock_name(name, user_id)) as got:
            if not got:
                return JobResult(
                    job=name,
                    status="skipped",
                    error="already running elsewhere",
                    started_at=started,
                    finished_at=self.rt.clock(),
                )
            if only_if_due and name not in await self.due():
                return JobResult(
                    job=name,
                    status="skipped",
                    error="ran elsewhere within the interval",
                    started_at=started,
                    finished_at=self.rt.clock(),
                )
            return await self._run_locked(name, dry_run, user_id, started)

    async def _run_locked(self, name: str, dry_run: bool, user_id: str | None, started: datetime) -> JobResult:
        db = await self.rt.database()
        run_id = None
        if not dry_run:
            async with db.sessions.begin() as s:
                run_id = await job_repo.start_run(s, name, user_id, started)
        status, stats, error = "failed", {}, "cancelled before it finished"
        wall = time.perf_counter()
        try:
            stats = await self.jobs[name](self.context, started, user_id, dry_run)
            status, error = ("dry-run" if dry_run else "completed"), None
        except JobFailed as exc:
            status, stats, error = "failed", exc.stats, str(exc)
        except Exception as exc:
            log.exception("job %s failed", name)
            status, error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            finished = self.rt.clock()
            if run_id is not None:
                with anyio.CancelScope(shield=True):  # even a cancelled run leaves an honest record
                    async with db.sessions.begin() as s:
                        await job_repo.finish_run(s, run_id, status, stats, error, finished)
        elapsed = time.perf_counter() - wall
        metrics.JOB_RUNS.labels(name, status).inc()
        metrics.JOB_DURATION.labels(name).observe(elapsed)
        # Dry runs' stats hold samples of memory contents: a log never gets them (what is forgotten
        # must leave no copy behind), only the counts.
        log.info("job %s %s in %.2f s%s", name, status, elapsed, f": {error}" if error else "")
        log.debug("job %s stats: %s", name, {k: v for k, v in stats.items() if "sample" not in k})
        return JobResult(job=name, status=status, stats=stats, error=error, started_at=started, finished_at=finished)

    async def run_all(self, *, dry_run: bool = False) -> list[JobResult]:
        return await self.run_many(self.jobs, dry_run=dry_run)

    async def run_many(self, names: Any, *, dry_run: bool = False) -> list[JobResult]:
        """These jobs now, one after another, in the order their work depends on (expiry before digest)."""
        return [await self.run(name, dry_run=dry_run) for name in self._ordered(names)]

    def _ordered(self, names: Any) -> list[str]:
        return sorted(names, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER))

    async def due(self) -> list[str]:
        """Jobs whose last run over all users started an interval ago or more (or never ran)."""
        db = await self.rt.database()
        async with db.sessions() as s:
            last = await job_repo.last_runs(s, scheduled_only=True)
        now = self.rt.clock()
        return self._ordered(
            name
            for name in self.jobs
            if name not in last or datetime.fromisoformat(last[name]["started_at"]) + self.interval <= now
        )

    async def tick(self) -> list[JobResult]:
        """Run whatever is due. At start-up this is the catch-up for the time nothing ran."""
        return [await self.run(name, only_if_due=True) for name in await self.due()]

    async def run_forever(self) -> None:
        """The in-server loop (and `engrain worker`): catch up, then check every minute at most."""
        while True:
            try:
                await self.tick()
            except Exception:  # the database may be restarting: try again next time
                log.exception("scheduler tick failed")
            await anyio.sleep(min(MAX_SLEEP, self.rt.settings.scheduler_interval))

    async def session_end(self, user_id: str) -> JobResult | None:
        """Digest the user of a session that just ended, within ENGRAIN_SESSION_END_TIMEOUT."""
        with anyio.move_on_after(self.rt.settings.session_end_timeout):
            return await self.run("digest", user_id=user_id)
        log.warning(
            "end-of-session digest for %s did not finish in %.1f s", user_id, self.rt.settings.session_end_timeout
        )
        return None

    async def status(self, viewer: str | None = None) -> SchedulerStatus:
        """Each job's last run and next run. `viewer`: the user a resource shows this to, who sees when
        jobs ran but no other user's id, counts or errors (their own session digests in full); None:
        the operator's view (`engrain status`, logs), with everything."""
        db = await self.rt.database()
        async with db.sessions() as s:
            last = await job_repo.last_runs(s, scheduled_only=True)
            latest = await job_repo.last_runs(s)
        enabled = self.rt.settings.scheduler == "on"
        jobs: dict[str, JobSchedule] = {}
        for name in self._ordered(self.jobs):
            run = last.get(name)
            # When it is next due, for whichever server or worker runs jobs on this database.
            next_run = (datetime.fromisoformat(run["started_at"]) + self.interval).isoformat() if run else "now"
            jobs[name] = JobSchedule(
                last_run=_seen_by(run, viewer), last_any_run=_seen_by(latest.get(name), viewer), next_run=next_run
            )
        return SchedulerStatus(
            enabled_in_this_server=enabled, interval_s=self.rt.settings.scheduler_interval, jobs=jobs
        )


def _seen_by(run: JobRunRow | None, viewer: str | None) -> JobRunView | None:
    """A job run as `viewer` may see it: whole if it is the operator or the run was this user's own
    digest; else that it ran, when, how it ended, and the settings it ran with (its text-valued stats,
    such as the LLM) — not the counts, ids and errors, which describe other users' data."""
    if run is None:
        return None
    if viewer is None or run["user_id"] == viewer:
        return JobRunView(**run)
    return JobRunView(
        status=run["status"],
        started_at=run["started_at"],
        finished_at=run["finished_at"],
        stats={key: value for key, value in (run["stats"] or {}).items() if isinstance(value, str)},
    )
