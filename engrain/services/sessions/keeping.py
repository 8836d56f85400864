"""What a Claude Code session said that is kept: its transcript, read by the reader `engrain import-chats` uses
(reading/chats/claude_code.py: the user's typed words, never tool output or the lines Claude Code writes itself),
imported as a chat is (services/memories/importing.py: code left out, secrets redacted, statements kept at once,
the pieces queued for a model), each statement in its scope (reading/projects.py).

Stop, PreCompact and SessionEnd all call this with the same transcript: the import's queue records how many of
the session's messages are read, so each call imports from where the last stopped and a second call adds nothing.
The file is read on from where the last call left it too (`claude_code.read_on`): Stop comes after every prompt,
and parsing a long session's whole transcript each time (21 MB, 4,000 prompts: 0.7 s of CPU) would hold a core, and
the worker's other hooks, after each of them.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import anyio

from engrain.reading.chats import claude_code
from engrain.services.memories.importing import ChatImporter

READINGS_KEPT = 64


@dataclass(frozen=True)
class Kept:
    messages: int  # the user's messages read this time (0: nothing new)
    kept: int  # memories stored


class SessionKeeper:
    """Receives the chat importer. Keeps the readings of the last READINGS_KEPT transcripts (one process answers
    a home's hooks: server/hook_worker.py)."""

    def __init__(self, importer: ChatImporter) -> None:
        self.importer = importer
        # Each transcript's reading so far, with the file's identity (device, inode) when it was read.
        self._readings: OrderedDict[Path, tuple[tuple[int, int], claude_code.Reading]] = OrderedDict()

    async def keep(self, user_id: str, transcript: Path, project: str) -> Kept:
        """Import what the session at `transcript` said since the last call, its statements about the project
        kept in `project` (a namespace), those about the user in the default one."""
        status = transcript.stat()
        identity = (status.st_dev, status.st_ino)
        kept = self._readings.pop(transcript, None)
        # Read on from the last reading of the same file; from its start when it is another file now (replaced,
        # or shorter than what was read).
        before = kept[1] if kept is not None and kept[0] == identity and kept[1].offset <= status.st_size else None
        reading = await anyio.to_thread.run_sync(claude_code.read_on, transcript, before)
        self._readings[transcript] = (identity, reading)
        while len(self._readings) > READINGS_KEPT:
            self._readings.popitem(last=False)
        now = self.importer.rt.clock()
        report = await self.importer.run(user_id, [reading.session(transcript)], now, project=project)
        return Kept(report.messages, report.kept)
