"""Writers of long memories' windows (storage/windows.set_windows) never deadlock, through the real database.

Two passes write windows in the background: the one for memories just stored (services/memories/reembedding
window_soon) and a server's start-up pass over the long memories with none (window_missing). Both wake when writes
pause, so they pick the same memories, each in its own order (a bench on a long chat, beam-1 of BEAM-500K: each
waited for the other's window rows, and once each held a row the other wanted: "deadlock detected" in a background
task). A forget of long memories runs against them too: the pass waited for a memory the forget was deleting, and
then either the forget waited for a window the pass had written (a deadlock) or, once the forget committed, the
pass failed its foreign key.

Each test plays two transactions step by step, in the conflicting order, on two connections: a step that must wait
is started, and the other goes on once the database shows it waiting (pg_blocking_pids). The server
is a `page` one, which runs no start-up pass: the only writers of these windows are the test's two transactions."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import anyio
import pytest
from mcp import Client
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from engrain.config import Settings
from engrain.server.app import create_server
from engrain.server.state import AppState
from engrain.storage import memories as repo
from engrain.storage import windows as windows_repo
from engrain.storage.sqltext import vector_literal
from tests.conftest import call, model_loaded, scalar

pytestmark = pytest.mark.anyio
LONG = "I keep my notes on the garden in a binder. " * 12  # over WINDOWED_CHARS: a memory with windows


@asynccontextmanager
async def _page(settings: Settings) -> AsyncIterator[tuple[Client, AppState]]:
    """A client of a server with no start-up pass of its own (server/state.AppState._settle)."""
    app = AppState(settings, role="page")
    async with Client(create_server(app)) as client:
        await model_loaded(app)
        yield client, app


async def _stored(client, app: AppState) -> list[windows_repo.Key]:
    """Two long memories of the test's user, with their windows (a pass writing them again rewrites those rows)."""
    stored = await call(client, "remember_many", items=[{"content": f"{n}. {LONG}"} for n in (1, 2)])
    await app.reembedding.windows_settled()
    return [(app.settings.user, uuid.UUID(r["id"])) for r in stored["results"]]


async def _write_windows(app: AppState, s: AsyncSession, keys: list[windows_repo.Key]) -> None:
    """One window each for `keys`, as the passes write them."""
    used, vectors = await app.embeddings.embed([LONG] * len(keys))
    await windows_repo.set_windows(
        s, used.id, len(vectors[0]), keys, [0] * len(keys), [vector_literal(v) for v in vectors]
    )


async def _pid(s: AsyncSession) -> int:
    return int((await s.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def _blocked_or_done(app: AppState, pid: int, done: anyio.Event) -> None:
    """Until the backend `pid` waits for a lock (the other transaction's: the server runs no pass of its own), or
    its step is done."""
    while not done.is_set():
        if await scalar(app, "SELECT cardinality(pg_blocking_pids(:p)) > 0", p=pid):
            return
        await anyio.sleep(0.02)


async def _interleave(
    app: AppState,
    first: Callable[[AsyncSession], Awaitable[None]],
    second_first: Callable[[AsyncSession], Awaitable[None]],
    first_again: Callable[[AsyncSession], Awaitable[None]],
    second_again: Callable[[AsyncSession], Awaitable[None]],
) -> list[BaseException]:
    """Transaction A runs `first`; B starts and runs `second_first`; once B is done or waits, A runs `first_again`
    (while B waits or not) and commits; B runs `second_again` and commits. Returns the errors raised."""
    db = await app.database()
    errors: list[BaseException] = []
    b_step, b_done = anyio.Event(), anyio.Event()
    pid: list[int] = []

    async def b() -> None:
        try:
            async with db.sessions.begin() as s:
                pid.append(await _pid(s))
                b_step.set()
                await second_first(s)
                b_done.set()
                await second_again(s)
        except Exception as exc:  # the test reports what either transaction raised
            errors.append(exc)
        finally:
            b_done.set()

    async with anyio.create_task_group() as tg:
        try:
            async with db.sessions.begin() as s:
                await first(s)
                tg.start_soon(b)
                await b_step.wait()
                await _blocked_or_done(app, pid[0], b_done)
                await first_again(s)
        except Exception as exc:
            errors.append(exc)
    return errors


async def test_two_passes_writing_the_same_windows_in_opposite_orders_do_not_deadlock(settings_factory):
    async with _page(settings_factory()) as (client, app):
        x, y = await _stored(client, app)
        errors = await _interleave(
            app,
            lambda s: _write_windows(app, s, [x]),
            lambda s: _write_windows(app, s, [y]),
            lambda s: _write_windows(app, s, [y]),
            lambda s: _write_windows(app, s, [x]),
        )
        assert errors == []
        for key in (x, y):
            assert await scalar(app, "SELECT count(*) FROM memory_windows WHERE id = :i", i=key[1]) > 1


async def test_a_forget_of_memories_being_windowed_leaves_them_out(settings_factory):
    now = datetime.now(UTC)
    async with _page(settings_factory()) as (client, app):
        x, y = await _stored(client, app)

        async def forget(s: AsyncSession, key: windows_repo.Key) -> None:
            await repo.erase_ids(s, key[0], [key[1]], now, "user_request")

        async def nothing(s: AsyncSession) -> None:
            return None

        # A forgets y, the pass writes x's and y's windows, A forgets x too.
        errors = await _interleave(
            app,
            lambda s: forget(s, y),
            lambda s: _write_windows(app, s, [x, y]),
            lambda s: forget(s, x),
            nothing,
        )
        assert errors == []
        assert await scalar(app, "SELECT count(*) FROM memories WHERE id = ANY(:ids)", ids=[x[1], y[1]]) == 0
        assert await scalar(app, "SELECT count(*) FROM memory_windows WHERE id = ANY(:ids)", ids=[x[1], y[1]]) == 0
