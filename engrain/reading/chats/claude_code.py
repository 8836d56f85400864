"""Claude Code session logs: one JSON-lines file per session under a project folder
(~/.claude/projects/<project>/<session>.jsonl). The user's own turns are the `user` lines whose message
is text they typed: not tool results, not the lines Claude Code writes itself (`isMeta`, command output
and command names in tags). The assistant's turns are left out: they are about the code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import Field, ValidationError

from engrain.reading.chats.formats import (
    PREFIX,
    Chat,
    ChatMessage,
    ExportError,
    Lenient,
    files_in,
    iso_time,
    lines_of,
)

_GENERATED = re.compile(r"^\s*<(?:command-name|command-message|command-args|local-command-stdout|system-reminder)")


class _Block(Lenient):
    type: str = ""
    text: str | None = None


class _Message(Lenient):
    content: str | list[_Block] = ""

    @property
    def typed(self) -> str:
        if isinstance(self.content, str):
            return self.content.strip()
        return "\n".join(b.text for b in self.content if b.type == "text" and b.text).strip()


class _Entry(Lenient):
    type: str = ""
    isMeta: bool = False
    timestamp: str | None = None
    message: _Message = Field(default_factory=_Message)
    summary: str | None = None  # a `summary` line: Claude Code's title for the session
    cwd: str | None = None  # the project's folder


def _session(path: Path) -> Chat:
    """One session, titled by Claude Code's summary of it, else its project's folder (the `cwd` of its lines, or
    the folder the file is in: an uploaded file's folder is no project)."""
    chat = Chat(f"{PREFIX['claude-code']}:{path.stem}", "", None)
    project = ""
    for number, line in lines_of(path):
        if not line.strip():
            continue
        try:
            entry = _Entry.model_validate_json(line)
        except ValidationError as exc:
            raise ExportError(f"{path} line {number}", f"not a session entry ({exc.errors()[0]['msg']})") from exc
        if entry.type == "summary" and entry.summary and not chat.title:
            chat.title = entry.summary.strip()[:200]
        project = project or (entry.cwd or "").rstrip("/").rsplit("/", 1)[-1]
        text = entry.message.typed
        if entry.type != "user" or entry.isMeta or not text or _GENERATED.match(text):
            continue
        at = iso_time(entry.timestamp)
        chat.at = chat.at or at
        chat.messages.append(ChatMessage("user", text, at))
    chat.title = chat.title or project or path.parent.name
    return chat


def read(path: Path) -> Iterator[Chat]:
    for file in files_in(path, (".jsonl",)):
        yield _session(file)
