"""Secrets never stored (docs/SPEC.md §5, "Secrets"): what a write path hands to reading/redaction.py.

Every way in — `remember`, `remember_many`, `ingest_conversation` (the messages, before any model reads
them), `engrain import`, the page's edit, a model's answer — replaces credentials with typed placeholders
before anything is embedded, indexed, logged or written. The rules themselves are in
`reading/redaction.py`; this module applies them to the values a request carries.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel, Field

from engrain.config import RedactMode
from engrain.reading.enrich import content_hash
from engrain.reading.redaction import RULES_VERSION, Redaction, redact, redact_value
from engrain.storage import jobs as job_repo
from engrain.storage import memories as memory_repo
from engrain.storage import redaction as repo
from engrain.storage import windows as windows_repo

if TYPE_CHECKING:
    from engrain.services.memories.requests import RememberRequest
    from engrain.services.runtime import Runtime
    from engrain.storage.db import Database

log = logging.getLogger(__name__)
BATCH = 500
JOB = "redact"  # its runs are kept in job_runs, with the rules' version and mode they applied
RECHECK_SECONDS = 5.0  # while another process runs the pass, how often this one looks whether it is done

# Up to this many characters a text is redacted on the event loop; a longer one, whose cost grows with it, in a
# worker thread (docs/performance.md).
ON_LOOP_CHARS = 2_000


def redact_request(request: RememberRequest, mode: RedactMode) -> tuple[RememberRequest, dict[str, int]]:
    """The request with secrets replaced in every text it will store (content, tags, steps, metadata), and
    how many of each kind were. The request itself is left as it was."""
    if mode == "off":
        return request, {}
    kinds: Counter[str] = Counter()
    done = redact(request.content, mode)
    kinds.update(done.kinds)
    update: dict[str, Any] = {"content": done.text}
    for name in ("tags", "procedure_steps", "metadata", "category"):
        value = getattr(request, name)
        if value is not None:
            update[name] = redact_value(value, mode, kinds)
    if not kinds:
        return request, {}
    return request.model_copy(update=update), dict(kinds)


async def redacted(request: RememberRequest, mode: RedactMode) -> tuple[RememberRequest, dict[str, int]]:
    """`redact_request`, off the event loop when the content is long enough for it to matter."""
    if len(request.content) <= ON_LOOP_CHARS:
        return redact_request(request, mode)
    return await anyio.to_thread.run_sync(redact_request, request, mode)


async def redact_text(text: str, mode: RedactMode) -> Redaction:
    """`redact` off the event loop when the text is long enough for it to matter."""
    if mode == "off" or len(text) <= ON_LOOP_CHARS:
        return redact(text, mode)
    return await anyio.to_thread.run_sync(redact, text, mode)


def merged(*counts: dict[str, int] | None) -> dict[str, int] | None:
    """Several kind → count maps as one; None when nothing was redacted (the results leave it out)."""
    total: Counter[str] = Counter()
    for count in counts:
        total.update(count or {})
    return dict(sorted(total.items())) or None


class RedactReport(BaseModel):
    """What a pass over the stored rows found (and, applied, rewrote)."""

    applied: bool = Field(description="False for a dry run: nothing was written.")
    mode: str
    rules: int = Field(description="The version of the rules (reading/redaction.RULES_VERSION).")
    memories_scanned: int = 0
    memories_redacted: int = 0
    history_scanned: int = 0
    history_redacted: int = 0
    retired: int = Field(default=0, description="Live memories whose redacted text another one already had.")
    reembedded: int = 0
    kinds: dict[str, int] = Field(default_factory=dict[str, int])
    examples: list[str] = Field(default_factory=list[str], description="A dry run: some texts as they would be.")


class StoredSecrets:
    """Rows stored before secrets were redacted (or under a looser ENGRAIN_REDACT): found and rewritten in
    place — content, tags, metadata, history — with their vectors made again from the redacted text and the
    full-text index following by itself. Until it has run, recall screens what it returns (RecallSearch)."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self._clean = False  # every stored row is known to be redacted under the current rules and mode

    def screen(self, text: str) -> str:
        """A stored text on its way out (recall): redacted until the pass is known to be done, as it is after.
        Redacting every hit is a real part of a recall's time (docs/performance.md), for rows clean once the
        pass ran."""
        return text if self._clean else redact(text, self.rt.settings.redact).text

    async def run(
        self, *, apply: bool, user_id: str | None = None, on_batch: Callable[[int], Awaitable[None]] | None = None
    ) -> RedactReport:
        """One pass over every stored text (of one user, or all), in batches that commit on their own: an
        interrupted pass loses at most a batch, and the next resumes as if it had not run."""
        mode = self.rt.settings.redact
        report = RedactReport(applied=apply, mode=mode, rules=RULES_VERSION)
        if mode == "off":
            return report
        kinds: Counter[str] = Counter()
        db = await self.rt.database()
        after: tuple[str, Any] | None = None
        while True:
            async with db.sessions() as s:
                rows = await repo.memories_after(s, after, BATCH, user_id)
            if not rows:
                break
            after = (rows[-1].user_id, rows[-1].id)
            changes = await anyio.to_thread.run_sync(_redacted_memories, rows, mode, kinds)
            report.memories_scanned += len(rows)
            report.memories_redacted += len(changes)
            if apply and changes:
                await self._rewrite(changes, report)
            elif changes and len(report.examples) < 20:
                report.examples += [c.content for c in changes[: 20 - len(report.examples)]]
            if on_batch is not None:
                await on_batch(len(rows))
        after_history: tuple[str, Any] | None = None
        while True:
            async with db.sessions() as s:
                history = await repo.history_after(s, after_history, BATCH, user_id)
            if not history:
                break
            after_history = (history[-1].user_id, history[-1].id)
            changed = await anyio.to_thread.run_sync(_redacted_history, history, mode, kinds)
            report.history_scanned += len(history)
            report.history_redacted += len(changed)
            if apply and changed:
                async with db.sessions.begin() as s:
                    await repo.rewrite_history(s, changed)
        report.kinds = dict(sorted(kinds.items()))
        return report

    async def _rewrite(self, changes: list[repo.RedactedMemory], report: RedactReport) -> None:
        """The batch's texts, and their vectors made again, in one transaction (their windows, by the next
        server's pass: storage/windows.py)."""
        model, vectors = await self.rt.embeddings.embed([c.content for c in changes])
        db = await self.rt.database()
        async with db.sessions.begin() as s:
            report.retired += await repo.rewrite_memories(s, changes, self.rt.clock())
            keys = [(c.row.user_id, c.row.id) for c in changes]
            await memory_repo.set_embeddings(s, model.id, keys, vectors)
            await windows_repo.drop(s, keys)
        report.reembedded += len(changes)

    async def run_once(self) -> None:
        """In a serving process: the pass, applied, unless it already ran for these rules and this mode. One
        process at a time runs it; the others look again every RECHECK_SECONDS until it is done (their
        recall screens meanwhile), then stop screening."""
        mode = self.rt.settings.redact
        if mode == "off":
            self._clean = True
            return
        db = await self.rt.database()
        while True:
            async with db.try_advisory_lock(JOB) as got:
                if got:
                    if not await self._done(mode):
                        await self._run_recorded(db)
                    self._clean = True
                    return
            await anyio.sleep(RECHECK_SECONDS)

    async def _run_recorded(self, db: Database) -> None:
        """The pass, applied, as a `redact` job run (what `_done` looks for)."""
        started = self.rt.clock()
        async with db.sessions.begin() as s:
            run_id = await job_repo.start_run(s, JOB, None, started)
        try:
            report = await self.run(apply=True)
        except BaseException as exc:  # cancelled at close too: the batches written stay, the next start goes on
            cancelled = isinstance(exc, anyio.get_cancelled_exc_class())
            error = "cancelled before it finished" if cancelled else type(exc).__name__
            with anyio.CancelScope(shield=True):  # as the scheduler's runs: even a cancelled one leaves a record
                async with db.sessions.begin() as s:
                    await job_repo.finish_run(s, run_id, "failed", {}, error, self.rt.clock())
            raise
        async with db.sessions.begin() as s:
            await job_repo.finish_run(s, run_id, "completed", report.model_dump(), None, self.rt.clock())
        if report.memories_redacted or report.history_redacted:
            log.info(
                "redacted secrets in %d stored memories and %d history rows",
                report.memories_redacted,
                report.history_redacted,
            )

    async def _done(self, mode: str) -> bool:
        db = await self.rt.database()
        async with db.sessions() as s:
            runs = await job_repo.completed_stats(s, JOB)
        return any(stats.get("rules") == RULES_VERSION and stats.get("mode") == mode for stats in runs)


def _redacted_memories(
    rows: list[repo.StoredMemory], mode: RedactMode, kinds: Counter[str]
) -> list[repo.RedactedMemory]:
    changes: list[repo.RedactedMemory] = []
    for row in rows:
        found: Counter[str] = Counter()
        done = redact(row.content, mode)
        found.update(done.kinds)
        tags = redact_value(row.tags, mode, found)
        metadata = redact_value(row.metadata, mode, found)
        if found:
            kinds.update(found)
            changes.append(repo.RedactedMemory(row, done.text, content_hash(done.text), tags, metadata))
    return changes


def _redacted_history(
    rows: list[repo.StoredHistory], mode: RedactMode, kinds: Counter[str]
) -> list[repo.StoredHistory]:
    changed: list[repo.StoredHistory] = []
    for row in rows:
        old = redact(row.old_content, mode) if row.old_content else None
        new = redact(row.new_content, mode) if row.new_content else None
        if (old and old.kinds) or (new and new.kinds):
            for done in (old, new):
                kinds.update(done.kinds if done else {})
            changed.append(
                repo.StoredHistory(row.user_id, row.id, old.text if old else None, new.text if new else None)
            )
    return changed
