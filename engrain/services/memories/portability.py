"""`engrain export` / `engrain import`: a user's whole memory as JSON lines, and back.

The file starts with a header line, then one line per row: user state, memories (archived and
superseded ones too, vectors optional), reflection cycles, links, trait evidence, history. Keys
are sorted and rows come in a fixed order, so exporting what an import produced gives the same
bytes. Importing is idempotent (see storage/portability.py).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO, cast

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection

from engrain.config import RedactMode
from engrain.errors import InvalidInput
from engrain.reading import inputs
from engrain.reading.dates import EARLIEST_EVENT, EARLIEST_TOLD, EVENT_RANGE, LATEST_EVENT
from engrain.reading.enrich import content_hash
from engrain.reading.periods import GRAINS
from engrain.reading.redaction import redact, redact_value
from engrain.storage import portability as store
from engrain.storage.memories import SERVER_FORGET_REASONS as SERVER_REASONS

if TYPE_CHECKING:
    from engrain.storage.db import Database

OpenDatabase = Callable[[], Awaitable["Database"]]
FORMAT = "engrain-export"
VERSION = 1
BATCH = 500
MAX_LINE = 16 * 1024**2  # a row: at most 8,000 characters of text, metadata and a vector of a few thousand numbers
ORDER = ("user_state", "memory", "reflection_cycle", "link", "evidence", "history")


def _line(item: dict[str, Any]) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def _bar(total: int | None, enabled: bool, what: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, disable=not enabled, unit=" rows", desc=what, leave=False)


async def export_jsonl(
    database: OpenDatabase,
    out: TextIO,
    *,
    user: str | None = None,
    vectors: bool = True,
    progress: bool = False,
    mode: RedactMode = "secrets",
) -> int:
    """Write the header and every row; return the number of rows. A text stored before its secrets were
    redacted leaves without them (and without the vector made from it), whether or not `engrain redact` ran."""
    db = await database()
    written = 0
    async with db.engine.connect() as conn, conn.begin():  # one snapshot for the whole file
        await conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
        user_ids = await store.users(conn, user)
        total = await store.count_rows(conn, user_ids) if progress else None
        out.write(_line({"type": "header", "format": FORMAT, "version": VERSION, "vectors": vectors}))
        with _bar(total, progress, "export") as bar:
            async for item in store.export_rows(conn, user_ids, vectors):
                _screen(item, mode, Counter())
                out.write(_line(item))
                written += 1
                bar.update(1)
    return written


def bounded_lines(handle: BinaryIO) -> Iterator[bytes]:
    """The lines of an export file, none read past MAX_LINE + 1 bytes: a file of one endless line is refused at
    its first MAX_LINE bytes (by `_parse`), not read whole into memory."""
    return iter(lambda: handle.readline(MAX_LINE + 1), b"")


def _parse(lines: Iterable[str | bytes]) -> Iterable[tuple[int, dict[str, Any]]]:
    for n, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE:
            raise InvalidInput(f"line {n}", f"longer than {MAX_LINE // 1024**2} MB: no row of an export is")
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInput(
                    f"line {n}", f"not UTF-8 (byte {raw[exc.start]:#04x} at column {exc.start + 1})"
                ) from None
        if not raw.strip():
            continue
        try:
            parsed: Any = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"line {n}", f"not JSON ({exc.msg})") from None
        except RecursionError:
            raise InvalidInput(f"line {n}", "nested too deeply to be a row of an export") from None
        item = cast(dict[str, Any], parsed) if isinstance(parsed, dict) else {}
        if "type" not in item:
            raise InvalidInput(f"line {n}", "expected an object with a 'type'")
        if n == 1 or item["type"] == "header":
            if item.get("type") != "header" or item.get("format") != FORMAT:
                raise InvalidInput("line 1", f"not an {FORMAT} file (no header)")
            if item.get("version") != VERSION:
                raise InvalidInput("line 1", f"version {item.get('version')!r}; this engrain reads {VERSION}")
            continue
        if item["type"] not in ORDER:
            raise InvalidInput(f"line {n}", f"unknown type {item['type']!r}")
        yield n, item


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in cast(dict[Any, Any], value).items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in cast(list[Any], value):
            yield from _strings(v)


def _given(item: dict[str, Any], name: str) -> Any:
    if item.get(name) is None:
        raise InvalidInput(name, "is required")
    return item[name]


def _check_memory(item: dict[str, Any]) -> None:
    inputs.memory_id("id", _given(item, "id"))
    inputs.text_field("content", _given(item, "content"), inputs.MAX_CONTENT_CHARS)
    inputs.kind("kind", _given(item, "kind"), inputs.ALL_KINDS)
    inputs.namespace(_given(item, "namespace"))
    inputs.int_range("importance", _given(item, "importance"), 1, 10)
    if item.get("temporality") is not None:
        inputs.kind("temporality", item["temporality"], inputs.TEMPORALITIES)
    if item.get("category") is not None:
        inputs.text_field("category", item["category"], inputs.MAX_CATEGORY_CHARS)
    if item.get("source") is not None:
        inputs.text_field("source", item["source"], 200)
    if not isinstance(item.get("tags") or [], list):
        raise InvalidInput("tags", "must be a list of strings")
    inputs.tags(item.get("tags") or [])
    if item.get("metadata") is not None and not isinstance(item["metadata"], dict):
        raise InvalidInput("metadata", f"must be a JSON object, got {type(item['metadata']).__name__}")
    if not isinstance(item.get("pinned", False), bool):
        raise InvalidInput("pinned", "must be true or false")
    if item.get("event_grain") not in (None, *GRAINS):
        raise InvalidInput("event_grain", f"must be one of {', '.join(GRAINS)} or null")


def _check(n: int, item: dict[str, Any]) -> None:
    """One row held to the limits the tools apply (inputs.py), so that an import cannot store what
    `remember` would refuse; the error names the line and the field. A forget's reason becomes a category,
    as `forget` keeps it (files written before kept the user's words there)."""
    where = f"line {n}"
    try:
        for key, value in item.items():
            if any("\x00" in text for text in _strings(value)):
                raise InvalidInput(key, "contains a NUL byte (\\x00), which cannot be stored")

        inputs.text_field("user_id", _given(item, "user_id"), inputs.MAX_USER_CHARS)
        kind = item["type"]
        _check_times(item)
        if kind == "memory":
            _check_memory(item)
        elif kind == "history" and item.get("action") == "forget" and item.get("reason") not in SERVER_REASONS:
            item["reason"] = (
                inputs.FORGET_REASONS[0] if item.get("reason") not in inputs.FORGET_REASONS else item["reason"]
            )
    except InvalidInput as exc:
        raise InvalidInput(f"{where}, {exc.field}", str(exc).split(": ", 1)[1]) from None
    except (TypeError, KeyError) as exc:
        raise InvalidInput(where, f"malformed {item.get('type')} row ({type(exc).__name__}: {exc})") from None


_TOLD_TIMES = {"told_at"}


def _check_times(item: dict[str, Any]) -> None:
    """Every time of a row is an ISO time a person can mean: an event from the year 1000 to 2999, a told
    time from 1900 to now (the checks `remember` applies), any other within the events' range."""
    for name in store.TIMES:
        value = item.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise InvalidInput(name, "must be an ISO 8601 time")
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInput(name, f"{value[:40]!r} is not an ISO 8601 time") from None
        aware = when if when.tzinfo is not None else when.replace(tzinfo=EARLIEST_EVENT.tzinfo)
        low = EARLIEST_TOLD if name in _TOLD_TIMES else EARLIEST_EVENT
        if not low <= aware < LATEST_EVENT:
            window = f"{EARLIEST_TOLD.year} to now" if name in _TOLD_TIMES else EVENT_RANGE
            raise InvalidInput(name, f"{value[:40]!r} is outside the dates engrain keeps ({window})")


def _screen(item: dict[str, Any], mode: RedactMode, kinds: Counter[str]) -> None:
    """Secrets out of a row's texts (content, tags, metadata, a history row's words); a memory whose content
    changed gets its new content hash and loses the vector made from the old one (reindex makes it again)."""
    if mode == "off":
        return
    if item["type"] == "memory":
        found: Counter[str] = Counter()
        done = redact(item["content"], mode)
        found.update(done.kinds)
        for name in ("tags", "metadata", "category"):
            if item.get(name) is not None:
                item[name] = redact_value(item[name], mode, found)
        if done.kinds:
            item["content"], item["content_hash"] = done.text, content_hash(done.text)
            item["embedding"], item["embedder"] = None, None
        kinds.update(found)
    elif item["type"] == "history":
        for name in ("old_content", "new_content"):
            if isinstance(item.get(name), str):
                done = redact(item[name], mode)
                item[name] = done.text
                kinds.update(done.kinds)


async def import_jsonl(
    database: OpenDatabase,
    lines: Iterable[str | bytes],
    *,
    progress: bool = False,
    mode: RedactMode = "secrets",
    dry_run: bool = False,
) -> dict[str, dict[str, int]]:
    """Add what the file holds and the database lacks; return rows read and added per type, and the secrets
    replaced before anything was written (`redacted`: kind → count). The whole file is one transaction: a
    line that fails its checks, or that the database refuses, is reported with its number and field, and
    nothing of the file is written. `dry_run`: the same checks and counts, and the transaction rolled back."""
    db = await database()
    stats = {kind: {"read": 0, "added": 0} for kind in ORDER}
    kinds: Counter[str] = Counter()
    pending: list[tuple[int, dict[str, Any]]] = []
    parents: list[tuple[str, str]] = []
    kind_of_pending: str | None = None

    async with db.engine.connect() as conn, _transaction(conn, commit=not dry_run):

        async def flush() -> None:
            nonlocal pending
            if pending and kind_of_pending is not None:
                stats[kind_of_pending]["added"] += await _write(conn, kind_of_pending, pending)
                pending = []

        with _bar(None, progress, "import") as bar:
            for n, item in _parse(lines):
                _check(n, item)
                _screen(item, mode, kinds)
                kind = item["type"]
                if kind != kind_of_pending or len(pending) >= BATCH:
                    await flush()
                    kind_of_pending = kind
                pending.append((n, item))
                stats[kind]["read"] += 1
                if kind == "memory" and item.get("trait_parent_id"):
                    parents.append((item["id"], item["trait_parent_id"]))
                bar.update(1)
            await flush()
        await store.link_parents(conn, parents)
        if stats["memory"]["added"]:
            await store.index_vectors(conn)
    if kinds:
        stats["redacted"] = dict(sorted(kinds.items()))
    return stats


@asynccontextmanager
async def _transaction(conn: AsyncConnection, *, commit: bool) -> AsyncGenerator[None]:
    """One transaction: committed when the block ends well and `commit` holds, else rolled back."""
    async with conn.begin() as transaction:
        yield
        if not commit:
            await transaction.rollback()


async def _write(conn: Any, kind: str, rows: list[tuple[int, dict[str, Any]]]) -> int:
    """A batch of checked rows; a row the database refuses is named by its line, inside a savepoint-free
    transaction that the error then rolls back whole."""
    try:
        return await store.import_batch(conn, kind, [item for _, item in rows])
    except (SQLAlchemyError, ValueError) as exc:
        first, last = rows[0][0], rows[-1][0]
        detail = str(getattr(exc, "orig", exc)).splitlines()[0][:200]
        raise InvalidInput(f"lines {first}-{last} ({kind})", f"the database refused a row: {detail}") from None
