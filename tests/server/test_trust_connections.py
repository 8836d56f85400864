"""A socket flood does not silence the HTTP server (issue 23, item 5): idle and slow connections are
closed, connections stay below the open-file limit, and the log says so once with a count."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from tests.conftest import engrain_env, initialize_request
from tests.http_server import free_port

TOKEN = "flood-test-token-0123456789"
FILE_LIMIT = 256


@contextmanager
def limited_server(pg_url: str, home: Path) -> Iterator[tuple[str, Path]]:
    """The HTTP server with at most FILE_LIMIT open files (soft and hard), short head and idle timeouts."""
    port = free_port()
    home.mkdir(parents=True, exist_ok=True)
    log = home / "server.log"
    env = engrain_env(
        home,
        ENGRAIN_DATABASE_URL=pg_url,
        ENGRAIN_TOKENS=f"{TOKEN}:flood-user",
        ENGRAIN_HTTP_HEAD_TIMEOUT="2",
        ENGRAIN_HTTP_IDLE_TIMEOUT="2",
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))

    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "engrain", "serve", "--transport", "http", "--port", str(port)],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            preexec_fn=limit,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        yield url, log
    finally:
        process.terminate()
        process.wait(timeout=20)


def legitimate_call(url: str) -> bool:
    try:
        response = httpx.post(
            f"{url}/mcp",
            json=initialize_request(),
            headers={
                "Authorization": f"Bearer {TOKEN}",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            },
            timeout=10,
        )
    except httpx.HTTPError:
        return False
    return response.status_code == 200


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


@pytest.mark.parametrize("kind", ["idle", "slowloris"])
def test_a_flood_of_connections_leaves_the_server_answering(pg_url, tmp_path, kind):
    with limited_server(pg_url, tmp_path) as (url, log):
        host, port = url.removeprefix("http://").split(":")
        flood: list[socket.socket] = []
        for _ in range(FILE_LIMIT + 100):  # more than the server could hold open
            try:
                flood.append(socket.create_connection((host, int(port)), timeout=5))
            except OSError:
                break
        if kind == "slowloris":
            for _ in range(4):  # a byte of a request head every half second, never finished
                for sock in flood:
                    with suppress(OSError):
                        sock.sendall(b"G")
                time.sleep(0.5)
        assert sum(legitimate_call(url) for _ in range(3)) == 3
        time.sleep(4)  # past the 2 s head timeout
        closed = sum(closed_by_server(sock) for sock in flood)
        assert closed == len(flood), f"{closed} of {len(flood)} closed"
        assert sum(legitimate_call(url) for _ in range(3)) == 3
        for sock in flood:
            sock.close()
        text = log.read_text()
        assert "Too many open files" not in text
        assert text.count("closed HTTP connections") <= 3  # once per 10 s, with a count
        assert len(text) < 100_000


def test_a_repeated_failure_is_logged_once_with_a_count():
    import logging

    from engrain.logs import RepeatsOnce

    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    logger = logging.getLogger("engrain.test.repeats")
    handler = Keep()
    handler.addFilter(RepeatsOnce(window=10.0))
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        for attempt in range(5_000):
            logger.error("accept failed: %s", f"attempt {attempt}")
        logger.info("an ordinary line")
        assert seen == ["accept failed: attempt 0", "an ordinary line"]
        record = logger.makeRecord(logger.name, logging.ERROR, __file__, 1, "accept failed: %s", ("later",), None)
        record.created += 11
        logger.handle(record)
        assert seen[-1] == "accept failed: later (and 4999 more like it in the last 10 s)"
    finally:
        logger.removeHandler(handler)
