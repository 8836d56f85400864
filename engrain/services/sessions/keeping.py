"""What a Claude Code session said that is kept: its transcript, read by the reader `engrain import-chats` uses
(reading/chats/claude_code.py: the user's typed words, never tool output or the lines Claude Code writes itself),
imported as a chat is (services/memories/importing.py: code left out, secrets redacted, statements kept at once,
the pieces queued for a model), each statement in its scope (reading/projects.py).

Stop, PreCompact and SessionEnd all call this with the same transcript: the import's queue records how many of
the session's messages are read, so each call reads on from where the last stopped and a second call adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import anyio

from engrain.reading.chats import claude_code
from engrain.services.memories.importing import ChatImporter


@dataclass(frozen=True)
class Kept:
    messages: int  # the user's messages read this time (0: nothing new)
    kept: int  # memories stored


class SessionKeeper:
    """Receives the chat importer."""

    def __init__(self, importer: ChatImporter) -> None:
        self.importer = importer

    async def keep(self, user_id: str, transcript: Path, project: str) -> Kept:
        """Import what the session at `transcript` said since the last call, its statements about the project
        kept in `project` (a namespace), those about the user in the default one."""
        chats = await anyio.to_thread.run_sync(lambda: list(claude_code.read(transcript)))
        now = self.importer.rt.clock()
        report = await self.importer.run(user_id, chats, now, project=project)
        return Kept(report.messages, report.kept)
