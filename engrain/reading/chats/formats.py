"""The shapes every reader yields, and which reader a path needs."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, ValidationError

Format = Literal["chatgpt", "claude", "claude-code", "markdown"]
FORMATS: tuple[Format, ...] = ("chatgpt", "claude", "claude-code", "markdown")
# What a format's sources start with ("chatgpt:<id>", "notes:<file>"), and its name for people.
PREFIX: dict[Format, str] = {
    "chatgpt": "chatgpt",
    "claude": "claude",
    "claude-code": "claude-code",
    "markdown": "notes",
}
LABEL: dict[Format, str] = {"chatgpt": "ChatGPT", "claude": "Claude", "claude-code": "Claude Code", "markdown": "Notes"}


def named(value: str) -> Format | None:
    """The format a user named (a form's or an option's value), if it is one."""
    return next((fmt for fmt in FORMATS if fmt == value), None)


def format_of(source: str) -> Format | None:
    """The format an imported memory's source names, if it is one."""
    head = source.split(":", 1)[0]
    return next((fmt for fmt, prefix in PREFIX.items() if prefix == head and ":" in source), None)


class ExportError(ValueError):
    """A file that is not the export it should be: names the file, the entry and what was expected."""

    def __init__(self, where: str, expected: str) -> None:
        super().__init__(f"{where}: {expected}")
        self.where = where


class Lenient(BaseModel):
    """An export's JSON object: what engrain does not read is ignored (exports grow fields every year)."""

    model_config = ConfigDict(extra="ignore")


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["user", "assistant"]
    text: str
    at: datetime | None  # when it was written; None: the conversation's time


@dataclass
class Chat:
    """One conversation (or one note) of an export."""

    source: str  # the export's name for it, unique within the format: "chatgpt:<id>", "notes:<file>"
    title: str
    at: datetime | None  # when it started
    messages: list[ChatMessage] = field(default_factory=list[ChatMessage])


def load_json(path: Path, member: str = "conversations.json") -> Any:
    """The JSON of an export file, or of `member` inside a .zip export."""
    try:
        if path.suffix.lower() == ".zip":
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == member]
                if not names:
                    raise ExportError(str(path), f"no {member} inside: not a data export of this kind")
                with archive.open(names[0]) as handle:
                    return json.load(handle)
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except zipfile.BadZipFile as exc:
        raise ExportError(str(path), f"not a readable .zip ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise ExportError(f"{path} line {exc.lineno}", f"not valid JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise ExportError(str(path), "not UTF-8 text") from exc


M = TypeVar("M", bound=BaseModel)


def conversations(path: Path, model: type[M]) -> Iterator[tuple[int, M]]:
    """The conversations of an export's conversations.json, each validated as `model`; one that is not
    names its number and what is wrong."""
    data = load_json(path)
    if not isinstance(data, list):
        raise ExportError(str(path), "expected a list of conversations")
    for i, item in enumerate(cast(list[Any], data)):
        try:
            yield i, model.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the conversation"
            raise ExportError(f"{path} conversation {i}", f"{where}: {first['msg']}") from exc


def iso_time(value: str | None) -> datetime | None:
    """An ISO time as exports write it ("2024-03-01T10:00:00.000Z"); None when absent or unreadable."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def detect(path: Path) -> Format:
    """Which export `path` is: a folder of .jsonl sessions is Claude Code's, another folder is notes; a
    conversations.json (alone or in a .zip) is ChatGPT's when its conversations have a `mapping`, Claude's
    when they have `chat_messages`."""
    if path.is_dir():
        return "claude-code" if any(path.rglob("*.jsonl")) else "markdown"
    if path.suffix.lower() == ".jsonl":
        return "claude-code"
    if path.suffix.lower() in (".md", ".markdown", ".txt"):
        return "markdown"
    data = load_json(path)
    listed = cast(list[Any], data) if isinstance(data, list) else []
    first = cast(dict[str, Any], listed[0]) if listed and isinstance(listed[0], dict) else {}
    if "mapping" in first:
        return "chatgpt"
    if "chat_messages" in first:
        return "claude"
    raise ExportError(str(path), "not a ChatGPT or Claude export (conversations with 'mapping' or 'chat_messages')")


def read(path: Path, fmt: Format | None = None) -> Iterator[Chat]:
    """The chats of the export at `path`, in the format given or detected."""
    from engrain.reading.chats import chatgpt, claude, claude_code, notes

    kind = fmt or detect(path)
    readers = {"chatgpt": chatgpt.read, "claude": claude.read, "claude-code": claude_code.read, "markdown": notes.read}
    return readers[kind](path)
