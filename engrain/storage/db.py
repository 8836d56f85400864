"""Engine creation, schema migrations and named advisory locks."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from sqlalchemy import text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from engrain.config import Settings
from engrain.storage.analyze import REFRESH_QUIET_FACTOR, analyze_if_changed
from engrain.storage.embedded import start_embedded
from engrain.storage.recall import ITERATIVE_SCAN, PLANNED_PER_USER, recall_connection_settings

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# The settings of the write connections, sent when each opens: the duplicate probe's HNSW scan
# (storage/memories.probe) goes on until a row passes its filters, and every statement is planned for its
# own user, as recall's are (storage/recall.recall_connection_settings says why): a generic plan costed for
# the average user reads a large user's vectors one by one instead of by the index. Set per connection,
# not per probe, they cost a one-at-a-time `remember` no round trip (a `set_config` before each probe did).
WRITE_CONNECTION_SETTINGS = {**ITERATIVE_SCAN, **PLANNED_PER_USER}
# Any fixed 64-bit key: serialises migrations across processes.
_MIGRATION_LOCK = 0x656E677261696E01


def async_url(url: str) -> str:
    """Accept the URLs users paste (postgres://, postgresql://) and pick the asyncpg driver."""
    parsed = make_url(url.replace("postgres://", "postgresql://", 1))
    return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


def redact(url: str) -> str:
    """The URL without its password, for logs and the status resource."""
    return make_url(url).render_as_string(hide_password=True)


def _alembic_upgrade(conn: Connection, revision: str = "head") -> None:
    # Imported here: alembic (and mako) take a noticeable part of start-up, which must not delay `initialize`.
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, revision)


def advisory_key(name: str) -> int:
    """The signed 64-bit key of a named advisory lock (the same in every process and version)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@dataclass
class Database:
    """The process-wide engines plus what we know about the server they talk to. `reader` serves
    recall alone: its connections carry recall's settings from the moment they open and commit
    every statement on its own, so that a recall is one round trip (storage/recall.py)."""

    engine: AsyncEngine
    reader: AsyncEngine
    url: str
    embedded: bool
    sessions: async_sessionmaker[AsyncSession] = field(init=False)
    _analyzing: bool = field(default=False, init=False)
    _quiet_until: float = field(default=0.0, init=False)  # time.monotonic(): no refresh before it

    def __post_init__(self) -> None:
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    async def refresh_statistics(self) -> None:
        """ANALYZE the tables recall and the duplicate probe are planned on, if they changed enough
        (storage/analyze.py); one refresh at a time, a call during one returns at once, and after an ANALYZE
        that took t seconds calls return at once for REFRESH_QUIET_FACTOR × t (a bulk import into a large
        database would otherwise spend a core on ANALYZE after every tenth it grew).
        Writers call it after storing many rows: a user imported into a new database, or among users
        who are all in the statistics, is otherwise planned as one row until autovacuum comes."""
        if self._analyzing or time.monotonic() < self._quiet_until:
            return
        self._analyzing = True
        try:
            started = time.monotonic()
            async with self.engine.begin() as conn:
                analyzed = await analyze_if_changed(conn)
            if analyzed:
                took = time.monotonic() - started
                self._quiet_until = started + took * (1 + REFRESH_QUIET_FACTOR)
                log.debug("analyzed %s in %.0f ms", ", ".join(analyzed), took * 1000)
        except DBAPIError as exc:  # autovacuum holds the table (lock_timeout): its ANALYZE will do
            log.debug("statistics not refreshed: %s", exc.orig)
        finally:
            self._analyzing = False

    def transaction(self, session: AsyncSession | None = None) -> AbstractAsyncContextManager[AsyncSession]:
        """The caller's open transaction when one is given (a whole ingestion is one), else a new one that
        commits on leaving: for writes that are sometimes a transaction of their own, sometimes part of one."""
        return nullcontext(session) if session is not None else self.sessions.begin()

    @classmethod
    async def open(cls, settings: Settings) -> Database:
        """Connect (starting the embedded server if no URL is configured) and migrate."""
        embedded = settings.database_url is None
        if settings.database_url is None:
            # Abandoned, not awaited, when the caller is cancelled (a process closing while the database starts).
            url = await anyio.to_thread.run_sync(
                start_embedded, settings.pgdata, settings.pg_shared_buffers, abandon_on_cancel=True
            )
        else:
            url = async_url(settings.database_url)
        engine = create_async_engine(
            url,
            pool_pre_ping=True,
            pool_size=10,
            max_overflow=10,
            connect_args={"server_settings": WRITE_CONNECTION_SETTINGS},
        )
        reader = create_async_engine(
            url,
            pool_pre_ping=True,
            pool_size=5,
            max_overflow=5,
            isolation_level="AUTOCOMMIT",
            connect_args={"server_settings": recall_connection_settings(settings.recall_timeout_ms)},
        )
        db = cls(engine=engine, reader=reader, url=url, embedded=embedded)
        await db.migrate()
        return db

    async def migrate(self) -> None:
        """Bring the schema to head; idempotent and safe when several servers start at once."""
        async with self.engine.begin() as conn:
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
            await conn.run_sync(_alembic_upgrade)

    @asynccontextmanager
    async def try_advisory_lock(self, name: str) -> AsyncGenerator[bool, None]:
        """Hold the session-level advisory lock `name` for the block when nobody else does; yields
        False at once when somebody does. Released even when the block is cancelled: a lock left on a
        pooled connection would keep `name` taken for as long as that connection lives."""
        key = advisory_key(name)
        async with self.engine.connect() as conn:
            got = bool(await conn.scalar(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}))
            try:
                yield got
            finally:
                if got:
                    with anyio.CancelScope(shield=True):
                        await conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                        await conn.commit()

    async def ping(self) -> None:
        """One round trip (for /healthz); raises when the database does not answer."""
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    async def close(self) -> None:
        await self.reader.dispose()
        await self.engine.dispose()
