"""Slows the import of one module (ENGRAIN_TEST_SLOW_IMPORT) by ENGRAIN_TEST_SLOW_SECONDS, to force races."""

import importlib.abc
import os
import sys
import time

_NAME = os.environ.get("ENGRAIN_TEST_SLOW_IMPORT")
_SECONDS = float(os.environ.get("ENGRAIN_TEST_SLOW_SECONDS", "2"))


class _Slow(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname == _NAME:
            time.sleep(_SECONDS)
        return None


if _NAME:
    sys.meta_path.insert(0, _Slow())
