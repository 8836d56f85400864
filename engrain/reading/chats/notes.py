"""A folder of Markdown or text notes (or one note): each note is one source, the user's own words, dated by
its front matter (`date:`) or else by the file's modification time.

What is a note, and what is a folder of notes (`engrain import-chats /etc` read `rgb.txt`, a Java README and
pip's constraints as notes and queued them for a model): a note is a `.md`, `.markdown` or `.txt` file of
UTF-8 text whose lines are mostly words, not settings (`key=value`, `pkg==1.2`, `[section]`), rows of numbers
or symbols; a folder is a notes folder when its notes are at least NOTES_SHARE of the files it holds (hidden
ones unread: `.obsidian/`, `.git/`, `.trash/`; attachments aside: a vault's pictures and PDFs do not decide).
/etc holds 3 texts among 295 files, one of them a note: refused. The folders measured: docs/design.md.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from engrain.reading.chats.formats import PREFIX, Chat, ChatMessage, ExportError, inside, name_links, text_of

log = logging.getLogger(__name__)
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)
_DATE = re.compile(r"^(?:date|created)\s*:\s*['\"]?([0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9:.+-Z]+)?)", re.M | re.I)
_TITLE = re.compile(r"^title\s*:\s*['\"]?(.+?)['\"]?\s*$", re.M | re.I)
SUFFIXES = (".md", ".markdown", ".txt")
# What a notes app keeps beside its notes; neither notes nor evidence against a notes folder.
_PICTURES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".heic", ".bmp", ".tif", ".tiff")
_MEDIA = (".pdf", ".mp3", ".m4a", ".wav", ".ogg", ".mp4", ".mov", ".webm")
ATTACHMENTS = frozenset((*_PICTURES, *_MEDIA))
NOTES_SHARE = 0.5  # of the files a folder holds (attachments aside; hidden ones are not looked at)
HEAD = 64 * 1024  # characters of a text read to tell a note from a setting file
# A setting: `key = value`, `pkg==1.2`, `torch<=2.14`, `[section]`.
_SETTING = re.compile(r"^\s*(?:[\w.\-]+\s*(?:==|>=|<=|~=|!=|=|<|>)\s*\S|\[[^\]]*\]\s*$)")
_NUMBER = re.compile(r"[\d.,:;/%+\-#()]*\d[\d.,:;/%+\-#()]*")


def _machine_line(line: str) -> bool:
    """A line written for a program, not a person: a setting, a row of numbers ("255 250 250  snow"), or
    mostly symbols (under 30% letters: code, a table's rule, a hash)."""
    if _SETTING.match(line):
        return True
    tokens = line.split()
    numbers = sum(1 for token in tokens if _NUMBER.fullmatch(token))
    if numbers >= 2 and 2 * numbers >= len(tokens):
        return True
    visible = sum(not c.isspace() for c in line)
    return visible >= 4 and 10 * sum(c.isalpha() for c in line) < 3 * visible


def not_a_note(text: str) -> str | None:
    """Why `text` is not a note (None when it is one): a note has words, and fewer than half of its lines (front
    matter aside) were written for a program. "Buy milk" is a note; pip's constraints.txt is not."""
    body = text[:HEAD]
    if front := _FRONT_MATTER.match(body):
        body = body[front.end() :]
    if "\x00" in body:
        return "binary"
    lines = [line for line in body.splitlines() if line.strip()]
    if not any(c.isalpha() for c in body):
        return "no words"
    machine = sum(1 for line in lines if _machine_line(line))
    if 2 * machine >= len(lines):
        return f"{machine} of {len(lines)} lines are settings or tables"
    return None


@dataclass
class Survey:
    """What a folder holds, as a notes import sees it: the notes it would read, and what it leaves alone."""

    root: Path
    notes: list[Path] = field(default_factory=list[Path])
    texts_left: list[tuple[Path, str]] = field(default_factory=list[tuple[Path, str]])  # .md/.txt, and why
    others: int = 0  # files of another kind (attachments aside)
    attachments: int = 0
    links: list[Path] = field(default_factory=list[Path])

    @property
    def left_alone(self) -> int:
        """Every file the import does not read."""
        return len(self.texts_left) + self.others + self.attachments

    @property
    def is_notes_folder(self) -> bool:
        """Notes are a real share of what the folder holds: NOTES_SHARE of its files, attachments aside."""
        return bool(self.notes) and len(self.notes) >= NOTES_SHARE * (
            len(self.notes) + len(self.texts_left) + self.others
        )

    def announced(self) -> str:
        """What an import says before it reads the notes."""
        left = _count(self.left_alone, "other file")
        return f"{_count(len(self.notes), 'note')} found in {self.root} ({left} left alone); reading them…"

    def described(self) -> str:
        """What was found, for a refusal: "288 files: 3 Markdown/text files, 1 of them a note (not notes: …); too
        few for a folder of notes (…)"."""
        texts = len(self.notes) + len(self.texts_left)
        files = texts + self.others + self.attachments
        if not texts:
            return f"{_count(files, 'file')}, none of them Markdown or text"
        notes = _count(len(self.notes), "note")
        found = f"{_count(files, 'file')}: {_count(texts, 'Markdown/text file')}, {notes} among them"
        if self.texts_left:
            shown = "; ".join(f"{path.name}: {why}" for path, why in self.texts_left[:3])
            found += f" (not notes: {shown}{'; …' if len(self.texts_left) > 3 else ''})"
        if self.notes and not self.is_notes_folder:
            found += (
                f"; too few for a folder of notes (at least {NOTES_SHARE:.0%} of its files, pictures and PDFs aside); "
                f"asked for as notes (--from markdown; the page's kind: notes), the {notes} would be read"
            )
        return found


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def survey(root: Path) -> Survey:
    """Sort the files under `root` into notes and what a notes import leaves alone (reads each text once);
    hidden files and folders are not looked at."""
    files, links = inside(root, hidden=False)
    found = Survey(root, links=links)
    for file in files:
        suffix = file.suffix.lower()
        if suffix in ATTACHMENTS:
            found.attachments += 1
        elif suffix not in SUFFIXES:
            found.others += 1
        elif why := _why_not(file):
            found.texts_left.append((file, why))
        else:
            found.notes.append(file)
    return found


def notes_folder(root: Path) -> Survey:
    """The survey of a folder read as notes; refused, saying what it found, when it holds none."""
    found = survey(root)
    if not found.notes:
        raise ExportError(str(root), f"no notes (Markdown/text files of prose) in it: {found.described()}")
    return found


def _why_not(file: Path) -> str | None:
    try:
        return not_a_note(text_of(file))
    except ExportError as exc:  # too large, not UTF-8: named in the log, not read
        return str(exc).removeprefix(f"{file}: ")
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def read_notes(found: Survey) -> Iterator[Chat]:
    """The notes of a surveyed folder, one source each; the log names the links not followed and the texts
    that were not read as notes."""
    root = found.root
    name_links(root, found.links)
    if found.texts_left:
        shown = ", ".join(f"{path.relative_to(root)} ({why})" for path, why in found.texts_left[:10])
        log.warning("%s: %d texts not read as notes: %s", root, len(found.texts_left), shown)
    for file in found.notes:
        yield _note(file, root)


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
    """A folder's notes (its other files left alone), or one note, refused by name when it is not one."""
    if path.is_dir():
        yield from read_notes(notes_folder(path))
        return
    if why := not_a_note(text_of(path)):
        raise ExportError(str(path), f"not a note: {why}")
    yield _note(path, path)
