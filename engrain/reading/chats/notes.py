"""A folder of Markdown or text notes (or one note): each file is one source, the user's own words, dated by
its front matter (`date:`) or else by the file's modification time."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from engrain.reading.chats.formats import PREFIX, Chat, ChatMessage, files_in, text_of

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)
_DATE = re.compile(r"^(?:date|created)\s*:\s*['\"]?([0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.+-Z]+)?)", re.M | re.I)
_TITLE = re.compile(r"^title\s*:\s*['\"]?(.+?)['\"]?\s*$", re.M | re.I)
SUFFIXES = (".md", ".markdown", ".txt")


def _note(path: Path, root: Path) -> Chat:
    text = text_of(path)
    at = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    title = path.stem
    if front := _FRONT_MATTER.match(text):
        if date := _DATE.search(front.group(1)):
            try:
                parsed = datetime.fromisoformat(date.group(1).replace("Z", "+00:00"))
                at = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
            except ValueError:
                pass
        if named := _TITLE.search(front.group(1)):
            title = named.group(1)
        text = text[front.end() :]
    name = str(path.relative_to(root)) if path != root else path.name
    return Chat(
        f"{PREFIX['markdown']}:{name}", title, at, [ChatMessage("user", text.strip(), at)] if text.strip() else []
    )


def read(path: Path) -> Iterator[Chat]:
    for file in files_in(path, SUFFIXES):
        yield _note(file, path)
