"""Where engrain keeps its data when ENGRAIN_HOME does not say: read apart from the settings (config.py), whose
validation a Claude Code hook's fast path does without (server/hooks.py). Anyone may import this module."""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "engrain"
