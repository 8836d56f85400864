"""Reflection by the calling model: the route `reflect` takes when the server has no model of its own
and the client cannot sample (Claude Desktop, Claude Code).

`reflect` runs the cycle's code-only steps and hands the calling model a task: the new memories and
active traits under aliases, the rules, and the JSON to answer with. The task is stored with what it
showed (aliases → ids), belongs to one user, expires after ENGRAIN_HOST_TASK_TTL, and a user has at
most one open. `reflect(task_id, answer)` parses the answer with the parser every provider uses,
refuses it — naming the key, the type or the alias — when anything is wrong (a key its schema
does not have, or none of its keys), and otherwise applies it
in one transaction, exactly as an LLM's answer is applied. A trait the answer pushes past the
contradiction ratio comes back as a follow-up review task. A second answer to the same task is
refused as already answered; nothing is applied twice.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from typing import Any, ClassVar, Self, TypeVar

import anyio
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import InvalidInput, NotFound
from engrain.rules.digests import DIGEST
from engrain.rules.traits import Stage
from engrain.services.memories.extraction import Extraction
from engrain.services.memories.import_queue import ImportQueue
from engrain.services.memories.ingest import ConversationIngest, ExtractTask, IngestRequest
from engrain.services.memories.results import IngestResult
from engrain.services.prompting.task_states import TaskState, state_of, task_state
from engrain.services.prompting.task_store import OpenedTask, TaskStore
from engrain.services.traits import prompts
from engrain.services.traits.answers import MainAnswer, ReviewAnswer, parse_task_answer
from engrain.services.traits.reflection.applying import NO_ANSWER
from engrain.services.traits.reflection.cycle import Reflection
from engrain.services.traits.reflection.planning import Plan, main_prompt, review_candidates
from engrain.services.traits.reflection.triggers import Trigger
from engrain.services.traits.results import (
    Busy,
    ImportHandedOut,
    NeedsModel,
    NotTriggered,
    Outcome,
    Reflected,
    reflect_result,
)
from engrain.services.wording import short_ids as ids
from engrain.storage import host_tasks as task_repo
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo
from engrain.storage.cycles import Mark
from engrain.storage.db import Database
from engrain.storage.models import HostTask
from engrain.text.quoting import quoted

LLM_NAME = "host"


@task_state
class ReflectTask(TaskState):
    """What a reflection task showed, by alias: enough to resolve its answer later, and no memory text."""

    KIND: ClassVar[str] = "reflect"
    TOOL: ClassVar[str] = "reflect"
    WHAT: ClassVar[str] = "update engrain's model of the user from what it learned recently."
    HINT: ClassVar[str] = (
        "When a pattern needs the user's older memories, call `recall` first and cite what it finds by its id (the "
        "8 characters in brackets at the end of its line). "
    )
    trigger: str | None = None
    value: float | None = None
    mark: datetime  # the watermark the answer moves to
    mark_id: uuid.UUID | None = None
    memories: dict[str, uuid.UUID] = Field(default_factory=dict[str, uuid.UUID])
    # Tasks stored before the evidence was kept have none.
    evidence: dict[str, uuid.UUID] = Field(default_factory=dict[str, uuid.UUID])
    traits: dict[str, uuid.UUID] = Field(default_factory=dict[str, uuid.UUID])
    # The user's live digests it showed (d1…); tasks stored before digests had none.
    digests: dict[str, uuid.UUID] = Field(default_factory=dict[str, uuid.UUID])

    @classmethod
    def of(cls, plan: Plan) -> Self:
        mark = plan.mark or Mark(plan.now)
        return cls(
            trigger=plan.trigger.type,
            value=plan.trigger.value,
            mark=mark.at,
            mark_id=mark.id,
            memories={alias: m.id for alias, m in plan.memories},
            evidence={alias: m.id for alias, m in plan.evidence},
            traits={alias: t.id for alias, t in plan.traits},
            digests={alias: d.id for alias, d in plan.digests},
        )

    def shown(self, kind: str) -> set[str]:
        """The aliases and ids of the memories (with the evidence), the traits or the digests the task showed."""
        aliases = {"memory": {**self.memories, **self.evidence}, "trait": self.traits, "digest": self.digests}[kind]
        return set(aliases) | {str(i) for i in aliases.values()}


@task_state
class ReviewTask(ReflectTask):
    """A follow-up review of traits the reflection's answer made contradicted often."""

    KIND: ClassVar[str] = "review"
    WHAT: ClassVar[str] = "decide about traits of the user that are now contradicted often."
    reviewable: list[uuid.UUID] = Field(default_factory=list[uuid.UUID])


