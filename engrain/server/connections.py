"""Connection limits of the HTTP and SSE transports: idle and slow connections are closed, and the number
of connections stays below the process's file limit, with a reserve for the database.

uvicorn closes a connection that idles after a response (its keep-alive timeout), but not one that never
sends a request, nor one whose request head or body trickles in a byte at a time (slowloris), and it
accepts connections until the process runs out of file descriptors: then every call, the database's
included, fails with "Too many open files". `guarded_protocol` is uvicorn's h11 protocol with three
bounds: a connection over `max_connections` is closed at once; a request head must be whole within
`head_timeout` of the connection (or of its first byte after a response); a body within `body_timeout` of
its head. Closed connections are logged once per LOG_EVERY seconds with their count, never one line each.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from dataclasses import dataclass, field
from typing import Any, cast

from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

log = logging.getLogger(__name__)
LOG_EVERY = 10.0
# Files the process needs beside its HTTP connections: the database pools at their fullest (30 connections),
# and what start-up and the first calls open while a flood may already hold every connection (the readers'
# modules and data files, models, logs). 64 left too little on a loaded machine: a flood's test saw
# "Too many open files" once in a CI run (tests/server/test_trust_connections.py).
RESERVED_FILES = 96
MAX_FILE_LIMIT = 65_536


@dataclass
class ConnectionLimits:
    max_connections: int
    head_timeout: float
    body_timeout: float
    # Connections the kernel may queue, which asyncio accepts in one burst before any is refused: part of
    # the file budget too.
    backlog: int
    closed: dict[str, int] = field(default_factory=dict[str, int])  # why → count since the last log line
    _logged_at: float = 0.0

    def note(self, why: str) -> None:
        """Count a closed connection; say so at most once per LOG_EVERY seconds, with the counts."""
        self.closed[why] = self.closed.get(why, 0) + 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY:
            summary = ", ".join(f"{n} {reason}" for reason, n in sorted(self.closed.items()))
            log.warning("closed HTTP connections: %s (limit %d connections)", summary, self.max_connections)
            self.closed, self._logged_at = {}, now


def file_limit() -> int:
    """Raise the soft limit on open files to the hard one (a server's usual first step); return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, MAX_FILE_LIMIT) if hard != resource.RLIM_INFINITY else MAX_FILE_LIMIT
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def limits_for(max_connections: int, head_timeout: float, body_timeout: float) -> ConnectionLimits:
    """The configured bound, kept below the file limit minus the reserve and the accept backlog."""
    files = file_limit()
    backlog = max(16, min(2048, files // 8))
    ceiling = max(1, files - RESERVED_FILES - backlog)
    if max_connections > ceiling:
        log.info("HTTP connections limited to %d by the open-file limit (ulimit -n %d)", ceiling, files)
    return ConnectionLimits(min(max_connections, ceiling), head_timeout, body_timeout, backlog)


def _evict_an_idle_one(connections: set[Any], limits: ConnectionLimits) -> bool:
    """At the limit, the oldest accepted connection that has not sent a request yet makes room for a new one: a
    flood of idle sockets must not keep a client out until their head timeout ends them."""
    idle = [c for c in connections if getattr(c, "opened_at", None) is not None and c.cycle is None]
    if not idle:
        return False
    oldest = min(idle, key=lambda c: c.opened_at)
    limits.note("idle, closed for a new connection")
    oldest.transport.abort()
    connections.discard(oldest)
    return True


def guarded_protocol(limits: ConnectionLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol under `limits` (pass as uvicorn's `http`)."""

    class GuardedH11Protocol(H11Protocol):
        _refused = False
        opened_at: float | None = None  # when accepted (None: refused); the oldest idle one makes room at the limit
        _deadline: asyncio.TimerHandle | None = None
        _timed_cycle: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            if len(self.connections) >= limits.max_connections and not _evict_an_idle_one(self.connections, limits):
                self._refused = True
                limits.note("over the limit")
                transport.abort()
                return
            self.opened_at = self.loop.time()
            super().connection_made(transport)
            self._arm(limits.head_timeout, "too slow to send a request")

        def data_received(self, data: bytes) -> None:
            # uvicorn annotates `cycle` as always set, but it is None until the first request's head arrives.
            current = cast(RequestResponseCycle | None, self.cycle)
            if self._deadline is None and (current is None or current.response_complete):
                self._arm(limits.head_timeout, "too slow to send a request")  # the next request's head
            super().data_received(data)
            cycle = cast(RequestResponseCycle | None, self.cycle)
            if cycle is None or cycle.response_complete:
                return
            if cycle is not self._timed_cycle:  # its head is whole: now its body
                self._timed_cycle = cycle
                self._disarm()
                if cycle.more_body:
                    self._arm(limits.body_timeout, "too slow to send a body")
            elif not cycle.more_body:
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            self._disarm()
            super().connection_lost(exc)

        def _arm(self, seconds: float, why: str) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._too_slow, why)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self, why: str) -> None:
            self._deadline = None
            limits.note(why)
            self.transport.abort()

    return GuardedH11Protocol
