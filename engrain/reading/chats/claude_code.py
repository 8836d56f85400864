"""Claude Code session logs: one JSON-lines file per session under a project folder
(~/.claude/projects/<project>/<session>.jsonl). The user's own turns are the `user` lines whose message
is text they typed: not tool results, not the lines Claude Code writes itself (`isMeta`, command output
and command names in tags). The assistant's turns are left out: they are about the code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
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
    lines_from,
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


@dataclass(frozen=True)
class Reading:
    """A session's file read up to `offset` (bytes, whole lines: `lines` of them): what it said so far, and where a
    later reading goes on from — a session's hooks read its transcript after every prompt, and it only grows."""

    chat: Chat
    offset: int = 0
    lines: int = 0
    title: str = ""  # Claude Code's summary of the session, once a line gave it
    project: str = ""  # the folder of the first line that names one

    def session(self, path: Path) -> Chat:
        """The session as a chat, titled by Claude Code's summary of it, else its project's folder (the `cwd` of
        its lines, or the folder the file is in: an uploaded file's folder is no project)."""
        return replace(self.chat, title=self.title or self.project or path.parent.name)


def read_on(path: Path, before: Reading | None = None, *, growing: bool = True) -> Reading:
    """The session at `path` read from where `before` stopped (None: from its start). `growing`: the file is being
    written (a session's hooks read it), so a last line without its newline is Claude Code's still being written,
    read the next time; an import reads a file whole."""
    if before is None:
        before = Reading(Chat(f"{PREFIX['claude-code']}:{path.stem}", "", None))
    title, project = before.title, before.project
    at, messages = before.chat.at, list(before.chat.messages)
    offset, lines = before.offset, before.lines
    for number, end, line in lines_from(path, before.offset, before.lines, whole=growing):
        offset, lines = end, number
        if not line.strip():
            continue
        try:
            entry = _Entry.model_validate_json(line)
        except ValidationError as exc:
            raise ExportError(f"{path} line {number}", f"not a session entry ({exc.errors()[0]['msg']})") from exc
        if entry.type == "summary" and entry.summary and not title:
            title = entry.summary.strip()[:200]
        project = project or (entry.cwd or "").rstrip("/").rsplit("/", 1)[-1]
        text = entry.message.typed
        if entry.type != "user" or entry.isMeta or not text or _GENERATED.match(text):
            continue
        said = iso_time(entry.timestamp)
        at = at or said
        messages.append(ChatMessage("user", text, said))
    return Reading(replace(before.chat, at=at, messages=messages), offset, lines, title, project)


def read(path: Path) -> Iterator[Chat]:
    for file in files_in(path, (".jsonl",)):
        yield read_on(file, growing=False).session(file)
