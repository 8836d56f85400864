"""Parsing `<kind>:<base_url>:<model>` settings, where both the URL and the model may contain ':'."""

from __future__ import annotations

import re

# The base URL ends at the first ':' after its path starts (host:port is inside the first part).
_BASE_AND_MODEL = re.compile(r"^(?P<base>https?://[^/\s]+(?:/[^:\s]*)?)(?::(?P<model>.+))?$")


def split_base_url(value: str) -> tuple[str, str | None] | None:
    """`http://host:11434/v1:llama3.1:8b` → (`http://host:11434/v1`, `llama3.1:8b`); None if not a URL."""
    m = _BASE_AND_MODEL.match(value)
    return (m["base"], m["model"]) if m else None
