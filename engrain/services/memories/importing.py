"""Bringing in the history a user already has (issue 43): the chats of a ChatGPT or Claude export, Claude Code
sessions, a folder of notes (reading/chats), kept as dated memories of the user at once, with no model, and
queued for a model to read properly later.

What is kept at once is what `ingest_conversation` keeps on its rules route, message by message: the user's
own statements about themselves (first person, not a question, not a reply to the other speaker), each told at
its message's time, so that "next week" in a message of 2024-03-01 is that week; code (fenced blocks) and
pasted documents (of a long message, only its first paragraph is read) are left out. The assistant's words are
not the user's: each of its messages is kept as a reply (reading/speakers.py; its words without code, to
REPLY_CHARS), so that "what did ChatGPT recommend for my back?" finds it, while it never counts as the user's
fact, plan or preference, and a model's reading of the piece does not replace it. Each memory records where it
came from (`source`: the export's id for the
conversation; `metadata.conversation`: its title). Secrets are redacted on writing, as for any memory.
Duplicates collapse: exact repeats (of what is stored, by this import or before) and the same fact in other
words told the same day (`reading/duplicates.same_fact` over texts with one `fact_key`: "my 2 cats" and "my
two cats"), within the import and against what earlier imports stored.

Each conversation is also queued (`storage/chat_imports`), in pieces of at most PIECE_CHARS, for a model's
extraction (services/memories/import_queue.py), which replaces the piece's statements: the assistant's words
are shown there, trimmed, because what the user confirmed of them is theirs. A piece's statements and its
queue row are written in one transaction, and the row records how many of the conversation's messages are
read, so that importing the same export again reads only what is new (nothing, for an unchanged export), and
an import that was interrupted goes on where it stopped.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import partial

import anyio
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.reading import projects
from engrain.reading.chats import Chat, ChatMessage
from engrain.reading.duplicates import fact_key, same_fact
from engrain.reading.projects import Scope
from engrain.reading.redaction import redact
from engrain.services.memories.ingest import Message, rule_statements
from engrain.services.memories.requests import RememberRequest
from engrain.services.memories.writing import MemoryWriter
from engrain.storage import chat_imports as queue_repo
from engrain.storage import memories as repo
from engrain.storage import traits as trait_repo
from engrain.storage.models import ChatImport

_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
# A message longer than this (once its code is out) is a pasted document: only its first paragraph is read.
PASTED_CHARS = 2_000
# An assistant's reply kept: its words without code, to this length (what it recommended comes first).
REPLY_CHARS = 2_000
# An assistant's message is context for what the user said: its start and its end (where it asks) are shown.
CONTEXT_CHARS = 400
# A queued piece: at most this many characters of messages (about 3,000 tokens) and this many messages.
PIECE_CHARS = 12_000
PIECE_MESSAGES = 100
EXAMPLES = 20
Folded = tuple[frozenset[str], date]  # a statement's fact key and the day (UTC) it was said


@dataclass
class Seen:
    """The statements an import has met, by fact key and day: its own and those stored on the days it read."""

    texts: dict[Folded, list[str]] = field(default_factory=dict[Folded, list[str]])
    days: set[date] = field(default_factory=set[date])  # the days whose stored memories are in `texts`


@dataclass
class ChatCount:
    source: str
    title: str
    messages: int
    kept: int


@dataclass
class ImportReport:
    """What an import read and kept (or, in a dry run, would keep)."""

    conversations: int = 0
    messages: int = 0  # the user's messages read
    kept: int = 0  # memories stored (a dry run: statements that would be)
    replies: int = 0  # the assistant's replies kept (a dry run: that would be)
    duplicates: int = 0  # statements already stored (by this import or before)
    queued: int = 0  # pieces queued for a model's extraction (a dry run: that would be)
    unchanged: int = 0  # conversations an earlier import read whole
    chats: list[ChatCount] = field(default_factory=list[ChatCount])
    examples: list[str] = field(default_factory=list[str])


def readable(text: str) -> str:
    """The user's words of a message: no code blocks; of a pasted document, its first paragraph."""
    text = _FENCED.sub(" ", text).strip()
    if len(text) > PASTED_CHARS:
        text = text.split("\n\n", 1)[0][:PASTED_CHARS]
    return text


def context(text: str) -> str:
    """An assistant's message as the extraction shows it: readable, and of a long one its start and its end."""
    text = readable(text)
    if len(text) > 2 * CONTEXT_CHARS:
        text = f"{text[:CONTEXT_CHARS].rstrip()} … {text[-CONTEXT_CHARS:].lstrip()}"
    return text


