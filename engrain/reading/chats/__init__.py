"""Chat histories a user already has, read from the files they export (issue 43): ChatGPT and Claude data
exports (`.zip` or their `conversations.json`), Claude Code session logs (JSON lines under a project
folder) and folders of Markdown or text notes. Each reader yields `Chat`s — one conversation, its messages
in the order the user kept them, each with its time — and never touches the database: what is kept of them
is the memories service's decision (services/memories/importing.py)."""

from __future__ import annotations

from engrain.reading.chats.formats import (
    FORMATS,
    LABEL,
    PREFIX,
    Chat,
    ChatMessage,
    ExportError,
    Format,
    format_of,
    named,
)
from engrain.reading.chats.notes import Survey, notes_folder, read_notes
from engrain.reading.chats.readers import detect, read

__all__ = [
    "FORMATS",
    "LABEL",
    "PREFIX",
    "Chat",
    "ChatMessage",
    "ExportError",
    "Format",
    "Survey",
    "detect",
    "format_of",
    "named",
    "notes_folder",
    "read",
    "read_notes",
]
