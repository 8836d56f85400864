"""A loopback JSON HTTP server for faking the outside world's APIs (embeddings, LLMs) in tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# (path, lower-cased headers, JSON body) -> (status, JSON reply)
Responder = Callable[[str, dict[str, str], Any], tuple[int, Any]]


@contextmanager
def json_server(respond: Responder) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Serve `respond` on 127.0.0.1; yields the base URL and the list of requests received."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            headers = {k.lower(): v for k, v in self.headers.items()}
            seen.append({"path": self.path, "headers": headers, "body": body})
            status, reply = respond(self.path, headers, body)
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
