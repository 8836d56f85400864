"""Scratch homes for benchmark runs.

An embedded database of 100,000 memories takes about a gigabyte; runs that leave theirs behind fill
the disk, and a nearly full disk slowed later runs of this machine by a fifth.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

from engrain.config import Settings


def scratch_home(prefix: str) -> str:
    """A new temporary ENGRAIN_HOME, removed when the benchmark exits. Registered before the embedded
    Postgres starts, so the removal runs after pgserver's exit hook has stopped it."""
    home = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    return home


def bench_settings(home: str, embedder: str = "hash", llm: str = "none", **more: Any) -> Settings:
    """What a benchmark runs with: its own home, no job loop, no model download, times in UTC, and a user named
    (a bench reads `settings.user` in its own queries; unset, it is the machine's local user, found later)."""
    more.setdefault("user", "bench")
    return Settings(
        home=Path(home), embedder=embedder, scheduler="off", llm=llm, fetch_models=False, timezone="UTC", **more
    )
