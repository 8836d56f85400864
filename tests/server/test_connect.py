"""`engrain connect <client>` through the real command line, with HOME and the config folders in a temporary
directory: the printed entry names an absolute, executable command that starts the server; --write merges it
into the client's file, keeping every other server and a backup, and refuses a file it cannot read."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from engrain.server.hooks import hooks_config
from tests.conftest import TOOLS, engrain_env

pytestmark = pytest.mark.anyio

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")
OTHERS = {"numStartups": 7, "projects": {"/src/app": {"mcpServers": {}}}, "tipsHistory": {"ü": 1}}
GITHUB = {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"T": "x"}}


def connect(home: Path, *args: str, python: str = sys.executable, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "engrain", "connect", *args],
        env=client_env(home) | env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def client_env(home: Path) -> dict[str, str]:
    """The user's folders in `home`, as a client's config locations are found from them."""
    env = {k: v for k, v in engrain_env(home / "engrain").items() if k != "CLAUDE_CONFIG_DIR"}
    return env | {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "APPDATA": str(home / "AppData")}


def entry(result: subprocess.CompletedProcess[str], key: str = "mcpServers") -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert list(document) == [key] and list(document[key]) == ["engrain"]
    return document[key]["engrain"]


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.engrain-backup-*"))


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux locations of the clients' files")
@pytest.mark.parametrize(
    ("client", "key", "typed", "file"),
    [
        ("claude-desktop", "mcpServers", False, ".config/Claude/claude_desktop_config.json"),
        ("claude-code", "mcpServers", True, ".claude.json"),
        ("cursor", "mcpServers", False, ".cursor/mcp.json"),
        ("vscode", "servers", True, ".config/Code/User/mcp.json"),
    ],
)
def test_every_client_gets_an_absolute_executable_command(tmp_path, client, key, typed, file):
    result = connect(tmp_path, client)
    printed = entry(result, key)
    command = Path(printed["command"])
    assert command.is_absolute() and os.access(command, os.X_OK)
    assert command == Path(sys.executable).parent / "engrain"  # this installation's console script, unresolved
    assert printed == ({"type": "stdio"} if typed else {}) | {"command": str(command), "args": ["serve"]}
    assert "env" not in printed  # the machine's one default user: no ENGRAIN_USER unless --user names one
    assert f"this goes in {tmp_path / file}" in result.stderr and "--write" in result.stderr
    if client == "claude-code":
        assert f"claude mcp add --scope user engrain -- {command} serve" in result.stderr
    assert not (tmp_path / file).exists()  # printing writes nothing


async def test_the_printed_claude_desktop_entry_starts_the_server(tmp_path, pg_url):
    printed = entry(connect(tmp_path, "claude-desktop"))
    env = engrain_env(tmp_path / "engrain", ENGRAIN_DATABASE_URL=pg_url)
    params = StdioServerParameters(command=printed["command"], args=printed["args"], env=env)
    async with Client(params) as client:
        assert {t.name for t in (await client.list_tools()).tools} == set(TOOLS)


def test_write_creates_the_file_once(tmp_path):
    path = tmp_path / ".config" / "Claude" / "claude_desktop_config.json"
    printed = connect(tmp_path, "claude-desktop")
    written = connect(tmp_path, "claude-desktop", "--write")
    assert written.returncode == 0, written.stderr
    assert f"into {path} (a new file)" in written.stdout
    assert json.loads(path.read_text()) == json.loads(printed.stdout)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and not backups(path)

    again = connect(tmp_path, "claude-desktop", "--write")
    assert again.returncode == 0 and f"{path} already holds this entry; nothing changed" in again.stdout
    assert not backups(path) and json.loads(path.read_text()) == json.loads(printed.stdout)


def test_write_keeps_every_other_server_and_key_and_a_backup(tmp_path):
    path = tmp_path / ".claude.json"
    before = json.dumps(OTHERS | {"mcpServers": {"github": GITHUB}}, ensure_ascii=False)
    path.write_text(before, encoding="utf-8")
    path.chmod(0o640)

    written = connect(tmp_path, "claude-code", "--write", "--user", "me")
    assert written.returncode == 0, written.stderr
    after = json.loads(path.read_text(encoding="utf-8"))
    assert {k: v for k, v in after.items() if k != "mcpServers"} == OTHERS
    assert after["mcpServers"]["github"] == GITHUB and list(after["mcpServers"]) == ["github", "engrain"]
    assert after["mcpServers"]["engrain"]["env"] == {"ENGRAIN_USER": "me"}
    [backup] = backups(path)
    assert backup.read_text(encoding="utf-8") == before and f"(the file as it was: {backup})" in written.stdout
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(backup.stat().st_mode) == 0o640

    replaced = connect(tmp_path, "claude-code", "--write")  # an older engrain entry is replaced, nothing else
    assert replaced.returncode == 0, replaced.stderr
    final = json.loads(path.read_text(encoding="utf-8"))
    assert "env" not in final["mcpServers"]["engrain"] and final["mcpServers"]["github"] == GITHUB
    assert {k: v for k, v in final.items() if k != "mcpServers"} == OTHERS
    assert len(backups(path)) == 2 and before in {b.read_text(encoding="utf-8") for b in backups(path)}


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ('{"mcpServers": {"github": {"command": "npx",}}}', "not valid JSON (line 1"),
        ('// my servers\n{"servers": {}}', "not valid JSON"),
        ('["not", "an", "object"]', "holds list, not a JSON object"),
        ('{"servers": ["github"]}', '"servers" is not an object'),
    ],
)
def test_a_file_it_cannot_read_is_left_as_it_was(tmp_path, content, says):
    path = tmp_path / ".config" / "Code" / "User" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    result = connect(tmp_path, "vscode", "--write")
    assert result.returncode == 1 and says in result.stderr and "nothing was written" in result.stderr
    assert path.read_text() == content and not backups(path)
    assert [p.name for p in path.parent.iterdir()] == ["mcp.json"]  # no temporary file left either


def test_project_files(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for client, file, key in [
        ("claude-code", ".mcp.json", "mcpServers"),
        ("cursor", ".cursor/mcp.json", "mcpServers"),
        ("vscode", ".vscode/mcp.json", "servers"),
    ]:
        result = connect(tmp_path, client, "--write", "--project", str(project))
        assert result.returncode == 0 and str(project / file) in result.stdout, result.stderr
        assert list(json.loads((project / file).read_text())[key]) == ["engrain"]
    refused = connect(tmp_path, "claude-desktop", "--project", str(project))
    assert refused.returncode == 2 and "claude-desktop has no project configuration" in refused.stderr
    missing = connect(tmp_path, "cursor", "--project", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def test_user_and_settings_in_the_entry(tmp_path):
    result = connect(tmp_path, "claude-code", "--user", "me", "--env", "ENGRAIN_TIMEZONE=Europe/Lisbon")
    assert entry(result)["env"] == {"ENGRAIN_USER": "me", "ENGRAIN_TIMEZONE": "Europe/Lisbon"}
    assert "engrain -e ENGRAIN_USER=me -e ENGRAIN_TIMEZONE=Europe/Lisbon -- " in result.stderr  # the name before -e
    for args, says in [
        (["--env", "PATH=/usr/bin"], "only engrain's settings (ENGRAIN_*)"),
        (["--env", "ENGRAIN_TIMEZON=UTC"], "not a setting of engrain (did you mean ENGRAIN_TIMEZONE?)"),
        (["--env", "ENGRAIN_TIMEZONE=Europe/Lisbn"], "ENGRAIN_TIMEZONE: 'Europe/Lisbn' is not a known IANA time zone"),
        (["--env", "ENGRAIN_HOME"], "give KEY=VALUE"),
        (["--env", "ENGRAIN_USER=me"], "give the user with --user"),
        (["--user", " "], "--user: give a name"),
    ]:
        refused = connect(tmp_path, "cursor", "--write", *args)
        assert refused.returncode == 2 and says in refused.stderr, (args, refused.stderr)
    assert not (tmp_path / ".cursor").exists()


def test_an_unknown_client_is_a_usage_error(tmp_path):
    result = connect(tmp_path, "windsurf")
    assert result.returncode == 2 and "invalid choice: 'windsurf'" in result.stderr
    assert "claude-desktop" in result.stderr and "vscode" in result.stderr


@pytest.mark.skipif(os.name == "nt", reason="a POSIX virtualenv's layout")
def test_without_a_console_script_beside_python(tmp_path):
    """An interpreter with no `engrain` beside it (a virtualenv's python, a symlink, kept as it is): the
    `engrain` on PATH, else the interpreter itself with -m, which starts this installation too."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    shutil.copy(Path(sys.prefix) / "pyvenv.cfg", venv / "pyvenv.cfg")
    python = venv / "bin" / "python"
    python.symlink_to(os.path.realpath(sys.executable))
    site = next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    paths = os.pathsep.join([*os.environ.get("PYTHONPATH", "").split(os.pathsep), str(site)])
    bare = {"PYTHONPATH": paths, "PATH": str(tmp_path / "bin")}

    fallback = entry(connect(tmp_path, "cursor", python=str(python), **bare))
    assert fallback == {"command": str(python), "args": ["-m", "engrain.server.cli", "serve"]}
    version = subprocess.run(
        [str(python), "-m", "engrain.server.cli", "--version"], env=client_env(tmp_path) | bare, capture_output=True
    )
    assert version.returncode == 0 and version.stdout.startswith(b"engrain ")

    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "engrain").symlink_to(Path(sys.executable).parent / "engrain")
    on_path = entry(connect(tmp_path, "cursor", python=str(python), **bare))
    assert on_path == {"command": str(tmp_path / "bin" / "engrain"), "args": ["serve"]}