# Where an answer cites ids: list field → {item field: what it names}; a field holding a list of ids
# is checked id by id. The review's decisions name traits.
_CITED: dict[str, dict[str, str]] = {
    "new_trends": {"evidence_ids": "memory"},
    "new_behaviors": {"evidence_ids": "memory"},
    "reinforcements": {"trait_id": "trait", "new_evidence_ids": "memory"},
    "contradictions": {"trait_id": "trait", "contradicting_evidence_ids": "memory"},
    "upgrades": {"from_trait_ids": "trait"},
    "links": {"source_id": "memory", "target_id": "memory"},
    "updates": {"old_id": "memory", "new_id": "memory"},
    "keys": {"memory_id": "memory"},
    "rewords": {"trait_id": "trait"},
    "digests": {"evidence_ids": "memory", "digest_id": "digest"},
    "decisions": {"trait_id": "trait"},
}


def _cited(answer: MainAnswer | ReviewAnswer) -> Iterator[tuple[str, str, str]]:
    """(where it stands, the id or alias, what it names) for every id the answer cites."""
    for key, fields in _CITED.items():
        for i, item in enumerate(getattr(answer, key, ())):
            for field, kind in fields.items():
                value = getattr(item, field)
                if value is None:  # an optional id left out (a new digest rewrites none)
                    continue
                if isinstance(value, str):
                    yield f"{key}[{i}].{field}", value, kind
                else:
                    yield from ((f"{key}[{i}].{field}[{j}]", ref, kind) for j, ref in enumerate(value))


_AN_ID = re.compile(r"[0-9a-f]{8}(?:-?[0-9a-f]{4}){0,3}(?:-?[0-9a-f]{12})?", re.IGNORECASE)


def unknown_refs(state: ReflectTask, answer: MainAnswer | ReviewAnswer) -> list[str]:
    """Every id the answer cites that its task did not show, with where it stands. A memory may also be cited by
    its id (whole, or the 8 characters recall shows) when the model found it with `recall` (issue 42): those
    are checked against the user's memories in the answer's transaction (`_found`)."""
    shown = {kind: state.shown(kind) for kind in ("memory", "trait", "digest")}
    problems: list[str] = []
    for path, ref, kind in _cited(answer):
        cited = ref.strip().strip("[]")
        if cited not in shown[kind] and not (kind == "memory" and _AN_ID.fullmatch(cited)):
            problems.append(f"{path}: {ref!r} is not a {kind} this task showed")
    return problems


async def _found(s: AsyncSession, user_id: str, state: ReflectTask, answer: MainAnswer | ReviewAnswer) -> list[Any]:
    """The memories the answer cites by an id the task did not show (found with `recall`), as (ref, row) pairs:
    each must be a live memory of this user (not a trait), else the answer is refused naming it."""
    shown = state.shown("memory")
    cited_ids: dict[str, tuple[str, uuid.UUID | None]] = {}  # ref → (where it stands, the id it names)
    for path, ref, kind in _cited(answer):
        cited = ref.strip().strip("[]")
        if kind != "memory" or cited in shown or cited in cited_ids:
            continue
        try:
            cited_ids[cited] = (path, await ids.resolve(s, user_id, path, cited))
        except NotFound:
            cited_ids[cited] = (path, None)
    wanted = [i for _, i in cited_ids.values() if i is not None]
    rows = {m.id: m for m in await repo.get_many(s, user_id, wanted)}  # one read for all of them
    found: list[tuple[str, Any]] = []
    for cited, (path, memory_id) in cited_ids.items():
        row = rows.get(memory_id) if memory_id is not None else None
        if row is not None and row.kind == DIGEST:
            raise InvalidInput(path, f"{cited!r} is a digest, not a memory the user told; cite its memories instead")
        if row is None or row.kind == "trait" or row.valid_until is not None:
            raise InvalidInput(path, f"{cited!r} is no live memory of this user; nothing was applied")
        found.append((cited, row))
    return found


