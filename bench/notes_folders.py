"""Which folders `engrain import-chats` reads as notes (reading/chats/notes.py): each folder given is surveyed
as the command surveys it, and one line says how many of its files are notes, how many Markdown/text files are
not (and why, the first few), how many are of another kind or attachments, the share that decides, the
verdict, and how long the survey took. Hidden files and folders are not looked at, as by the command.

    python bench/notes_folders.py /etc /usr/share/doc docs ~/notes
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from engrain.reading.chats import notes


def main(folders: list[str]) -> None:
    for folder in folders:
        started = time.perf_counter()
        found = notes.survey(Path(folder))
        spent = time.perf_counter() - started
        weighed = len(found.notes) + len(found.texts_left) + found.others
        share = len(found.notes) / weighed if weighed else 0.0
        verdict = "read as notes" if found.is_notes_folder else "refused"
        print(
            f"{folder}: {len(found.notes):,} notes, {len(found.texts_left):,} texts not notes, {found.others:,} "
            f"other files, {found.attachments:,} attachments; share {share:.3f} -> {verdict} ({spent:.2f} s)"
        )
        for path, why in found.texts_left[:3]:
            print(f"    not a note: {path.relative_to(folder)}: {why}")


if __name__ == "__main__":
    main(sys.argv[1:])
