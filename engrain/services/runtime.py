"""What every service may use from the running process, and nothing more.

A service receives a `Runtime` plus the named services it calls, so its constructor says what it
depends on. One composition root (`server/state.py`) builds them; services never import the server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engrain.config import Settings
from engrain.providers.embedder_manager import EmbedderManager
from engrain.storage.db import Database


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    clock: Callable[[], datetime]
    database: Callable[[], Awaitable[Database]]  # waits for the first opening; reopens a lost one
    embeddings: EmbedderManager
    spawn: Callable[[Awaitable[Any]], None]  # background work the process awaits on shutdown
