"""A ChatGPT data export: `conversations.json` (alone or in the export's .zip), a list of conversations, each
a tree of messages (`mapping`: node → message, parent, children). Regenerated answers and edited prompts
are branches; the path the user kept runs from `current_node` up to the root. A message's text is its
`content.parts` that are strings (images and other assets are objects, left out); content types that are
not the user's or the assistant's words (custom instructions, tool output, browsing) are left out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field

from engrain.reading.chats.formats import PREFIX, Chat, ChatMessage, Lenient, conversations

_TEXT_TYPES = frozenset({"text", "multimodal_text", "code"})


class _Author(Lenient):
    role: str = ""


class _Content(Lenient):
    content_type: str = ""
    parts: list[Any] = Field(default_factory=list[Any])


class _Message(Lenient):
    author: _Author = Field(default_factory=_Author)
    create_time: float | None = None
    content: _Content = Field(default_factory=_Content)
    metadata: dict[str, Any] = Field(default_factory=dict[str, Any])

    @property
    def text(self) -> str:
        if self.content.content_type not in _TEXT_TYPES:
            return ""
        return "\n".join(p for p in self.content.parts if isinstance(p, str)).strip()


class _Node(Lenient):
    message: _Message | None = None
    parent: str | None = None
    children: list[str] = Field(default_factory=list[str])


class _Conversation(Lenient):
    title: str | None = None
    create_time: float | None = None
    mapping: dict[str, _Node]
    current_node: str | None = None
    conversation_id: str | None = None
    id: str | None = None

    def kept(self) -> list[_Node]:
        """The nodes from the root to `current_node` (the branch the user kept), else the first-child path."""
        path: list[_Node] = []
        if self.current_node in self.mapping:
            seen: set[str] = set()
            at: str | None = self.current_node
            while at is not None and at in self.mapping and at not in seen:
                seen.add(at)
                path.append(self.mapping[at])
                at = self.mapping[at].parent
            return path[::-1]
        node = next((n for n in self.mapping.values() if n.parent is None), None)
        while node is not None:
            path.append(node)
            node = self.mapping.get(node.children[0]) if node.children else None
        return path


def _time(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if value is not None and value > 0 else None


def read(path: Path) -> Iterator[Chat]:
    for i, c in conversations(path, _Conversation):
        chat = Chat(
            f"{PREFIX['chatgpt']}:{c.conversation_id or c.id or i}", c.title or "Untitled", _time(c.create_time)
        )
        for node in c.kept():
            m = node.message
            if m is None or m.author.role not in ("user", "assistant"):
                continue
            if m.metadata.get("is_visually_hidden_from_conversation") or not m.text:
                continue
            role = "user" if m.author.role == "user" else "assistant"
            chat.messages.append(ChatMessage(role, m.text, _time(m.create_time) or chat.at))
        yield chat