def replies(chat: Chat, since: datetime | None, fallback: datetime) -> list[RememberRequest]:
    """The assistant's messages of a chat, each kept as a reply told at its time."""
    meta = {"conversation": chat.title[:200]}
    out: list[RememberRequest] = []
    for message in chat.messages:
        at = message.at or chat.at or fallback
        text = _FENCED.sub(" ", message.text).strip()[:REPLY_CHARS]
        if message.role == "assistant" and text and (since is None or at >= since):
            out.append(RememberRequest(content=text, role="assistant", said_at=at.isoformat(), metadata=meta))
    return out


def statements(
    chat: Chat, since: datetime | None, fallback: datetime, scope: Scope | None = None
) -> list[RememberRequest]:
    """The memories a chat gives: the user's statements, each told at its message's time, each in the namespace
    `scope` gives it (None: the default one)."""
    out: list[RememberRequest] = []
    for message in chat.messages:
        at = message.at or chat.at or fallback
        if message.role != "user" or (since is not None and at < since):
            continue
        for sentence, _ in rule_statements([Message(role="user", content=readable(message.text))]):
            if sentence.endswith(":"):  # "Here is my script:" introduces what was pasted; it says nothing
                continue
            meta = {"conversation": chat.title[:200]}
            namespace = scope(sentence) if scope is not None else None
            out.append(RememberRequest(content=sentence, said_at=at.isoformat(), metadata=meta, namespace=namespace))
    return out


@dataclass(frozen=True)
class Piece:
    """Consecutive messages of a conversation, queued as one extraction, each as the extraction shows it (the
    user's readable, the assistant's as context); `upto`: the index after its last in the conversation."""

    chat: Chat
    upto: int


def pieces(chat: Chat, start: int, since: datetime | None, fallback: datetime) -> list[Piece]:
    """The conversation's messages from `start` (and not before `since`), cut into pieces of at most PIECE_CHARS
    and PIECE_MESSAGES."""
    out: list[Piece] = []
    taken: list[ChatMessage] = []
    size = 0
    for i, message in enumerate(chat.messages[start:], start):
        if since is not None and (message.at or chat.at or fallback) < since:
            continue
        text = readable(message.text) if message.role == "user" else context(message.text)
        if taken and (size + len(text) > PIECE_CHARS or len(taken) >= PIECE_MESSAGES):
            out.append(Piece(Chat(chat.source, chat.title, chat.at, taken), i))
            taken, size = [], 0
        taken.append(ChatMessage(message.role, text, message.at))
        size += len(text)
    if taken:
        out.append(Piece(Chat(chat.source, chat.title, chat.at, taken), len(chat.messages)))
    return out


def _day(said_at: str) -> date:
    return datetime.fromisoformat(said_at).astimezone(UTC).date()