def gone_traits(state: ReflectTask, plan: Plan, answer: MainAnswer | ReviewAnswer) -> list[str]:
    """Every trait the answer cites that is gone since its task was written — dissolved (decay, the scheduler,
    the user's dismissal) or forgotten — named, so that the model hears it instead of its words being dropped
    (issue 42: a cooking habit's reinforcements were ignored without a word)."""
    rows = {t.id: (alias, t) for alias, t in plan.traits}
    aliases = {**{str(i): a for a, i in state.traits.items()}, **{a: a for a in state.traits}}
    problems: list[str] = []
    for path, ref, kind in _cited(answer):
        cited = ref.strip().strip("[]")
        if kind != "trait" or cited not in aliases:
            continue
        alias = aliases[cited]
        found = rows.get(state.traits[alias])
        if found is None:
            problems.append(f"{path}: [{alias}] was forgotten since the task was written")
        elif found[1].trait_stage == Stage.DISSOLVED or found[1].valid_until is not None:
            problems.append(f"{path}: [{alias}] {quoted(found[1].content)} was dissolved since the task was written")
    return problems


def gone_digests(state: ReflectTask, plan: Plan, answer: MainAnswer | ReviewAnswer) -> list[str]:
    """Every digest the answer rewrites that is gone since its task was written (rewritten by another answer,
    forgotten), named: a rewrite of it would fork the topic into two live digests."""
    live = {d.id for _, d in plan.digests if d.valid_until is None}
    aliases = {**{str(i): a for a, i in state.digests.items()}, **{a: a for a in state.digests}}
    problems: list[str] = []
    for path, ref, kind in _cited(answer):
        cited = ref.strip().strip("[]")
        if kind == "digest" and cited in aliases and state.digests[aliases[cited]] not in live:
            problems.append(f"{path}: [{aliases[cited]}] was rewritten or forgotten since the task was written")
    return problems


def _told_by_number(extraction: Extraction, told: list[datetime]) -> None:
    """An item that names its message by number is told when that message was written; a number the task
    did not show is refused, naming the item."""
    for i, item in enumerate(extraction.memories):
        if item.message is None:
            continue
        if item.message > len(told):
            raise InvalidInput(
                f"answer.memories[{i}].message",
                f"{item.message} is not a message of this conversation (1–{len(told)}); nothing was applied",
            )
        item.said_at = item.said_at or told[item.message - 1].isoformat()


A = TypeVar("A", bound=BaseModel)


async def _parsed(model: type[A], answer: Any, required: tuple[str, ...] = ()) -> A:
    """`parse_task_answer` in a worker thread: linear and bounded (answers.py), yet an answer may be long,
    and the event loop serves every other user meanwhile."""
    return await anyio.to_thread.run_sync(functools.partial(parse_task_answer, model, answer, required))


