"""The imported history a model has yet to read (issue 43): `engrain import-chats` stores the rules' statements
at once and queues each conversation in pieces (services/memories/importing.py); here a model reads them, one
piece at a time, oldest first, so that a later correction is read after what it corrects.

With a model of the server's own, the scheduler's digest reads a few pieces a run (`extract_waiting`). Without
one, the calling model does: `reflect` and an answered `ingest_conversation` task hand it the next piece as an
extraction task (services/traits/host_tasks.py), whose answer `apply` stores. Either way the extraction replaces
the piece's provisional statements in one transaction, and the piece keeps its row without its words.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

import anyio
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.errors import EngrainError
from engrain.providers.llm import Prompt
from engrain.reading import projects
from engrain.services.memories.extraction import Extraction
from engrain.services.memories.ingest import Conversation, ConversationIngest, IngestRequest, Message, QueuedPiece
from engrain.services.memories.results import IngestResult
from engrain.storage import chat_imports as queue_repo
from engrain.storage.chat_imports import Waiting
from engrain.storage.models import ChatImport
from engrain.text.quoting import quoted

if TYPE_CHECKING:
    from engrain.services.prompting.routes import Route
    from engrain.services.runtime import Runtime

log = logging.getLogger(__name__)

# Pieces the scheduler's digest reads with the server's model in one run: the queue drains over runs, and a
# run stays short.
PIECES_PER_RUN = 20


@dataclass(frozen=True)
class Next:
    """A waiting piece as a model is shown it."""

    queued: QueuedPiece
    provisional: list[uuid.UUID]  # the rules' statements its extraction replaces
    conversation: Conversation
    prompt: Prompt


class ImportQueue:
    """Receives the runtime and the ingestion its extractions are stored with."""

    def __init__(self, runtime: Runtime, ingest: ConversationIngest) -> None:
        self.rt, self.ingest = runtime, ingest

    async def waiting(self, user_id: str, session: AsyncSession | None = None) -> Waiting:
        async with (await self.rt.database()).transaction(session) as s:
            return await queue_repo.waiting(s, user_id)

    async def next(self, s: AsyncSession, user_id: str) -> Next | None:
        """The oldest waiting piece, ready to hand to a model; in the caller's transaction, a piece that no longer
        reads (a time the checks now refuse) is marked read on the way: its rules' statements stay."""
        while (row := await queue_repo.oldest(s, user_id)) is not None:
            try:
                return await self.shown(row)
            except EngrainError as exc:
                log.warning("queued piece %d of %s does not read (%s); its statements stay", row.piece, row.source, exc)
                await queue_repo.extracted(s, user_id, row.source, row.piece, self.rt.clock())
        return None

    async def shown(self, row: ChatImport) -> Next:
        """The piece as a conversation (each message at its time) and the extraction prompt that shows it whole:
        the model has not seen it. Reading it is CPU work: off the event loop."""
        request = IngestRequest(messages=[Message.model_validate(m) for m in row.messages], session_id=row.source)
        conversation = await anyio.to_thread.run_sync(self.ingest.read, request)
        base = self.ingest.prompt(conversation)
        first, last = (t.astimezone(self.rt.settings.tz).date().isoformat() for t in (row.first_at, row.last_at))
        span = first if first == last else f"{first} to {last}"
        head = (
            f"From the user's imported chat history: the conversation {quoted(row.title or row.source)}, "
            f"{span}" + (f" (part {row.piece + 1})" if row.piece else "") + ". The assistant's messages are shown "
            "in part, for what the user answered; keep what they said of it only where the user confirmed it."
        )
        prompt = Prompt(base.system, f"{head}\n\n{base.user}", max_tokens=base.max_tokens)
        return Next(QueuedPiece(source=row.source, piece=row.piece), list(row.provisional), conversation, prompt)

    async def apply(
        self,
        s: AsyncSession,
        user_id: str,
        queued: QueuedPiece,
        provisional: list[uuid.UUID],
        extraction: Extraction,
        llm_name: str,
        told: datetime,
    ) -> IngestResult | None:
        """A model's extraction of a piece, in the caller's transaction: the piece's provisional statements go,
        the extraction comes (each item through `remember`), the piece is marked read. None, with nothing
        written, when the piece is no longer waiting (read meanwhile, or its conversation forgotten)."""
        now = self.rt.clock()
        taken = await queue_repo.extracted(s, user_id, queued.source, queued.piece, now)
        if taken is None:
            return None
        # A coding session's piece (Claude Code's hooks) keeps its project: the model's reading is kept in the
        # project's namespace, but for what is about the user (reading/projects.py).
        scope = partial(projects.scope, project=taken.project) if taken.project is not None else None
        return await self.ingest.store_in_place_of(
            s, user_id, provisional, extraction, queued.source, llm_name, told, scope=scope
        )

    async def extract_waiting(self, route: Route, limit: int = PIECES_PER_RUN) -> dict[str, int]:
        """Read up to `limit` waiting pieces (the users with the oldest first) with the server's model. A piece the
        model fails on stays queued for the next run; one user's failure does not stop the others."""
        db = await self.rt.database()
        async with db.sessions() as s:
            users = await queue_repo.users_waiting(s, limit)
        stats = {"pieces_read": 0, "pieces_failed": 0, "memories": 0}
        for user_id in users:
            for _ in range(max(1, limit // len(users))):
                async with db.sessions.begin() as s:
                    piece = await self.next(s, user_id)
                if piece is None:
                    break
                extraction = await route.answer(piece.prompt, Extraction.lenient)
                try:
                    if extraction is None:
                        raise EngrainError("the model gave no extraction")
                    async with db.sessions.begin() as s:
                        result = await self.apply(
                            s,
                            user_id,
                            piece.queued,
                            piece.provisional,
                            extraction,
                            route.name,
                            piece.conversation.latest,
                        )
                except EngrainError as exc:  # nothing of it was written: the next run asks again
                    log.warning("queued piece %d of %s: %s", piece.queued.piece, piece.queued.source, exc)
                    stats["pieces_failed"] += 1
                    break
                if result is not None:
                    stats["pieces_read"] += 1
                    stats["memories"] += len(result.created)
        return stats
