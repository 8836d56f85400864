"""`engrain serve --transport http|sse` as a subprocess, and MCP clients that carry a bearer token."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from mcp import Client

from tests.conftest import engrain_env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Running:
    url: str
    process: subprocess.Popen[str]
    log: Path

    @property
    def mcp(self) -> str:
        return f"{self.url}/mcp"

    def logs(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def http_server(
    database_url: str | None,
    home: Path,
    tokens: dict[str, str] | Path,
    transport: str = "http",
    args: tuple[str, ...] = (),
    **env: str,
) -> Iterator[Running]:
    """Start the server and wait for /healthz to answer ok; stop it (SIGTERM) afterwards.
    Without a database URL the server starts the embedded Postgres in `home`; `tokens` is the mapping,
    or a file that holds it."""
    port = free_port()
    log = home / f"server-{port}.log"
    home.mkdir(parents=True, exist_ok=True)
    setting = str(tokens) if isinstance(tokens, Path) else ",".join(f"{t}:{u}" for t, u in tokens.items())
    environment = engrain_env(home, ENGRAIN_TOKENS=setting, **env)
    if database_url:
        environment["ENGRAIN_DATABASE_URL"] = database_url
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "engrain", "serve", "--transport", transport, "--port", str(port), *args],
            env=environment,
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
        )
    running = Running(f"http://127.0.0.1:{port}", process, log)
    try:
        deadline = time.monotonic() + 120  # a first embedded start runs initdb
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited: {running.logs()[-2000:]}")
            try:
                if httpx.get(f"{running.url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server not healthy in 120 s: {running.logs()[-2000:]}")
            time.sleep(0.1)
        yield running
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def http_client(url: str, token: str | None) -> Client:
    """A streamable-HTTP MCP client sending `Authorization: Bearer <token>`."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30)))


def sse_client(url: str, token: str | None) -> Client:
    from mcp.client.sse import sse_client as transport

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client(transport(url, headers=headers))