def test_claude_code_gets_the_hooks_in_its_settings_beside_the_users_own(tmp_path):
    """For those who do not use plugins: the plugin's hooks (server/hooks.HOOKS), run by this installation's
    `engrain hook`, merged into ~/.claude/settings.json; the user's own hooks and keys stay, an older engrain's
    hook is replaced, and writing again changes nothing."""
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {"type": "command", "command": "notify-send done"}
    older = {"type": "command", "command": "/opt/old/bin/engrain hook", "timeout": 3}
    before = {"model": "opus", "hooks": {"Stop": [{"hooks": [theirs, older]}]}}
    settings.write_text(json.dumps(before))

    written = connect(tmp_path, "claude-code", "--write", "--user", "me")
    assert written.returncode == 0, written.stderr
    assert f"wrote engrain's hooks into {settings}" in written.stdout
    after = json.loads(settings.read_text())
    command = f"ENGRAIN_USER=me {Path(sys.executable).parent / 'engrain'} hook"
    assert after["model"] == "opus"
    assert after["hooks"] == {
        event: ([{"hooks": [theirs]}] if event == "Stop" else []) + groups
        for event, groups in hooks_config(command).items()
    }
    again = connect(tmp_path, "claude-code", "--write", "--user", "me")
    assert f"{settings} already holds engrain's hooks; nothing changed" in again.stdout
    printed = connect(tmp_path, "claude-code")
    assert f"--write also adds engrain's hooks to {settings}" in printed.stderr
