"""DNS-rebinding protection on every bind, 0.0.0.0 included (issue 23, item 6)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.conftest import initialize_request
from tests.http_server import http_server

TOKEN = f"tok-origin-{uuid.uuid4().hex}"
INITIALIZE = initialize_request()


def post(url: str, **headers: str) -> int:
    base = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    with httpx.Client(timeout=10) as client:
        return client.post(f"{url}/mcp", json=INITIALIZE, headers=base | headers).status_code


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1"])
def test_a_foreign_origin_or_host_is_refused_on_every_bind(pg_url, tmp_path, host):
    with http_server(pg_url, tmp_path, {TOKEN: "origin-user"}, args=("--host", host)) as server:
        assert post(server.url) == 200
        assert post(server.url, Origin="http://localhost:3000") == 200
        assert post(server.url, Origin="http://evil.example") == 403
        assert post(server.url, Host="evil.example") == 421


def test_allowed_hosts_and_origins_come_from_settings(pg_url, tmp_path):
    settings = {"ENGRAIN_ALLOWED_ORIGINS": "https://app.example", "ENGRAIN_ALLOWED_HOSTS": "memory.example:*"}
    with http_server(pg_url, tmp_path, {TOKEN: "origin-user"}, args=("--host", "0.0.0.0"), **settings) as server:
        assert post(server.url, Origin="https://app.example") == 200
        assert post(server.url, Origin="http://evil.example") == 403
        assert post(server.url, Host="memory.example:8765") == 200
        assert post(server.url, Host="evil.example:8765") == 421
