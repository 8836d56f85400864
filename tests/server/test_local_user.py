"""One memory per person on one machine (services/memories/local_user.py): every local entry point — mcp.json's entry,
the README's Inspector and Claude Code lines, the CLI — speaks for the same user unless the person names
another; a home whose memories an older default made under the OS user's name keeps them in view; the two
memories older defaults made are joined by `engrain merge-users`; a session whose user holds nothing while the
home holds another's says so."""

from __future__ import annotations

import getpass
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from engrain.services.memories.local_user import DEFAULT_USER, choose
from tests.conftest import engrain_env

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


def test_the_default_is_one_name_unless_an_older_default_holds_the_memories():
    assert choose(None, "alice", {}).name == DEFAULT_USER
    assert choose(None, "alice", {DEFAULT_USER: 3}).name == DEFAULT_USER
    older = choose(None, "alice", {"alice": 5})
    assert (older.name, older.source, older.holds) == ("alice", "older default", 5)
    assert "older engrain" in (older.notice() or "")
    both = choose(None, "alice", {DEFAULT_USER: 2, "alice": 5})
    assert both.name == DEFAULT_USER and both.others == {"alice": 5}
    assert "merge-users alice me" in (both.notice() or "")
    named = choose("bob", "alice", {DEFAULT_USER: 2})
    assert (named.name, named.source, named.holds) == ("bob", "named", 0)
    assert "no memories for 'bob' yet" in (named.notice() or "") and "'me' (2)" in (named.notice() or "")
    assert choose(None, "alice", {DEFAULT_USER: 1}).notice() is None


def server(home: Path, database_url: str, **env: str) -> StdioServerParameters:
    full = engrain_env(home, ENGRAIN_DATABASE_URL=database_url) | env  # no ENGRAIN_USER unless given
    return StdioServerParameters(command=sys.executable, args=["-m", "engrain", "serve"], env=full)


def cli(home: Path, database_url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = engrain_env(home, ENGRAIN_DATABASE_URL=database_url) | env
    return subprocess.run(
        [sys.executable, "-m", "engrain", *args], env=full, capture_output=True, text=True, timeout=180, check=False
    )


async def remember(params: StdioServerParameters, content: str) -> str:
    async with Client(params) as client:
        stored = await client.call_tool("remember", {"content": content})
        assert not stored.is_error, stored.content
        return stored.structured_content["id"]


async def recall(params: StdioServerParameters, query: str) -> tuple[list[str], str]:
    async with Client(params) as client:
        found = await client.call_tool("recall", {"query": query})
        assert not found.is_error, found.content
        return [r["id"] for r in found.structured_content["results"]], found.content[0].text


async def test_mcp_json_and_the_readme_lines_share_one_memory(tmp_path, fresh_database_url):
    entry = json.loads((ROOT / "mcp.json").read_text())["mcpServers"]["engrain"]
    as_in_mcp_json = server(tmp_path, fresh_database_url, **entry.get("env", {}))
    stored = await remember(as_in_mcp_json, "I live in Lisbon, near the river")
    # The README's Inspector and Claude Code lines start `engrain serve` with no environment of their own.
    readme = (ROOT / "README.md").read_text()
    assert "--cli engrain serve --method tools/list" in readme and "claude mcp add" in readme
    ids, text = await recall(server(tmp_path, fresh_database_url), "where do I live?")
    assert ids[:1] == [stored]
    assert "holds memories of" not in text  # one user: nothing to say
    status = cli(tmp_path, fresh_database_url, "status", "--json")
    assert json.loads(status.stdout)["user"] == DEFAULT_USER, status.stderr


async def test_an_older_default_keeps_its_memories_until_they_are_merged(tmp_path, fresh_database_url):
    system_user = getpass.getuser()
    older = await remember(
        server(tmp_path, fresh_database_url, ENGRAIN_USER=system_user), "My sister Ana lives in Porto"
    )
    # No ENGRAIN_USER: the memories an older default made under the OS user's name are this machine's user's.
    ids, _ = await recall(server(tmp_path, fresh_database_url), "where does my sister live?")
    assert ids[:1] == [older]
    said = cli(tmp_path, fresh_database_url, "status", "--json")
    assert json.loads(said.stdout)["user"] == system_user and "older engrain" in said.stderr
    # An entry that names `me` (mcp.json of older engrains) made a second memory; the default is `me` again.
    mine = await remember(server(tmp_path, fresh_database_url, ENGRAIN_USER=DEFAULT_USER), "I work as a nurse")
    ids, text = await recall(server(tmp_path, fresh_database_url), "what is my job?")
    assert ids[:1] == [mine]
    assert f"engrain merge-users {system_user} {DEFAULT_USER}" in text  # the first recall says where the rest is
    merged = cli(tmp_path, fresh_database_url, "merge-users", system_user)
    assert merged.returncode == 0, merged.stderr
    assert "moved 1 memories" in merged.stdout
    ids, text = await recall(server(tmp_path, fresh_database_url), "where does my sister live?")
    assert ids[:1] == [older] and "merge-users" not in text
    again = cli(tmp_path, fresh_database_url, "merge-users", system_user)
    assert again.returncode == 1 and "holds nothing" in again.stderr


async def test_a_named_user_with_no_memories_is_told_where_the_home_s_are(tmp_path, fresh_database_url):
    await remember(server(tmp_path, fresh_database_url), "I play the cello on Sundays")
    await remember(server(tmp_path, fresh_database_url, ENGRAIN_USER="stranger"), "I keep bees")
    async with Client(server(tmp_path, fresh_database_url, ENGRAIN_USER="work")) as client:
        first = await client.call_tool("recall", {"query": "what instrument do I play?"})
        text = first.content[0].text
        assert "no memories for 'work' yet" in text and "'me' (1)" in text
        assert "stranger" not in text  # an external database may be shared: only this machine's names are said
        second = await client.call_tool("recall", {"query": "what instrument do I play?"})
        assert "no memories for" not in second.content[0].text  # once a session, not on every call
    said = cli(tmp_path, fresh_database_url, "status", ENGRAIN_USER="work")
    assert "no memories for 'work' yet" in said.stdout and said.returncode == 0


async def test_merge_refuses_a_user_into_itself(tmp_path, fresh_database_url):
    done = cli(tmp_path, fresh_database_url, "merge-users", DEFAULT_USER, DEFAULT_USER)
    assert done.returncode == 1 and "target" in done.stderr
