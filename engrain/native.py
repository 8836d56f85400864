"""numpy's first import, made by one thread at a time.

Importing numpy from two threads at once can fail in the second with "cannot import name
'__cpu_features__' from partially initialized module": a stdio server that loaded its language
identifier (py3langid) while the embedding model loaded (onnxruntime, tokenizers) answered a recall
with an internal error. numpy stays off the start-up path, so the first import happens in whichever
worker thread needs it first; every such place calls `load_numpy()` before it imports anything that
imports numpy. Anyone may import this module.
"""

from __future__ import annotations

import importlib
import threading

_lock = threading.Lock()


def load_numpy() -> None:
    """Import numpy, waiting for another thread that is importing it now."""
    with _lock:
        importlib.import_module("numpy")
