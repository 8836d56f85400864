"""The user's imported history by where it came from (issue 43, the page's Import screen): each export's
conversations with their memories and what still waits for a model, one conversation's memories, and forgetting a
conversation or everything from one export — its memories erased as `forget` erases one, its queue rows dropped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engrain.errors import InvalidInput, NotFound
from engrain.reading import inputs
from engrain.reading.chats import FORMATS, LABEL, PREFIX, Format, format_of, named
from engrain.storage import chat_imports as queue_repo
from engrain.storage import memories as repo
from engrain.storage.chat_imports import ImportedSource
from engrain.storage.models import Memory

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

SHOWN_MEMORIES = 200  # of one conversation, in told order


@dataclass
class SourceGroup:
    """What came from one kind of export (ChatGPT, Claude, Claude Code, notes)."""

    format: Format
    label: str
    conversations: list[ImportedSource] = field(default_factory=list[ImportedSource])

    @property
    def memories(self) -> int:
        return sum(c.memories for c in self.conversations)

    @property
    def waiting(self) -> int:
        return sum(c.waiting for c in self.conversations)


@dataclass(frozen=True)
class Forgotten:
    memories: int  # erased (with the memories they had replaced)
    traits_dissolved: int  # left without supporting evidence


class ImportedHistory:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    async def groups(self, user_id: str) -> list[SourceGroup]:
        """The user's imported conversations, by export, newest first (exports with none left out)."""
        async with (await self.rt.database()).sessions() as s:
            found = await queue_repo.sources(s, user_id, list(PREFIX.values()))
        groups = {fmt: SourceGroup(fmt, LABEL[fmt]) for fmt in FORMATS}
        for source in found:
            if (fmt := format_of(source.source)) is not None:
                groups[fmt].conversations.append(source)
        return [g for g in groups.values() if g.conversations]

    async def memories(self, user_id: str, source: str) -> list[Memory]:
        """One imported conversation's live memories (NotFound for a source the user has none of)."""
        source = inputs.text_field("source", source, 200)
        async with (await self.rt.database()).sessions() as s:
            rows = await repo.of_source(s, user_id, source, SHOWN_MEMORIES)
        if not rows and format_of(source) is None:
            raise NotFound("source", source, "imported conversation")
        return rows

    async def forget(self, user_id: str, *, source: str | None = None, fmt: str | None = None) -> Forgotten:
        """Forget one imported conversation (`source`) or everything imported from one kind of export (`fmt`):
        its memories for good (history and vectors too, as `forget`), and the record of what was read, so that
        importing the export again brings it back. One transaction."""
        if (source is None) == (fmt is None):
            raise InvalidInput("source", "give a conversation's source or an export's format, not both")
        sources = [inputs.text_field("source", source, 200)] if source is not None else []
        if sources and format_of(sources[0]) is None:
            raise InvalidInput("source", f"{sources[0][:60]!r} is not an imported conversation")
        prefix = None
        if fmt is not None:
            if (kind := named(fmt)) is None:
                raise InvalidInput("format", f"{fmt[:40]!r} is none of {', '.join(FORMATS)}")
            prefix = PREFIX[kind]
        now = self.rt.clock()
        async with (await self.rt.database()).transaction() as s:
            erased = await repo.erase_sources(s, user_id, sources, prefix, now, "user_request")
            await queue_repo.forget(s, user_id, sources, prefix)
        return Forgotten(erased["deleted"], len(erased["traits_dissolved"]))
