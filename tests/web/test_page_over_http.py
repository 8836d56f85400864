"""The page over HTTP is as safe as /mcp (issue 39): a session lives only as long as its token stands for its
user, the Host and Origin are checked as on /mcp, the sign-in refuses a form from another site, sessions are
bounded per user, and /ui leads to the page. A real `engrain serve --transport http` with a tokens file."""

from __future__ import annotations

import re
import time
import uuid

import httpx
import pytest

from tests.http_server import http_server

pytestmark = pytest.mark.anyio


def _signed_in(http: httpx.Client, token: str) -> str:
    """Sign in with `token`; return the CSRF token of the session."""
    done = http.post("/ui/signin", data={"token": token}, headers={"Origin": str(http.base_url).rstrip("/")})
    assert done.status_code == 303, done.text
    page = http.get("/ui/memories")
    assert page.status_code == 200
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def _wait_for_reload() -> None:
    time.sleep(1.5)  # the tokens file is read again at most every second (StaticTokenVerifier.RELOAD_SECONDS)


def test_a_session_ends_with_its_token_and_follows_its_owner(pg_url, tmp_path):
    """A token removed from the tokens file was refused by MCP within seconds, but its open /ui session still read,
    exported and forgot; a token given to another user still showed the old name."""
    tag = uuid.uuid4().hex[:8]
    alice, bob = f"alice-{tag}", f"bob-{tag}"
    tokens = tmp_path / "tokens"
    tokens.write_text(f"token-alice-{tag}:{alice}\ntoken-bob-{tag}:{bob}\n")
    with (
        http_server(pg_url, tmp_path / "home", tokens) as running,
        httpx.Client(base_url=running.url) as a,
        httpx.Client(base_url=running.url) as b,
    ):
        _signed_in(a, f"token-alice-{tag}")
        _signed_in(b, f"token-bob-{tag}")
        tokens.write_text(f"token-bob-{tag}:{alice}\n")  # alice's token removed; bob's now names alice
        _wait_for_reload()
        for http in (a, b):
            for path in ("/ui/", "/ui/memories", "/ui/export"):
                shown = http.get(path)
                assert shown.status_code in (303, 307) or "/ui/signin" in str(shown.url), (path, shown.status_code)
                assert alice not in shown.text and bob not in shown.text
        assert a.post("/ui/memories/00000000-0000-0000-0000-000000000000/forget", data={}).status_code == 403


def test_the_page_checks_host_and_origin_as_mcp_does(pg_url, tmp_path):
    tag = uuid.uuid4().hex[:8]
    with (
        http_server(pg_url, tmp_path / "home", {f"token-alice-{tag}": f"alice-{tag}"}) as running,
        httpx.Client(base_url=running.url) as http,
    ):
        bearer = {"Authorization": f"Bearer token-alice-{tag}"}
        assert http.post("/mcp", json={}, headers={"Host": "evil.example", **bearer}).status_code == 421
        for path in ("/ui/", "/ui/signin", "/ui/static/ui.css"):
            assert http.get(path, headers={"Host": "evil.example"}).status_code == 421, path
        signin = http.post(
            "/ui/signin", data={"token": f"token-alice-{tag}"}, headers={"Origin": "http://evil.example"}
        )
        assert signin.status_code == 403 and "engrain_session" not in signin.headers.get("set-cookie", "")
        assert http.get("/ui", follow_redirects=False).headers["location"] == "/ui/"
        assert http.get("/ui", follow_redirects=True).status_code == 200  # the sign-in page, not a 404


def test_another_users_sign_ins_never_end_a_session(pg_url, tmp_path):
    """Another token holder's many sign-ins evicted a user's session (one bound for all sessions)."""
    tag = uuid.uuid4().hex[:8]
    tokens = {f"token-alice-{tag}": f"alice-{tag}", f"token-bob-{tag}": f"bob-{tag}"}
    with (
        http_server(pg_url, tmp_path / "home", tokens) as running,
        httpx.Client(base_url=running.url) as alice,
        httpx.Client(base_url=running.url) as bob,
    ):
        _signed_in(alice, f"token-alice-{tag}")
        for _ in range(1_050):
            done = bob.post("/ui/signin", data={"token": f"token-bob-{tag}"}, headers={"Origin": running.url})
            assert done.status_code == 303
        assert alice.get("/ui/memories").status_code == 200
        assert f"alice-{tag}" in alice.get("/ui/").text
