"""Exports uploaded to the Import screen, kept on disk between the dry run and the import (issue 43).

An upload is one export file (a ChatGPT or Claude `.zip` or `conversations.json`, a Claude Code `.jsonl`, a note)
or several files read as one folder (Claude Code sessions, notes). It is copied in chunks into a private folder of
its own (mode 0700) under a random token, belongs to the user who sent it (another user's token is unknown), and
is removed when its import ends, when it is cancelled, or an hour after it came.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from starlette.datastructures import UploadFile

from engrain.errors import InvalidInput, NotFound

SUFFIXES = (".zip", ".json", ".jsonl", ".md", ".markdown", ".txt")
MAX_BYTES = 2 * 1024**3  # an upload, all files together: years of ChatGPT history fit well within
MAX_FILES = 1_000
KEPT_FOR = timedelta(hours=1)
CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Upload:
    token: str
    user_id: str
    folder: Path
    path: Path  # the file, or the folder when several files came
    names: tuple[str, ...]
    at: datetime


class Uploads:
    def __init__(self, clock: Callable[[], datetime]) -> None:
        self.clock = clock
        self._uploads: dict[str, Upload] = {}

    async def save(self, user_id: str, files: Sequence[UploadFile]) -> Upload:
        """Copy the files to a private folder; refused, naming the file, when one is of no kind an export has, or
        when they are too many or too large (and then nothing is kept)."""
        self._expire()
        named = [f for f in files if f.filename]
        if not named:
            raise InvalidInput("file", "choose an export to import")
        if len(named) > MAX_FILES:
            raise InvalidInput("file", f"{len(named)} files; the limit is {MAX_FILES:,} (import a folder in parts)")
        folder = Path(tempfile.mkdtemp(prefix="engrain-upload-"))
        try:
            names: list[str] = []
            size = 0
            for upload in named:
                name = Path(str(upload.filename).replace("\\", "/")).name
                if not name.lower().endswith(SUFFIXES) or name.startswith("."):
                    raise InvalidInput("file", f"{name[:80]!r} is no export: expected one of {', '.join(SUFFIXES)}")
                with (folder / name).open("wb") as out:
                    while chunk := await upload.read(CHUNK):
                        size += len(chunk)
                        if size > MAX_BYTES:
                            raise InvalidInput("file", f"more than {MAX_BYTES // 1024**3} GB; the limit")
                        out.write(chunk)
                names.append(name)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        path = folder / names[0] if len(names) == 1 else folder
        upload = Upload(secrets.token_urlsafe(16), user_id, folder, path, tuple(names), self.clock())
        self._uploads[upload.token] = upload
        return upload

    def get(self, user_id: str, token: str) -> Upload:
        self._expire()
        upload = self._uploads.get(token)
        if upload is None or upload.user_id != user_id:
            raise NotFound("upload", token[:40], "upload (it is kept for an hour: choose the file again)")
        return upload

    def discard(self, token: str) -> None:
        upload = self._uploads.pop(token, None)
        if upload is not None:
            shutil.rmtree(upload.folder, ignore_errors=True)

    def _expire(self) -> None:
        old = [t for t, u in self._uploads.items() if self.clock() - u.at > KEPT_FOR]
        for token in old:
            self.discard(token)