class ChatImporter:
    """Stores the statements of imported chats and queues them for a model, one piece a transaction."""

    def __init__(self, memories: MemoryWriter) -> None:
        self.memories = memories
        self.rt = memories.rt

    @staticmethod
    def _new(items: list[RememberRequest], seen: Seen) -> tuple[list[RememberRequest], int]:
        """The items that state no fact an earlier item (or a stored memory) stated in other words on the same
        day (said on two days, "I cooked dinner with Noor yesterday" is two evenings); how many were folded."""
        kept: list[RememberRequest] = []
        for item in items:
            key = (fact_key(item.content), _day(item.said_at or ""))
            if any(same_fact(item.content, earlier) for earlier in seen.texts.get(key, [])):
                continue
            seen.texts.setdefault(key, []).append(item.content)
            kept.append(item)
        return kept, len(items) - len(kept)

    async def _stored_on(self, user_id: str, items: list[RememberRequest], seen: Seen) -> None:
        """Add to `seen` what is stored on the days these items were said that `seen` has not loaded yet (an
        earlier import of another export, the user's own `remember`): the near-duplicates across imports."""
        days = sorted({_day(i.said_at or "") for i in items} - seen.days)
        if not days:
            return
        seen.days.update(days)
        start = datetime.combine(days[0], datetime.min.time(), UTC)
        end = datetime.combine(days[-1], datetime.min.time(), UTC) + timedelta(days=1)
        async with (await self.rt.database()).sessions() as s:
            stored = await repo.told_between(s, user_id, start, end)
        for content, told in stored:
            if (day := told.astimezone(UTC).date()) in days:
                seen.texts.setdefault((fact_key(content), day), []).append(content)

    def _queued(self, user_id: str, piece: Piece, number: int, now: datetime, project: str | None) -> ChatImport | None:
        """The piece's queue row (its messages as the extraction shows them, secrets replaced), or None when it
        has no words of the user's."""
        chat = piece.chat
        shown: list[dict[str, str]] = []
        for m in chat.messages:
            if m.text:
                said = (m.at or chat.at or now).isoformat()
                shown.append({"role": m.role, "content": redact(m.text, self.rt.settings.redact).text, "said_at": said})
        if not any(m["role"] == "user" for m in shown):
            return None
        times = [datetime.fromisoformat(m["said_at"]) for m in shown]
        return ChatImport(
            user_id=user_id,
            source=chat.source[:200],
            piece=number,
            title=chat.title[:200],
            messages=shown,
            provisional=[],
            upto=piece.upto,
            first_at=min(times),
            last_at=max(times),
            queued_at=now,
            extracted_at=None,
            project=project,
        )

    async def run(
        self,
        user_id: str,
        chats: Iterable[Chat],
        now: datetime,
        *,
        since: datetime | None = None,
        dry_run: bool = False,
        queue: bool = True,
        keep_replies: bool = True,
        progress: Callable[[ChatCount], None] | None = None,
        project: str | None = None,
    ) -> ImportReport:
        """Import `chats` for `user_id` (`queue` False: the rules' statements only, nothing for a model;
        `keep_replies` False: none of the assistant's words, an import many times faster since replies are most of
        what is embedded; `project`: a coding session's project namespace, where what is not about the user is
        kept, the pieces queued with it; None: the default namespace)."""
        report = ImportReport()
        seen = Seen()
        chats = list(chats)
        async with (await self.rt.database()).sessions() as s:  # what earlier imports read: one statement
            covered = await queue_repo.covered(s, user_id, [chat.source[:200] for chat in chats])
        for chat in chats:
            done = covered.get(chat.source[:200])
            start, number = (done.upto, done.next) if done is not None else (0, 0)
            count = ChatCount(chat.source, chat.title, 0, 0)
            if done is not None and start >= len(chat.messages):
                report.unchanged += 1
            # Reading the messages (sentences, dates, secrets) is CPU work: off the event loop, which the page's
            # import shares with every user's calls.
            read = await anyio.to_thread.run_sync(self._read, user_id, chat, start, number, since, now, queue, project)
            for piece, items, row in read:
                await self._stored_on(user_id, items, seen)
                items, folded = self._new(items, seen)
                report.duplicates += folded
                said = replies(piece.chat, since, now) if keep_replies else []
                report.replies += len(said) if dry_run else await self._store_replies(user_id, chat.source, said)
                created = len(items) if dry_run else await self._store(user_id, chat.source, items, row)
                report.duplicates += len(items) - created
                report.queued += row is not None
                count.messages += sum(m.role == "user" for m in piece.chat.messages)
                count.kept += created
                report.examples += [i.content for i in items][: max(0, EXAMPLES - len(report.examples))]
            report.conversations += 1
            report.messages += count.messages
            report.kept += count.kept
            report.chats.append(count)
            if progress is not None:
                progress(count)
        if not dry_run and report.kept:
            await self._settle(user_id, now)
        return report

    def _read(
        self,
        user_id: str,
        chat: Chat,
        start: int,
        number: int,
        since: datetime | None,
        now: datetime,
        queue: bool,
        project: str | None,
    ) -> list[tuple[Piece, list[RememberRequest], ChatImport | None]]:
        """The conversation's unread pieces, each with its statements and its queue row (None: `queue` False, or
        no words of the user's)."""
        scope = partial(projects.scope, project=project) if project is not None else None
        out: list[tuple[Piece, list[RememberRequest], ChatImport | None]] = []
        for n, piece in enumerate(pieces(chat, start, since, now), number):
            row = self._queued(user_id, piece, n, now, project) if queue else None
            out.append((piece, statements(piece.chat, since, now, scope), row))
        return out

    async def _store(self, user_id: str, source: str, items: list[RememberRequest], row: ChatImport | None) -> int:
        """A piece's statements and its queue row (with the statements it created, which its extraction replaces),
        in one transaction; how many memories it created."""

        async def then(s: AsyncSession, created: list[uuid.UUID]) -> None:
            if row is not None:
                row.provisional = created
                await queue_repo.enqueue(s, row)

        if not items:
            if row is not None:
                async with (await self.rt.database()).transaction() as s:
                    await then(s, [])
            return 0
        results = await self.memories.remember_many(user_id, items, source=source[:200], then=then)
        return sum(r.status == "created" for r in results)

    async def _store_replies(self, user_id: str, source: str, said: list[RememberRequest]) -> int:
        """The assistant's replies of a piece, apart from its statements: a model's reading of the piece replaces
        those, never these. How many were new."""
        if not said:
            return 0
        results = await self.memories.remember_many(user_id, said, source=source[:200])
        return sum(r.status == "created" for r in results)

    async def _settle(self, user_id: str, now: datetime) -> None:
        """Plans the history has outlived become history, on the user's clock (its last message): the
        profile after an import shows the marathon of 2023 as done, not as an overdue plan."""
        async with (await self.rt.database()).transaction() as s:
            await trait_repo.expire_prospective(s, user_id, now)
