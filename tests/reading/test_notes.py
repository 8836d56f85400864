"""What is a note, and what is a folder of notes (reading/chats/notes.py): the pure rules, on texts and folders
like those the issue met (`engrain import-chats /etc`) and those a user keeps. The command: tests/services/
memories/test_import_chats.py."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from engrain.reading.chats import notes

NOTES = [
    "Buy milk",
    "---\ntitle: Dolomites\ndate: 2022-11-03\n---\n# Dolomites\n\nWe went hiking last weekend.",
    "Ran 5 km in 25 min at 5:00 pace. Legs fine, lungs not.",
    "# Week 12\n\n| day | km |\n|---|---|\n| Mon | 5 |\n\nA good week: three runs and the long one on Sunday.\n"
    "I slept better than last week and ate less sugar.",
    "我在学日语，准备明年去东京。",
    "Gift ideas for Ana: a scarf, the new Murakami, concert tickets.",
]
NOT_NOTES = [
    ("# These releases lie on this machine's disk.\ntorch<=2.14.1\ntorchvision<=0.29.1\n", "2 of 3 lines"),
    ("! $Xorg: rgb.txt,v 1.3 $\n255 250 250\t\tsnow\n248 248 255\t\tghost white\n", "2 of 3 lines"),
    ("[server]\nport = 8080\nhost = example.org\n", "3 of 3 lines"),
    ("[console_scripts]\nalembic = alembic.config:main\n", "2 of 2 lines"),
    ("\n\n   \n", "no words"),
    ("date,open,close\n2024-01-02,12.5,13.1\n2024-01-03,13.1,12.9\n", "2 of 3 lines"),
]


@pytest.mark.parametrize("text", NOTES)
def test_a_note_is_words(text):
    assert notes.not_a_note(text) is None


@pytest.mark.parametrize(("text", "why"), NOT_NOTES)
def test_settings_and_tables_are_not_notes(text, why):
    reason = notes.not_a_note(text)
    assert reason is not None and why in reason, reason


def make(root: Path, files: Mapping[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def test_a_vault_is_a_notes_folder_and_etc_is_not(tmp_path):
    vault = make(
        tmp_path / "vault",
        {
            ".obsidian/workspace.json": '{"main": {"id": "a1"}}',
            ".trash/old.md": "An old note I deleted.",
            "Daily/2024-05-01.md": "Walked the dog with Sam.",
            "Daily/2024-05-02.md": "Called mum about the garden.",
            "attachments/scan.pdf": b"%PDF-1.7" + bytes(100),
            "attachments/a.png": b"\x89PNG" + bytes(100),
            "Ideas.md": "A small app that reminds me to water the plants.",
            "plugins.txt": "sync=on\n",
        },
    )
    found = notes.survey(vault)
    assert [p.name for p in found.notes] == ["2024-05-01.md", "2024-05-02.md", "Ideas.md"]
    assert found.is_notes_folder and found.left_alone == 3  # the settings text and two attachments; hidden unread
    etc = make(
        tmp_path / "etc",
        {"README.txt": "The policy files are read at start.", "constraints.txt": "torch<=2\nnumpy<3\n"}
        | {f"conf.d/{n}.conf": "x = 1\n" for n in range(6)},
    )
    refused = notes.survey(etc)
    assert not refused.is_notes_folder and len(refused.notes) == 1
    assert refused.described() == (
        "8 files: 2 Markdown/text files, 1 note among them (not notes: constraints.txt: 2 of 2 lines are settings "
        "or tables); too few for a folder of notes (at least 50% of its files, pictures and PDFs aside); "
        "asked for as notes (--from markdown; the page's kind: notes), the 1 note would be read"
    )
