"""Bringing in the history a user already has (issue 43): the chats of a ChatGPT or Claude export, Claude Code
sessions, a folder of notes (reading/chats), kept as dated memories of the user with no model.

What is kept is what `ingest_conversation` keeps on its rules route, message by message: the user's own
statements about themselves (first person, not a question, not a reply to the other speaker), each told at
its message's time, so that "next week" in a message of 2024-03-01 is that week. The assistant's words are
not the user's and are left out; so are code (fenced blocks) and pasted documents (of a long message, only
its first paragraph is read). Each memory records where it came from (`source`: the export's id for the
conversation; `metadata.conversation`: its title). Secrets are redacted on writing, as for any memory.
Duplicates collapse: exact repeats (within the import and of what is stored) and, within an import, the
same fact in other words (`reading/duplicates.same_fact` over texts with one `fact_key`: "my 2 cats" and
"my two cats"). Importing the same export twice adds nothing: every statement is a duplicate the second
time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from engrain.reading.chats import Chat
from engrain.reading.duplicates import fact_key, same_fact
from engrain.services.memories.ingest import Message, rule_statements
from engrain.services.memories.writing import MemoryWriter, RememberRequest
from engrain.storage import traits as trait_repo

_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
# A message longer than this (once its code is out) is a pasted document: only its first paragraph is read.
PASTED_CHARS = 2_000
EXAMPLES = 20
Folded = tuple[frozenset[str], str]  # a statement's fact key and the day it was said


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
    duplicates: int = 0  # statements already stored (by this import or before)
    chats: list[ChatCount] = field(default_factory=list[ChatCount])
    examples: list[str] = field(default_factory=list[str])


def readable(text: str) -> str:
    """The user's words of a message: no code blocks; of a pasted document, its first paragraph."""
    text = _FENCED.sub(" ", text).strip()
    if len(text) > PASTED_CHARS:
        text = text.split("\n\n", 1)[0][:PASTED_CHARS]
    return text


def statements(chat: Chat, since: datetime | None, fallback: datetime) -> list[RememberRequest]:
    """The memories a chat gives: the user's statements, each told at its message's time."""
    out: list[RememberRequest] = []
    for message in chat.messages:
        at = message.at or chat.at or fallback
        if message.role != "user" or (since is not None and at < since):
            continue
        for sentence, _ in rule_statements([Message(role="user", content=readable(message.text))]):
            if sentence.endswith(":"):  # "Here is my script:" introduces what was pasted; it says nothing
                continue
            meta = {"conversation": chat.title[:200]}
            out.append(RememberRequest(content=sentence, said_at=at.isoformat(), metadata=meta))
    return out


class ChatImporter:
    """Stores the statements of imported chats, one conversation a batch (services/memories/writing)."""

    def __init__(self, memories: MemoryWriter) -> None:
        self.memories = memories

    @staticmethod
    def _new(items: list[RememberRequest], seen: dict[Folded, list[str]]) -> tuple[list[RememberRequest], int]:
        """The items that state no fact an earlier item of the import stated in other words on the same day
        (said on two days, "I cooked dinner with Noor yesterday" is two evenings); how many were folded."""
        kept: list[RememberRequest] = []
        for item in items:
            key = (fact_key(item.content), (item.said_at or "")[:10])
            if any(same_fact(item.content, earlier) for earlier in seen.get(key, [])):
                continue
            seen.setdefault(key, []).append(item.content)
            kept.append(item)
        return kept, len(items) - len(kept)

    async def run(
        self,
        user_id: str,
        chats: Iterable[Chat],
        now: datetime,
        *,
        since: datetime | None = None,
        dry_run: bool = False,
        progress: Callable[[ChatCount], None] | None = None,
    ) -> ImportReport:
        report = ImportReport()
        seen: dict[Folded, list[str]] = {}
        for chat in chats:
            items, folded = self._new(statements(chat, since, now), seen)
            report.duplicates += folded
            users = sum(m.role == "user" for m in chat.messages)
            created = 0
            if items and not dry_run:
                results = await self.memories.remember_many(user_id, items, source=chat.source[:200])
                created = sum(r.status == "created" for r in results)
                report.duplicates += len(results) - created
            kept = len(items) if dry_run else created
            count = ChatCount(chat.source, chat.title, users, kept)
            report.conversations += 1
            report.messages += users
            report.kept += kept
            report.chats.append(count)
            report.examples += [i.content for i in items][: max(0, EXAMPLES - len(report.examples))]
            if progress is not None:
                progress(count)
        if not dry_run and report.kept:
            await self._settle(user_id, now)
        return report

    async def _settle(self, user_id: str, now: datetime) -> None:
        """Plans the history has outlived become history, on the user's clock (its last message): the
        profile after an import shows the marathon of 2023 as done, not as an overdue plan."""
        async with (await self.memories.rt.database()).transaction() as s:
            await trait_repo.expire_prospective(s, user_id, now)
