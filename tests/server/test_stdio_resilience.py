"""The stdio server keeps serving whatever a client writes: any nesting depth, an over-long line, and a
client that writes requests without reading the answers (issue 23, items 4 and 8)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from engrain.server.stdio import MAX_LINE_BYTES
from tests.conftest import engrain_env, initialize_request

INITIALIZE = initialize_request(0)


class Raw:
    """A stdio client that writes and reads raw lines."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.wanted = threading.Semaphore(0)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        """Read stdout only while a test reads: a test that stops reading leaves the pipe to fill."""
        assert self.process.stdout is not None
        while True:
            self.wanted.acquire()
            line = self.process.stdout.readline()
            self.lines.put(line)
            if not line:
                return

    def write(self, line: str | bytes | dict) -> None:
        data = line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def read(self, timeout: float = 60.0) -> dict:
        self.wanted.release()
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout:.0f} s") from None
        assert line, f"the server closed stdout (exit {self.process.poll()})"
        return json.loads(line)

    def tools_list(self, request_id: int) -> None:
        self.write({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})


@contextmanager
def raw_server(pg_url: str, home: Path) -> Iterator[Raw]:
    env = engrain_env(home, ENGRAIN_DATABASE_URL=pg_url, ENGRAIN_USER="raw-stdio")
    process = subprocess.Popen(
        [sys.executable, "-m", "engrain", "serve"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    raw = Raw(process)
    try:
        raw.write(INITIALIZE)
        assert raw.read()["id"] == 0
        raw.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield raw
    finally:
        process.kill()
        process.wait()


def nested(depth: int, opener: str, request_id: int | None) -> str:
    """A line nested `depth` deep: arrays, or objects whose only key holds the next level."""
    prefix = f'{{"jsonrpc": "2.0", "id": {request_id}, "params": ' if request_id is not None else ""
    suffix = "}" if request_id is not None else ""
    body = "[" * depth + "]" * depth if opener == "[" else '{"a": ' * depth + "1" + "}" * depth
    return prefix + body + suffix


@pytest.mark.parametrize("opener", ["[", "{"])
def test_any_depth_gets_an_error_and_the_server_goes_on(pg_url, tmp_path, opener):
    with raw_server(pg_url, tmp_path) as raw:
        for n, depth in enumerate((1_000, 10_000, 1_000_000)):
            for request_id in (None, 100 + n):
                raw.write(nested(depth, opener, request_id))
                answer = raw.read()
                assert answer["error"]["code"] in (-32700, -32600), answer
                assert answer["id"] == request_id
        raw.write("[" * 20_000)  # unclosed
        assert raw.read()["error"]["code"] == -32700
        raw.tools_list(1)
        answer = raw.read()
        assert answer["id"] == 1 and len(answer["result"]["tools"]) >= 8


def test_an_over_long_line_is_refused_and_not_kept(pg_url, tmp_path):
    with raw_server(pg_url, tmp_path) as raw:
        padding = "x" * (MAX_LINE_BYTES + 10)
        raw.write(f'{{"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {{"p": "{padding}"}}}}')
        answer = raw.read()
        assert answer["id"] == 9 and answer["error"]["code"] == -32600
        assert "exceeds" in answer["error"]["message"]
        raw.tools_list(2)
        assert raw.read()["id"] == 2
        assert psutil.Process(raw.process.pid).memory_info().rss < 2 * MAX_LINE_BYTES + 400e6


def test_a_client_that_does_not_read_cannot_make_the_server_grow(pg_url, tmp_path):
    """5,000 requests written and none read: the server stops reading (its answers are not taken), so
    the writer blocks instead of the server's memory growing; every request is answered once read."""
    count = 5_000
    with raw_server(pg_url, tmp_path) as raw:
        # Warm first: the database, the language identifier and the date reader load on first use or in
        # the background, and their memory is not what this test measures.
        remember = {"name": "remember", "arguments": {"content": "I water the plants next Friday"}}
        raw.write({"jsonrpc": "2.0", "id": -1, "method": "tools/call", "params": remember})
        assert raw.read()["id"] == -1
        time.sleep(2)
        server = psutil.Process(raw.process.pid)
        before = server.memory_info().rss
        written = 0

        def flood() -> None:
            nonlocal written
            for i in range(count):
                raw.tools_list(i)
                written += 1

        writer = threading.Thread(target=flood, daemon=True)
        writer.start()
        time.sleep(8)  # what the server would read meanwhile, unbounded, it would hold in memory
        grown = server.memory_info().rss - before
        blocked_at = written
        assert blocked_at < count, "the server read everything without anyone reading its answers"
        assert grown < 100e6, f"the server grew by {grown / 1e6:.0f} MB"
        seen = {raw.read()["id"] for _ in range(count)}
        writer.join(timeout=30)
        assert seen == set(range(count))
