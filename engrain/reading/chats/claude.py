"""A Claude data export: `conversations.json` (alone or in the export's .zip), a list of conversations with
`chat_messages` (`sender` human or assistant, `created_at`, `text` or `content` blocks). Attachments and
files are the user's documents, not their words: left out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from pydantic import Field

from engrain.reading.chats.formats import PREFIX, Chat, ChatMessage, Lenient, conversations, iso_time


class _Block(Lenient):
    type: str = ""
    text: str | None = None


class _Message(Lenient):
    sender: str = ""
    text: str | None = None
    content: list[_Block] = Field(default_factory=list[_Block])
    created_at: str | None = None

    @property
    def words(self) -> str:
        blocks = [b.text for b in self.content if b.type == "text" and b.text]
        return ("\n".join(blocks) if blocks else self.text or "").strip()


class _Conversation(Lenient):
    uuid: str | None = None
    name: str | None = None
    created_at: str | None = None
    chat_messages: list[_Message]


def read(path: Path) -> Iterator[Chat]:
    for i, c in conversations(path, _Conversation):
        chat = Chat(f"{PREFIX['claude']}:{c.uuid or i}", c.name or "Untitled", iso_time(c.created_at))
        for m in c.chat_messages:
            if m.sender in ("human", "assistant") and m.words:
                at: datetime | None = iso_time(m.created_at) or chat.at
                chat.messages.append(ChatMessage("user" if m.sender == "human" else "assistant", m.words, at))
        yield chat
