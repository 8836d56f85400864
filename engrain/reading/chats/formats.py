"""What every reader shares: the formats' names, the shapes a reader yields, and the careful reading of an
untrusted export (streams, nesting, sizes, links). Which reader a path needs is `readers.py`, which imports
the readers; a reader imports only this."""

from __future__ import annotations

import logging
import os
import zipfile
import zlib
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, ValidationError

log = logging.getLogger(__name__)
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


# An export is untrusted input (issue 50): it is read as a stream, a conversation at a time, so that its size
# never sits in memory whole; nesting past MAX_DEPTH (no export nests past a dozen; a file of brackets is a
# recursion bomb) and a .zip member that inflates past MAX_INFLATION times its packed size once it is larger than
# INFLATION_FLOOR (JSON packs about 5 to 10 times; a zip bomb thousands of times) are refused by name.
MAX_DEPTH = 64
MAX_INFLATION = 100
INFLATION_FLOOR = 64 * 1024**2


@contextmanager
def export_stream(path: Path, member: str = "conversations.json") -> Generator[BinaryIO]:
    """The bytes of an export file, or of `member` inside a .zip export (its declared size checked before a
    byte is inflated: zipfile stops at it, and a member that lies about it fails its CRC)."""
    if path.suffix.lower() != ".zip":
        with path.open("rb") as handle:
            yield handle
        return
    try:
        with zipfile.ZipFile(path) as archive:
            found = [i for i in archive.infolist() if i.filename.rsplit("/", 1)[-1] == member and not i.is_dir()]
            if not found:
                raise ExportError(str(path), f"no {member} inside: not a data export of this kind")
            info = found[0]
            if info.file_size > INFLATION_FLOOR and info.file_size > MAX_INFLATION * max(info.compress_size, 1):
                raise ExportError(
                    f"{path} entry {info.filename}",
                    f"inflates to {info.file_size:,} bytes from {info.compress_size:,}: not an export (a zip bomb?)",
                )
            with archive.open(info) as handle:
                yield cast(BinaryIO, handle)
    except zipfile.BadZipFile as exc:
        raise ExportError(str(path), f"not a readable .zip ({exc})") from exc


def _json_error(where: str, exc: Exception) -> ExportError:
    """The first line of the parser's complaint (the rest quotes the file)."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if "UTF8" in first or "UTF-8" in first:
        return ExportError(where, "not UTF-8 text")
    return ExportError(where, f"not valid JSON ({first[:120]})")


def json_items(path: Path, member: str = "conversations.json") -> Iterator[Any]:
    """The elements of the JSON list an export file (or its .zip's `member`) holds, one at a time."""
    import ijson

    where = str(path)
    with export_stream(path, member) as handle:
        events = ijson.basic_parse(handle, use_float=True)
        try:
            first = next(events, None)
            if first is None or first[0] != "start_array":
                raise ExportError(where, "expected a list of conversations")
            yield from _elements(events, where)
        except ijson.JSONError as exc:
            raise _json_error(where, exc) from None
        except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
            raise ExportError(where, f"not a readable .zip ({exc})") from None


_OPEN = frozenset({"start_map", "start_array"})
_CLOSE = frozenset({"end_map", "end_array"})


def _elements(events: Iterator[tuple[str, Any]], where: str) -> Iterator[Any]:
    """Build each element of the list whose opening bracket was read, counting the depth as it goes."""
    from ijson.common import ObjectBuilder

    depth, builder, index = 1, None, 0
    for event, value in events:
        if event in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise ExportError(f"{where} conversation {index}", f"nested more than {MAX_DEPTH} deep: not an export")
        elif event in _CLOSE:
            depth -= 1
            if depth == 0:  # the list's end: what follows must be nothing (the parser says so if not)
                for _ in events:
                    pass
                return
        if builder is None and depth == 1:  # a scalar element
            yield value
            index += 1
            continue
        builder = builder or ObjectBuilder()
        builder.event(event, value)
        if depth == 1:
            yield builder.value
            builder, index = None, index + 1
    raise ExportError(where, "the list of conversations is cut off")


MAX_LINE = 64 * 1024**2  # a Claude Code session's line: its longest, a tool's output, is a few MB
MAX_NOTE = 16 * 1024**2  # a note: a book is about 1 MB


def files_in(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The regular files under `root` (or `root` itself) whose names end in `suffixes`, in order. A symbolic
    link inside the folder is not followed (an export's folder may hold one to a private file elsewhere: it is
    left out, and the log names it), nor is anything that is not a file (a pipe would block the read for ever)."""
    files, links = inside(root)
    name_links(root, links)
    return [f for f in files if f.suffix.lower() in suffixes]


def name_links(root: Path, links: list[Path]) -> None:
    """Say in the log which symbolic links a folder's import did not follow."""
    if links:
        shown = ", ".join(str(link.relative_to(root)) for link in links[:10]) + (", …" if len(links) > 10 else "")
        log.warning(
            "%s: %d symbolic links not followed (only what is inside the folder is read): %s", root, len(links), shown
        )


def inside(root: Path, *, hidden: bool = True) -> tuple[list[Path], list[Path]]:
    """The regular files under `root`, and the symbolic links there, each sorted. `hidden=False`: hidden files
    and folders (`.git`, `.obsidian`, a home's `.cache`) are neither listed nor entered."""
    if root.is_file():
        return [root], []
    files: list[Path] = []
    links: list[Path] = []
    for top, subfolders, names in os.walk(root):  # follows no symbolic link to a folder
        if not hidden:
            subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        for name in names + subfolders:
            path = Path(top) / name
            if not hidden and name.startswith("."):
                continue
            if path.is_symlink():
                links.append(path)
            elif name in names and path.is_file():
                files.append(path)
    return sorted(files), sorted(links)


def lines_of(path: Path) -> Iterator[tuple[int, str]]:
    """The numbered lines of a text file, each at most MAX_LINE bytes and UTF-8 (else refused, naming the line)."""
    for number, _, line in lines_from(path, 0, 0, whole=False):
        yield number, line


def lines_from(path: Path, offset: int, before: int, *, whole: bool = True) -> Iterator[tuple[int, int, str]]:
    """The lines of a text file from byte `offset` on (`before` lines before it): each line's number, the offset
    after it and its text, as `lines_of` checks them. `whole`: a last line without its newline is left for a later
    reading — the file is being written (a Claude Code session's transcript, read on at each of its hooks)."""
    with path.open("rb") as handle:
        handle.seek(offset)
        for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE + 1), b""), before + 1):
            if len(raw) > MAX_LINE:
                raise ExportError(f"{path} line {number}", f"longer than {MAX_LINE // 1024**2} MB: not a session entry")
            if whole and not raw.endswith(b"\n"):
                return
            offset += len(raw)
            try:
                yield number, offset, raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ExportError(f"{path} line {number}", "not UTF-8 text") from None


def text_of(path: Path) -> str:
    """A note's text: at most MAX_NOTE bytes, UTF-8 (else refused, naming the file)."""
    with path.open("rb") as handle:
        raw = handle.read(MAX_NOTE + 1)
    if len(raw) > MAX_NOTE:
        raise ExportError(str(path), f"larger than {MAX_NOTE // 1024**2} MB: too large for a note (split it)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ExportError(str(path), "not UTF-8 text") from None


M = TypeVar("M", bound=BaseModel)


def conversations(path: Path, model: type[M]) -> Iterator[tuple[int, M]]:
    """The conversations of an export's conversations.json, each validated as `model`; one that is not
    names its number and what is wrong."""
    for i, item in enumerate(json_items(path)):
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
