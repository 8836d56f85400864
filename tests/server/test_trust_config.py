"""Clear errors at the door (issue 23, items 12, 13, 14, 16): settings checked at start-up, one token for
one user, CLI commands that say whose data they read, strict integers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engrain.server.tokens import TokenError, parse_tokens
from tests.conftest import ROOT, call, call_error, engrain_env

pytestmark = pytest.mark.anyio


def engrain(home: Path, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engrain", *args],
        env=engrain_env(home, **env),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("ENGRAIN_TIMEZONE", "Europe/Lisbn", "IANA time zone"),
        ("ENGRAIN_DATABASE_URL", "mysql://root:hunter2@db/engrain", "PostgreSQL URL"),
        ("ENGRAIN_DATABASE_URL", "not a url", "PostgreSQL URL"),
        ("ENGRAIN_EMBEDDER", "sentence-transformer", "use auto, hash"),
        ("ENGRAIN_LLM", "gpt-4", "use auto, none"),
        ("ENGRAIN_LLM_BASE_URL", "localhost:11434", "http(s) URL"),
        ("ENGRAIN_RECALL_TIMEOUT_MS", "fast", "integer"),
    ],
)
@pytest.mark.parametrize("command", [("serve",), ("status",)])
def test_a_bad_setting_refuses_to_start_with_one_line(tmp_path, variable, value, says, command):
    done = engrain(tmp_path, *command, **{variable: value})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert variable in lines[0] and says in lines[0]
    assert "hunter2" not in done.stderr  # a URL's password is never echoed


async def test_a_good_timezone_still_serves(settings_factory):
    from tests.conftest import connect

    async with connect(settings_factory(timezone="Europe/Lisbon")) as (client, _):
        assert (await call(client, "remember", content="I go to the market on Saturday"))["status"] == "created"


@pytest.mark.parametrize(
    "setting",
    [
        "alpha-token-0123456789:alice,beta-token-0123456789:bob,alpha-token-0123456789:carol",
        '{"alpha-token-0123456789": "alice", "beta-token-0123456789": "bob", "alpha-token-0123456789": "carol"}',
    ],
)
def test_a_token_given_to_two_users_is_refused_by_position(setting):
    with pytest.raises(TokenError) as refused:
        parse_tokens(setting)
    message = str(refused.value)
    assert "entry 3" in message and "entry 1" in message
    assert "alpha-token" not in message


def test_the_http_server_refuses_a_shared_token(tmp_path):
    done = engrain(
        tmp_path,
        "serve",
        "--transport",
        "http",
        "--port",
        "1",
        ENGRAIN_TOKENS="alpha-token-0123456789:alice,alpha-token-0123456789:bob",
    )
    assert done.returncode == 2 and "entry 2" in done.stderr and "alpha-token" not in done.stderr


def test_status_reads_the_user_it_is_told_and_says_which(pg_url, tmp_path):
    env = {"ENGRAIN_DATABASE_URL": pg_url, "ENGRAIN_USER": "me-status-test"}
    done = engrain(tmp_path, "status", **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "engrain status: user 'me-status-test' (from ENGRAIN_USER)"
    whole = engrain(tmp_path, "status", "--json", **env)
    assert json.loads(whole.stdout)["user"] == "me-status-test"
    assert "'me-status-test'" in whole.stderr and "ENGRAIN_USER" in whole.stderr
    other = engrain(tmp_path, "status", "--json", "--user", "someone-else", **env)
    assert json.loads(other.stdout)["user"] == "someone-else" and "--user" in other.stderr


def test_mcp_json_names_no_user_so_every_local_client_shares_one():
    """mcp.json's entry, like the README's Inspector and Claude Code lines, leaves the user to the machine's one
    local user (services/memories/local_user.py; tests/server/test_local_user.py runs them against one home)."""
    entry = json.loads((ROOT / "mcp.json").read_text())["mcpServers"]["engrain"]
    assert "ENGRAIN_USER" not in entry.get("env", {})


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("recall", {"query": "anything", "limit": True}),
        ("recall", {"query": "anything", "max_tokens": True}),
        ("remember", {"content": "A note", "importance": True}),
        ("remember_many", {"items": [{"content": "A note", "importance": True}]}),
        ("get_user_traits", {"limit": True}),
    ],
)
async def test_true_is_not_an_integer(session, tool, args):
    client, _ = session
    error = await call_error(client, tool, **args)
    assert "integer" in error


def _inline(users: int) -> str:
    return ",".join(f"token-{n:02d}-{'x' * 24}:user{n}" for n in range(users))


@pytest.mark.parametrize(
    "setting",
    [
        _inline(8),  # the README form `token:user,…` for eight users (over 255 characters)
        json.dumps({f"token-{n:03d}-{'y' * 24}": f"user{n}" for n in range(10)}),  # JSON of 400 characters
        json.dumps({f"token-{n:03d}-{'z' * 40}": f"user{n}" for n in range(70)}),  # and of 4,000
    ],
)
def test_an_inline_mapping_is_never_taken_for_a_file_name(setting):
    """Issue 39: an inline mapping longer than a file name crashed the server at start with `OSError: [Errno
    36] File name too long: '<the whole setting>'`, every token of every user in the log. Its form now says
    it is a mapping; the file system is never asked about it."""
    from engrain.server.tokens import StaticTokenVerifier

    verifier = StaticTokenVerifier.from_setting(setting)
    first = next(iter(json.loads(setting))) if setting.startswith("{") else setting.split(":")[0]
    assert verifier.user_of(first) in ("user0", "user00")


def test_a_token_file_is_read_and_a_missing_one_is_named_without_its_tokens(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("# team\nalpha-token-0123456789:alice\n")
    assert parse_tokens(str(tokens)) == {"alpha-token-0123456789": "alice"}
    with pytest.raises(TokenError, match="does not exist"):
        parse_tokens(str(tmp_path / "missing"))


def test_a_server_refused_for_its_tokens_prints_none_of_them(tmp_path):
    """Six users inline, one of them with a short token: one line naming the user, no token in it."""
    setting = _inline(5) + ",short:mallory"
    done = engrain(tmp_path, "serve", "--transport", "http", "--port", "1", ENGRAIN_TOKENS=setting)
    assert done.returncode == 2 and "mallory" in done.stderr and "at least 16" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "token-0" not in done.stderr and "short" not in done.stderr.split("'mallory'")[1]


def test_a_misspelt_setting_is_named_with_the_one_it_meant(pg_url, tmp_path):
    """ENGRAIN_TIMEZON was ignored without a word; the server ran on the machine's zone."""
    done = engrain(tmp_path, "status", ENGRAIN_DATABASE_URL=pg_url, ENGRAIN_TIMEZON="Europe/Lisbon")
    assert done.returncode == 0
    assert "ENGRAIN_TIMEZON is not a setting of engrain (did you mean ENGRAIN_TIMEZONE?)" in done.stderr


def test_engrain_says_its_version(tmp_path):
    from engrain import __version__

    done = engrain(tmp_path, "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"engrain {__version__}"