class HostTasks:
    """Receives what it uses: the task store, the clock, the database, and the two services whose work a task
    hands out (reflection, ingestion)."""

    def __init__(
        self,
        store: TaskStore,
        clock: Callable[[], datetime],
        database: Callable[[], Awaitable[Database]],
        reflection: Reflection,
        ingest: ConversationIngest,
        imports: ImportQueue,
    ) -> None:
        self.store = store
        self.clock, self.database = clock, database
        self.reflection, self.ingest, self.imports = reflection, ingest, imports

    async def _hand_out(
        self, s: AsyncSession, cycle: Reflected, plan: Plan, state: ReflectTask, prompt: prompts.Prompt
    ) -> NeedsModel:
        """Open the task in the caller's transaction, after the cycle that hands it out."""
        opened = await self.store.open(s, plan.user_id, state, prompt)
        return NeedsModel(cycle, opened.id, opened.text)

    async def reflect(self, user_id: str, force: bool, planned: Plan | None = None) -> Outcome:
        """`reflect` on the host route. While the user's imported history waits for a model, reflections and its
        pieces take turns (`imports_first`): the history is read in bounded pieces, one a call, and traits keep
        forming meanwhile."""
        if await self.imports_first(user_id, force) and (handed := await self.import_task(user_id)):
            return handed
        return await self.or_import(user_id, await self._reflect(user_id, force, planned))

    async def imports_first(self, user_id: str, force: bool) -> bool:
        """Is it the imported history's turn before a reflection: some waits, it is not forced, and the last task
        this user was handed was no piece of it? (After a piece, a reflection if one is due; after a reflection,
        a piece.)"""
        if force:
            return False
        async with (await self.database()).sessions() as s:
            task = await task_repo.latest(s, user_id)
            if task is not None and isinstance(state := state_of(task), ExtractTask) and state.queued is not None:
                return False
            return (await self.imports.waiting(user_id, s)).pieces > 0

    async def or_import(self, user_id: str, outcome: Outcome) -> Outcome:
        """A reflection that was not due gives the turn to the imported history, if some waits."""
        if isinstance(outcome, NotTriggered) and (handed := await self.import_task(user_id)):
            return handed
        return outcome

    async def import_task(self, user_id: str) -> ImportHandedOut | None:
        """The oldest waiting piece of the user's imported history as an extraction task, if one waits."""
        async with (await self.database()).sessions.begin() as s:
            opened = await self._open_import(s, user_id)
            if opened is None:
                return None
            return ImportHandedOut(opened.id, opened.text, (await self.imports.waiting(user_id, s)).pieces)

    async def _open_import(self, s: AsyncSession, user_id: str) -> OpenedTask | None:
        piece = await self.imports.next(s, user_id)
        if piece is None:
            return None
        state = ExtractTask(
            session_id=piece.queued.source,
            provisional=piece.provisional,
            said_at=piece.conversation.latest,
            queued=piece.queued,
        )
        return await self.store.open(s, user_id, state, piece.prompt)

    async def _reflect(self, user_id: str, force: bool, planned: Plan | None) -> Outcome:
        """The reflection, under the user's reflection lock: the code-only steps of the cycle and, when there are
        new memories to look at, in the same transaction, the task that asks the calling model about them (they
        stay pending until it is answered)."""
        async with self.reflection.lock(user_id) as held:
            if not held:
                return Busy(LLM_NAME)
            plan = await self.reflection.plan(user_id, force, planned, LLM_NAME)
            if isinstance(plan, NotTriggered):
                return plan
            if not plan.memories:  # nothing for a model to look at: the code-only steps alone
                return await self.reflection.apply(plan, LLM_NAME)
            db = await self.database()
            async with db.sessions.begin() as s:
                cycle = await self.reflection.applier.apply(s, plan, NO_ANSWER, LLM_NAME, None, decay_now=False)
                # The task shows only the traits still live after the cycle's own passes (decay, expiry): a trait
                # they dissolved is no longer there to reinforce or reword (issue 42).
                live = {t.id for t in await trait_repo.active_traits(s, user_id)}
                plan.traits = [(alias, t) for alias, t in plan.traits if t.id in live]
                return await self._hand_out(s, cycle, plan, ReflectTask.of(plan), main_prompt(plan))

    async def answer(self, user_id: str, task_id: str, answer: Any) -> Outcome:
        """Apply the calling model's answer to one of this user's tasks (see the module docstring)."""
        task, state = await self.store.find(user_id, task_id, ReflectTask)
        parsed = await self._parsed(task, state, answer)
        applier = self.reflection.applier
        main = parsed if isinstance(parsed, MainAnswer) else None
        ready = await applier.ready(main, parsed if isinstance(parsed, ReviewAnswer) else None)
        async with self.reflection.lock(user_id) as held:
            if not held:
                return Busy(LLM_NAME)
            db = await self.database()
            # One transaction: the answer applied, this task closed, a follow-up review opened if the answer calls
            # for one — all of it or, should anything interrupt it, none of it.
            async with db.sessions.begin() as s:
                plan = await self._plan(s, task, state)
                plan.evidence += await _found(s, user_id, state, parsed)  # cited by id, found with recall
                if gone := gone_traits(state, plan, parsed) + gone_digests(state, plan, parsed):
                    raise InvalidInput(
                        "answer", "; ".join(gone) + "; nothing was applied: leave those out and call reflect again"
                    )
                if main is None:
                    reviewable = set(state.reviewable) if isinstance(state, ReviewTask) else set[uuid.UUID]()
                    applied = await applier.apply_review(s, plan, ready, reviewable, LLM_NAME)
                else:
                    applied = await applier.apply(s, plan, ready, LLM_NAME, None)
                # What the answer did (ids and counts: a stored row never holds a memory's words), before a
                # follow-up becomes the user's open task.
                await self.store.close(s, task, reflect_result(applied).model_dump(mode="json"))
                if main is None or not (cases := review_candidates(plan, main)):
                    return applied
                blocks = await self.reflection.planner.review_blocks(plan, cases)
                review = ReviewTask(**ReflectTask.of(plan).model_dump(), reviewable=[t.id for _, t, _ in cases])
                return await self._hand_out(s, applied, plan, review, prompts.review_prompt(blocks))

    async def extract(self, user_id: str, request: IngestRequest) -> IngestResult:
        """`ingest_conversation` on the host route: the user's own statements are stored now (the fallback,
        should no answer come); the task asks the calling model for a proper extraction, which replaces them
        when it is answered. The task keeps when the conversation ended: the told time of what the answer
        extracts without one."""
        conversation = await anyio.to_thread.run_sync(self.ingest.read, request)
        result = await self.ingest.ingest(user_id, conversation, None, LLM_NAME)
        state = ExtractTask(
            session_id=conversation.request.session_id,
            provisional=[uuid.UUID(i) for i in result.created],
            said_at=conversation.latest,
            told=list(conversation.told),  # an item of the answer names its message by number
        )
        db = await self.database()
        async with db.sessions.begin() as s:
            opened = await self.store.open(s, user_id, state, self.ingest.task_prompt(conversation))
        result.status, result.task_id, result.task = "needs_model", opened.id, opened.text
        return result

    async def answer_extraction(self, user_id: str, task_id: str, answer: Any) -> IngestResult:
        """Store the calling model's extraction exactly as a model's, in place of the provisional
        statements; an answer with a wrong type, kind or temporality is refused and nothing is applied."""
        task, state = await self.store.find(user_id, task_id, ExtractTask)
        try:
            extraction = await _parsed(Extraction, answer, ("memories",))
        except ValueError as exc:
            raise InvalidInput(
                "answer", f"{exc}; nothing was applied, fix it and call ingest_conversation again"
            ) from None
        _told_by_number(extraction, state.told)
        db = await self.database()
        now = self.clock()
        # Tasks opened before told times were kept have none: their conversation was told when answered.
        told = state.said_at or now
        # One transaction: the provisional statements go, the extraction comes, the task closes — all of it
        # or, should anything interrupt it (a crash, a kill, a refused item), none of it.
        async with db.sessions.begin() as s:
            if state.queued is not None:
                read = await self.imports.apply(s, user_id, state.queued, state.provisional, extraction, LLM_NAME, told)
                if read is None:
                    raise InvalidInput(
                        "task_id",
                        "its piece of the imported history was read meanwhile or forgotten; nothing was applied",
                    )
                result = read
            else:
                result = await self.ingest.store_in_place_of(
                    s, user_id, state.provisional, extraction, state.session_id, LLM_NAME, told
                )
            await self.store.close(s, task, result.model_dump(mode="json"))
            result.imports_waiting = (await self.imports.waiting(user_id, s)).pieces
            # A conversation of today's, extracted: the imported history's oldest piece follows (one a call).
            if state.queued is None and result.imports_waiting and (opened := await self._open_import(s, user_id)):
                result.status, result.task_id, result.task = "needs_model", opened.id, opened.text
        return result

    async def _plan(self, s: AsyncSession, task: HostTask, state: ReflectTask) -> Plan:
        """The plan the task showed, with the rows as they are now (a memory forgotten since is left out)."""
        ids = [*state.memories.values(), *state.evidence.values(), *state.traits.values(), *state.digests.values()]
        rows = {m.id: m for m in await repo.get_many(s, task.user_id, ids)}

        def shown(aliases: dict[str, uuid.UUID]) -> list[tuple[str, Any]]:
            return [(alias, rows[i]) for alias, i in aliases.items() if i in rows]

        return Plan(
            task.user_id,
            self.clock(),
            Trigger(True, state.trigger, state.value),
            shown(state.memories),
            shown(state.traits),
            evidence=shown(state.evidence),
            digests=shown(state.digests),
            mark=Mark(state.mark, state.mark_id),
            tz=self.reflection.rt.settings.tz,  # a digest's span is read in the user's zone
        )

    @staticmethod
    async def _parsed(task: HostTask, state: ReflectTask, answer: Any) -> MainAnswer | ReviewAnswer:
        """The answer in its task's schema, citing only what the task showed; refused, naming what is wrong,
        before anything is locked or written."""
        try:
            parsed = (
                await _parsed(MainAnswer, answer)
                if task.kind == "reflect"
                else await _parsed(ReviewAnswer, answer, ("decisions",))
            )
        except ValueError as exc:
            raise InvalidInput("answer", f"{exc}; nothing was applied, fix it and call reflect again") from None
        if problems := unknown_refs(state, parsed):
            raise InvalidInput(
                "answer",
                "; ".join(problems) + "; nothing was applied, cite only the ids in square brackets of the task",
            )
        return parsed
