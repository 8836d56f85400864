"""Imported files are untrusted input (issue 50, item 4): each hostile export ends in a clear error naming the
file and entry, or in a safe import, with bounded memory and time, nothing half-written, and no process left
behind; through the real command here, through the page in tests/web/test_hostile_uploads.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engrain.reading import chats
from tests.conftest import engrain_env
from tests.server.test_lifecycle import no_postmaster

pytestmark = pytest.mark.anyio
BOUND = 300  # s: generous, on a busy shared CI machine
BIG = 200 * 1024**2  # the 200 MB


def nested_brackets(path: Path, depth: int = 100_000) -> Path:
    """A 200 KB file of nested brackets: the standard library's parser recursed until RecursionError."""
    path.write_bytes(b"[" * depth + b"]" * depth)
    return path


def zip_bomb(path: Path, size: int = BIG) -> Path:
    """A zip of a few hundred KB whose conversations.json inflates to `size` bytes."""
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open("conversations.json", "w", force_zip64=True) as member,
    ):
        member.write(b"[]")
        chunk = b" " * (16 * 1024**2)
        for _ in range(size // len(chunk)):
            member.write(chunk)
        member.write(b"0")  # "Extra data": the old reader took it all in before it said so
    return path


def not_utf8(path: Path) -> Path:
    conversation = {"title": "Café", "mapping": {}, "current_node": None}
    path.write_bytes(json.dumps([conversation]).encode().replace(b"Caf\\u00e9", b"Caf\xe9"))
    return path


def one_long_line(path: Path, size: int = BIG) -> Path:
    with path.open("wb") as out:
        out.write(b'{"type": "user", "message": {"content": "')
        chunk = b"a" * (16 * 1024**2)
        for _ in range(size // len(chunk)):
            out.write(chunk)
        out.write(b'"}}\n')
    return path


# Runs a command and prints, last on stderr, the largest resident size (Linux: kilobytes) it or a process it waited
# for reached: that command's alone, whatever else the test worker ran before.
MEASURED = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(done.returncode)"
)


def measured(command: list[str], home: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """`command` run for `home`, with its peak resident size in MB (the output holds none of the measuring)."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *command],
        env=engrain_env(home),
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    stderr, _, peak = done.stderr.rstrip("\n").rpartition("\n")
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, stderr), int(peak) / 1024


def import_chats(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    return measured([sys.executable, "-m", "engrain", "import-chats", *args, "--user", "ana"], home)


@pytest.mark.parametrize(
    "make, name, said",
    [
        (nested_brackets, "conversations.json", "conversation 0: nested more than 64 deep: not an export"),
        (zip_bomb, "export.zip", "entry conversations.json: inflates to 201,326,595 bytes from"),
        (not_utf8, "conversations.json", "conversations.json: not UTF-8 text"),
        (one_long_line, "session.jsonl", "session.jsonl line 1: longer than 64 MB: not a session entry"),
    ],
)
async def test_a_hostile_export_is_refused_by_name_in_bounded_memory(tmp_path, monkeypatch, make, name, said):
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    home = tmp_path / "home"
    hostile = make(tmp_path / name)
    done, peak_mb = import_chats(home, str(hostile))
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert peak_mb < 1024  # the 200 MB ones were read in bounded pieces, or not at all
    await no_postmaster(home)


def test_every_hostile_shape_is_an_export_error_of_the_reader(tmp_path):
    """The readers alone, for the shapes the command test above does not start a process for."""
    note = tmp_path / "big.md"
    with note.open("wb") as out:
        out.truncate(20 * 1024**2)  # sparse: 20 MB of NUL bytes on one line
    with pytest.raises(chats.ExportError, match=r"big.md: larger than 16 MB: too large for a note"):
        list(chats.read(note))
    (tmp_path / "bad.md").write_bytes(b"caf\xe9")
    with pytest.raises(chats.ExportError, match=r"bad.md: not UTF-8 text"):
        list(chats.read(tmp_path / "bad.md"))
    session = tmp_path / "s.jsonl"
    session.write_bytes(b'{"type": "user", "message": {"content": "ok"}}\n{"type": "user", "message": "\xff"}\n')
    with pytest.raises(chats.ExportError, match=r"s.jsonl line 2: not UTF-8 text"):
        list(chats.read(session))
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(chats.ExportError, match=r"deep.jsonl line 1: not a session entry"):
        list(chats.read(deep))
    cut = tmp_path / "conversations.json"
    cut.write_text('[{"mapping": {}}, {"mapp')
    with pytest.raises(chats.ExportError, match=r"conversations.json: not valid JSON"):
        list(chats.read(cut, "chatgpt"))
    os.mkfifo(tmp_path / "pipe.json")  # reading it would block for ever
    with pytest.raises(chats.ExportError, match=r"pipe.json: is neither a file nor a folder"):
        list(chats.read(tmp_path / "pipe.json"))


async def test_a_folder_import_follows_no_link_out_of_the_folder(tmp_path, monkeypatch):
    """A notes folder holding links to a private file and to a folder elsewhere, and a pipe: the notes inside
    are imported, the links and the pipe are not read, and the log names each link."""
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    private = tmp_path / "private"
    private.mkdir()
    (private / "id_rsa.md").write_text("I keep my deepest secret here: the vault is under the stairs.\n")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "trip.md").write_text("---\ndate: 2023-05-08\n---\nI went hiking in the Dolomites with Ana.\n")
    (notes / "keys.md").symlink_to(private / "id_rsa.md")
    (notes / "elsewhere").symlink_to(private, target_is_directory=True)
    os.mkfifo(notes / "pipe.md")
    home = tmp_path / "home"
    done, _ = import_chats(home, str(notes))
    assert done.returncode == 0 and "kept 1 memories" in done.stdout, done.stdout + done.stderr
    assert "notes: 2 symbolic links not followed (only what is inside the folder is read): elsewhere, keys.md" in (
        done.stderr
    )
    exported = subprocess.run(
        [sys.executable, "-m", "engrain", "export", "--user", "ana"],
        env=engrain_env(home),
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    assert "Dolomites" in exported.stdout and "vault" not in exported.stdout
    await no_postmaster(home)


def test_a_chatgpt_mapping_whose_parents_loop_imports_its_path_once(tmp_path):
    looped = {
        "id": "loop",
        "title": "Loop",
        "current_node": "b",
        "mapping": {
            "a": {"parent": "b", "message": {"author": {"role": "user"}, "content": {"parts": ["I live in Oslo."]}}},
            "b": {"parent": "a", "message": {"author": {"role": "user"}, "content": {"parts": ["I cycle to work."]}}},
        },
    }
    for message in looped["mapping"].values():
        message["message"]["content"]["content_type"] = "text"
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([looped]))
    [chat] = list(chats.read(path))
    assert [m.text for m in chat.messages] == ["I live in Oslo.", "I cycle to work."]


def test_an_export_file_of_one_endless_line_is_refused_by_engrain_import(tmp_path, monkeypatch):
    """`engrain import` reads its file a line at a time, none past 16 MB: a 200 MB line is refused by number."""
    monkeypatch.delenv("ENGRAIN_DATABASE_URL", raising=False)
    export = one_long_line(tmp_path / "me.jsonl")
    home = tmp_path / "home"
    done, peak_mb = measured([sys.executable, "-m", "engrain", "import", str(export)], home)
    assert done.returncode == 1 and "line 1: longer than 16 MB: no row of an export is" in done.stderr, done.stderr
    assert peak_mb < 1024
