"""Which reader a path needs, and the reader of each format: the one module that imports them all (they import
only `formats.py`, so that adding a format touches this registry and its reader, and no reader sees another)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

from engrain.reading.chats import chatgpt, claude, claude_code, notes
from engrain.reading.chats.formats import Chat, ExportError, Format, inside, json_items

READERS: dict[Format, Callable[[Path], Iterator[Chat]]] = {
    "chatgpt": chatgpt.read,
    "claude": claude.read,
    "claude-code": claude_code.read,
    "markdown": notes.read,
}


def first_item(path: Path) -> Any:
    """The first conversation of an export (None for an empty list): enough to tell the formats apart."""
    return next(iter(json_items(path)), None)


LOOKED_FOR = (
    "a ChatGPT or Claude export (.zip or conversations.json), Claude Code sessions (.jsonl) "
    "or a folder of Markdown/text notes (.md, .markdown, .txt)"
)


def detect(path: Path) -> Format:
    """Which export `path` is: a folder of .jsonl sessions is Claude Code's, a folder of notes is notes (see
    notes.py: /etc is not one); a conversations.json (alone or in a .zip) is ChatGPT's when its conversations
    have a `mapping`, Claude's when they have `chat_messages`."""
    if path.is_dir():
        if any(f.suffix.lower() == ".jsonl" for f in inside(path, hidden=False)[0]):
            return "claude-code"
        found = notes.survey(path)
        if not found.is_notes_folder:
            raise ExportError(
                str(path), f"holds no export and no notes: looked for {LOOKED_FOR}; found {found.described()}"
            )
        return "markdown"
    if path.suffix.lower() == ".jsonl":
        return "claude-code"
    if path.suffix.lower() in (".md", ".markdown", ".txt"):
        return "markdown"
    item = first_item(path)
    first = cast(dict[str, Any], item) if isinstance(item, dict) else {}
    if "mapping" in first:
        return "chatgpt"
    if "chat_messages" in first:
        return "claude"
    raise ExportError(str(path), "not a ChatGPT or Claude export (conversations with 'mapping' or 'chat_messages')")


def read(path: Path, fmt: Format | None = None) -> Iterator[Chat]:
    """The chats of the export at `path`, in the format given or detected."""
    if not (path.is_file() or path.is_dir()):
        raise ExportError(str(path), "is neither a file nor a folder")
    return READERS[fmt or detect(path)](path)
