"""The three jobs (docs/SPEC.md §8). Each works over every user (or one, for a session's digest) with
set-based SQL; a dry run executes the same statements in a transaction that is rolled back, so
it reports exactly what would change."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from engrain.services.traits import upkeep
from engrain.services.traits.results import Busy, NotTriggered, Reflected
from engrain.storage import jobs as job_repo
from engrain.storage import traits as trait_repo
from engrain.storage.retention import fade_memories

if TYPE_CHECKING:
    from engrain.services.memories.import_queue import ImportQueue
    from engrain.services.prompting.routes import ModelRoutes
    from engrain.services.runtime import Runtime
    from engrain.services.traits.reflection.cycle import Reflection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobContext:
    """What the jobs use: the runtime, reflection (the digest reflects), the model routes and the imported history
    waiting for a model (the digest reads it with the server's model)."""

    runtime: Runtime
    reflection: Reflection
    routes: ModelRoutes
    imports: ImportQueue


Job = Callable[[JobContext, datetime, "str | None", bool], Awaitable[dict[str, Any]]]


async def _in_transaction(
    ctx: JobContext, dry_run: bool, work: Callable[[Any], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    db = await ctx.runtime.database()
    async with db.sessions() as s:
        tx = await s.begin()
        try:
            stats = await work(s)
        except BaseException:
            await tx.rollback()
            raise
        if dry_run:
            await tx.rollback()
        else:
            await tx.commit()
    return stats


async def expiry(ctx: JobContext, now: datetime, user_id: str | None, dry_run: bool) -> dict[str, Any]:
    """Past intentions become historical; trends are promoted or expire with their window."""

    async def work(s: Any) -> dict[str, Any]:
        return await upkeep.run_passes(s, user_id, now, samples=dry_run)

    return await _in_transaction(ctx, dry_run, work)


async def decay(ctx: JobContext, now: datetime, user_id: str | None, dry_run: bool) -> dict[str, Any]:
    """Trait decay (docs/SPEC.md §7.5) and memory retention (archive, or delete with ENGRAIN_FORGET_MODE=delete)."""
    settings = ctx.runtime.settings
    lam, threshold = settings.retention_params

    async def work(s: Any) -> dict[str, Any]:
        traits = await trait_repo.decay_traits(s, user_id, now)
        out: dict[str, Any] = {
            "traits_decayed": traits["decayed"],
            "traits_dissolved": traits["dissolved"],
            "trait_stage_changes": traits["stage_changes"],
            "retention": settings.retention,
            "forget_mode": settings.forget_mode,
            "lambda": lam,
            "threshold": threshold,
        }
        if settings.retention == "on":
            faded = await fade_memories(
                s,
                user_id,
                now,
                lam=lam,
                threshold=threshold,
                delete=settings.forget_mode == "delete",
                min_created=now - timedelta(days=settings.retention_min_age_days),
            )
            out.update(
                memories_archived=faded["archived"],
                memories_deleted=faded["deleted"],
                traits_dissolved=out["traits_dissolved"] + faded["traits_dissolved"],
            )
            if dry_run:
                out["memories_sample"] = faded["sample"]
        if dry_run:
            out["traits_sample"] = traits["sample"]
        return out

    return await _in_transaction(ctx, dry_run, work)


async def digest(ctx: JobContext, now: datetime, user_id: str | None, dry_run: bool) -> dict[str, Any]:
    """Read the imported history waiting for a model (a few pieces a run), then reflect every user whose
    `should_reflect` is true.

    Only a model the server holds can digest without a client. Otherwise (the client's model through
    sampling or a host task, or none) due users are left due: the next `reflect` with a model sees their
    memories, and the server tells the calling model a reflection is due; the imported history waits for the
    calling model's extraction tasks.
    """
    route = ctx.routes.without_client()
    imported: dict[str, int] = {}
    if route.ask is not None and not dry_run and user_id is None:
        imported = await ctx.imports.extract_waiting(route)
    db = await ctx.runtime.database()
    async with db.sessions() as s:
        users = await job_repo.users_with_new_memories(s, user_id)
    due: list[dict[str, str | None]] = []
    for user in users:
        trigger = await ctx.reflection.should_reflect(user)
        if trigger.triggered:
            due.append({"user_id": user, "trigger": trigger.type})
    stats: dict[str, Any] = {"candidates": len(users), "due": len(due)} | ({"imported": imported} if imported else {})
    if dry_run:
        return stats | {"sample": due[: trait_repo.SAMPLE], "llm": route.name}
    if route.ask is None:  # no model without a client: the due users stay due (nothing is consumed without a model)
        return stats | {"reflected": 0, "waiting_for_model": len(due), "llm": route.name}
    reflected = 0
    failed: list[dict[str, str | None]] = []
    passed_over: list[dict[str, str | None]] = []
    for user in (str(entry["user_id"]) for entry in due):
        try:
            result = await ctx.reflection.reflect(user, force=False, route=route)
        except Exception as exc:  # one user's failure must not stop the others
            log.exception("digest of %s failed", user)
            failed.append({"user_id": user, "error": f"{type(exc).__name__}: {exc}"})
            continue
        match result:
            case Reflected(status="failed", error=error):
                failed.append({"user_id": user, "error": error})
                reflected += 1
            case Reflected():
                reflected += 1
            case Busy():  # a client's reflect for this user is running right now
                passed_over.append({"user_id": user, "reason": Busy.REASON})
            case NotTriggered(reason=reason):
                passed_over.append({"user_id": user, "reason": reason})
    stats |= {"reflected": reflected, "failed": failed, "not_reflected": passed_over, "llm": route.name}
    if failed:
        raise JobFailed(f"{len(failed)} of {len(due)} reflections failed", stats)
    return stats


class JobFailed(Exception):
    """A job that did part of its work: the stats of what it did travel with the error."""

    def __init__(self, message: str, stats: dict[str, Any]) -> None:
        super().__init__(message)
        self.stats = stats


JOBS: dict[str, Job] = {"expiry": expiry, "digest": digest, "decay": decay}
