"""Whose a coding session's words are (issue 62): the user's, or one project's.

A Claude Code session happens in a project's folder. What the user says there about themselves ("I prefer
answers in British English", "I live in Leeds") is about them wherever they work, and is kept in the default
namespace like every other memory; the rest ("we use PostgreSQL 16 here", "I'm moving this project to uv") is
about that project and is kept in the project's own namespace, so that a session in another project is never
shown it. The rule leans to the project: a statement is global only when it is a standing instruction or
preference (reading/standing.py) or states one of the user's own single-valued facts (reading/slots.py) —
what a wrong guess shows elsewhere is the cost, and a project's private detail shown in another is the worse one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import PurePath

from engrain.reading.slots import slot_of
from engrain.reading.standing import standing_of

PREFIX = "project:"
GLOBAL = "default"
_NAME_CHARS = 40  # of the folder's name, in the namespace (the whole is at most inputs.MAX_NAMESPACE_CHARS, 64)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
Scope = Callable[[str], str]  # a statement's namespace: `scope` with the session's project


def namespace_of(folder: str) -> str:
    """The namespace of the project in `folder`: its name, readable, and a hash of its whole path, so that two
    checkouts named `api` are two projects and a namespace stays the same for as long as the folder does."""
    path = PurePath(folder)
    name = _UNSAFE.sub("-", path.name).strip("-.")[:_NAME_CHARS] or "root"
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{PREFIX}{name}-{digest}"


def is_project(namespace: str) -> bool:
    return namespace.startswith(PREFIX)


def scope(sentence: str, project: str) -> str:
    """Where a statement the user made in a session of `project` (its namespace) is kept."""
    if standing_of(sentence) is not None:
        return GLOBAL
    found = slot_of(sentence)
    return GLOBAL if found is not None and found.whose == "user" else project
