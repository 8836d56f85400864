"""dateparser, loaded once behind one lock (issue 39).

Its import takes most of a second (modules and the language data), so a server starts loading it in a
worker thread at start-up. A request that needed it meanwhile imported part of it in its own thread, and
the two imports deadlocked on dateparser's modules ("deadlock detected by _ModuleLock(
'dateparser.data.languages_info')", a KeyError in the request): a valid first `remember` failed. Every
use of dateparser now goes through `library()`, which imports it once under one lock; a request that
comes while it loads waits for it, for at most LOAD_WAIT seconds.
"""

from __future__ import annotations

import threading
from types import ModuleType

from engrain.errors import Unavailable

LOAD_WAIT = 60.0  # seconds a request waits for the loading; a loaded machine takes seconds, never a minute
_lock = threading.Lock()
_loaded: ModuleType | None = None


def library() -> ModuleType:
    """The dateparser package, its search and its language data imported: at once when loaded, else after
    the one loading under way (or this one) is done."""
    global _loaded
    if _loaded is not None:
        return _loaded
    if not _lock.acquire(timeout=LOAD_WAIT):
        raise Unavailable(f"the date reader is still loading after {LOAD_WAIT:.0f} s; try again")
    try:
        if _loaded is None:
            import importlib

            for name in ("dateparser", "dateparser.languages", "dateparser.search"):
                importlib.import_module(name)
            import dateparser

            _loaded = dateparser
        return _loaded
    finally:
        _lock.release()
