"""`engrain connect <client>`: the entry an MCP client needs to start this installation's server, and its
merge into the client's own config file.

A desktop client starts the server without the user's shell, so a bare `"command": "engrain"` is not
found (Claude Desktop: `spawn engrain ENOENT`); the entry names this installation's executable by its
absolute path. The merge changes one key, `engrain`, of the file's servers and nothing else: these files
hold the user's other servers (and, for Claude Code, its whole state), so a file engrain cannot read as the
client's JSON is refused, not rewritten, and the file as it was is kept beside it first."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

SERVER = "engrain"  # the entry's key among the client's servers
SERVE = ("serve",)
NEW_FILE_MODE = 0o600  # a config file may carry a database password or an API key


class ConnectError(Exception):
    """A config file engrain will not change: unreadable, not JSON, or not the shape its client reads."""


@dataclass(frozen=True)
class Launcher:
    """How a client starts this installation's stdio server."""

    command: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Client:
    """Where a client reads its stdio servers, and how it writes one."""

    name: str
    servers_key: str  # "mcpServers", or VS Code's "servers"
    typed: bool  # the entry names its transport ("type": "stdio"), as the client's own writer does
    user_file: Callable[[], Path]  # the file the client reads for every project
    project_file: Callable[[Path], Path] | None  # the file inside a project folder, if the client has one
    adder: Callable[[Launcher, Mapping[str, str]], str] | None = None  # the client's own command for its user file

    def document(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """The smallest config file that holds the entry: what is printed, and what a new file holds."""
        return {self.servers_key: {SERVER: dict(entry)}}

    def entry(self, launcher: Launcher, env: Mapping[str, str]) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "stdio"} if self.typed else {}
        entry |= {"command": launcher.command, "args": list(launcher.args)}
        if env:
            entry["env"] = dict(env)
        return entry

    def command(self, launcher: Launcher, env: Mapping[str, str]) -> str | None:
        return self.adder(launcher, env) if self.adder else None

    def config_file(self, project: Path | None) -> Path:
        if project is None:
            return self.user_file()
        if self.project_file is None:
            raise ConnectError(f"--project: {self.name} has no project configuration; leave it out")
        folder = project.expanduser().absolute()
        if not folder.is_dir():
            raise ConnectError(f"--project {folder}: no such folder")
        return self.project_file(folder)


def _app_settings() -> Path:
    """Where desktop apps keep their settings: %APPDATA%, ~/Library/Application Support, or XDG's config home."""
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(xdg) if os.path.isabs(xdg) else Path.home() / ".config"  # the spec ignores a relative one


def _claude_code_user() -> Path:
    """Claude Code's user scope: the top-level `mcpServers` of ~/.claude.json (in CLAUDE_CONFIG_DIR when set)."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home()) / ".claude.json"


def claude_mcp_add(launcher: Launcher, env: Mapping[str, str]) -> str:
    """The `claude mcp add` line for Claude Code's user scope. The name comes before `-e`: `-e` takes every
    word up to `--`, so a name after it was read as one more variable (anthropics/claude-code#62332)."""
    words = ["claude", "mcp", "add", "--scope", "user", SERVER]
    for key, value in env.items():
        words += ["-e", f"{key}={value}"]
    words += ["--", launcher.command, *launcher.args]
    return subprocess.list2cmdline(words) if os.name == "nt" else shlex.join(words)


CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client(
            "claude-desktop",
            "mcpServers",
            typed=False,
            user_file=lambda: _app_settings() / "Claude" / "claude_desktop_config.json",
            project_file=None,
        ),
        Client(
            "claude-code",
            "mcpServers",
            typed=True,
            user_file=_claude_code_user,
            project_file=lambda folder: folder / ".mcp.json",
            adder=claude_mcp_add,
        ),
        Client(
            "cursor",
            "mcpServers",
            typed=False,
            user_file=lambda: Path.home() / ".cursor" / "mcp.json",
            project_file=lambda folder: folder / ".cursor" / "mcp.json",
        ),
        Client(
            "vscode",
            "servers",
            typed=True,
            user_file=lambda: _app_settings() / "Code" / "User" / "mcp.json",
            project_file=lambda folder: folder / ".vscode" / "mcp.json",
        ),
    )
}


def environment(pairs: Sequence[str], user: str | None) -> dict[str, str]:
    """The entry's `env`: ENGRAIN_USER from --user, and the settings given as --env ENGRAIN_X=VALUE. Nothing
    else: every client on a machine shares the one default user unless the person names another, and a
    variable that is no setting would be ignored by the server without a word. (Values are checked as the
    server checks them at start-up, by the command line.)"""
    from engrain.config import unknown_setting  # not at the top: `engrain hook` starts without the settings

    env: dict[str, str] = {}
    if user is not None:
        if not user.strip():
            raise ConnectError("--user: give a name, or leave --user out for this machine's default user")
        env["ENGRAIN_USER"] = user
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise ConnectError("--env: give KEY=VALUE, e.g. --env ENGRAIN_TIMEZONE=Europe/Lisbon")
        if not key.startswith("ENGRAIN_"):
            raise ConnectError(f"--env {key}: only engrain's settings (ENGRAIN_*) belong in its entry")
        if key == "ENGRAIN_USER":
            raise ConnectError("--env ENGRAIN_USER: give the user with --user")
        if problem := unknown_setting(key):
            raise ConnectError(f"--env {problem}")
        if key in env:
            raise ConnectError(f"--env {key}: given twice")
        env[key] = value
    return env


def launcher() -> Launcher:
    """This installation's server as a client must start it: the console script beside the interpreter (a
    virtualenv's bin/ or Scripts\\), else the `engrain` found on PATH, else the interpreter itself with -m.
    Paths are made absolute but never resolved: a virtualenv's python is a symlink out of the virtualenv,
    and only the path inside it brings the virtualenv's packages."""
    script = "engrain.exe" if os.name == "nt" else "engrain"
    beside = Path(sys.executable).absolute().parent / script
    if _runnable(beside):
        return Launcher(str(beside), SERVE)
    found = shutil.which("engrain")
    if found and _runnable(Path(found)):
        return Launcher(str(Path(found).absolute()), SERVE)
    return Launcher(str(Path(sys.executable).absolute()), ("-m", "engrain.server.cli", *SERVE))


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def where(client: Client, path: Path, line: str | None) -> str:
    """What to do with the printed entry: the file it belongs in (or the client's own command for it)."""
    said = (
        f'engrain connect: this goes in {path}, under "{client.servers_key}" beside any other servers; '
        "add --write to this command to put it there (the file as it was is kept beside it)"
    )
    return said if line is None else f"{said}, or run:\n  {line}"


@dataclass(frozen=True)
class Written:
    """What a merge did to a config file."""

    path: Path
    changed: bool  # False: the file already held this entry, and was not touched
    backup: Path | None  # the file as it was, when there was one
    what: str = f"the {SERVER!r} server"  # what was written
    held: str = "this entry"  # what the file held already

    def summary(self) -> str:
        if not self.changed:
            return f"engrain connect: {self.path} already holds {self.held}; nothing changed"
        kept = f" (the file as it was: {self.backup})" if self.backup else " (a new file)"
        return f"engrain connect: wrote {self.what} into {self.path}{kept}; restart the client to load it"


def claude_code_settings(project: Path | None) -> Path:
    """Where Claude Code reads the hooks: the user's settings (~/.claude/settings.json, CLAUDE_CONFIG_DIR's when
    set), or a project's .claude/settings.json."""
    if project is not None:
        return project.expanduser().absolute() / ".claude" / "settings.json"
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude") / "settings.json"


def hook_command(launcher: Launcher, env: Mapping[str, str]) -> str:
    """The shell command Claude Code runs for engrain's hooks: this installation's `engrain hook`, with the
    entry's settings before it (a hook is a shell command: `ENGRAIN_USER=me /path/engrain hook`)."""
    words = [launcher.command, *launcher.args[: len(launcher.args) - len(SERVE)], "hook"]
    settings = [f"{key}={shlex.quote(value)}" for key, value in env.items()]
    return " ".join([*settings, shlex.join(words)])


def _engrains_hook(hook: object) -> bool:
    """Whether a hook of a settings file is one engrain wrote (this installation's or an older one's)."""
    command = cast(dict[str, Any], hook).get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and command.endswith(" hook") and "engrain" in command


def merge_hooks(path: Path, hooks: Mapping[str, list[dict[str, Any]]]) -> Written:
    """Put engrain's `hooks` (server/hooks.hooks_config) into the Claude Code settings file at `path`: each event's
    hook engrain wrote before is replaced, every other hook and key kept exactly; as `merge`, with a backup."""
    document = _read(path)
    found: object = document.setdefault("hooks", {})
    if not isinstance(found, dict):
        raise ConnectError(f'{path}: "hooks" is not an object; nothing was written')
    events = cast(dict[str, Any], found)
    before = json.dumps(events, sort_keys=True)
    for event, ours in hooks.items():
        groups: object = events.get(event, [])
        if not isinstance(groups, list):
            raise ConnectError(f'{path}: "hooks.{event}" is not a list; nothing was written')
        kept: list[Any] = []
        for group in cast(list[Any], groups):
            if isinstance(group, dict) and isinstance(inner := cast(dict[str, Any], group).get("hooks"), list):
                others = [h for h in cast(list[Any], inner) if not _engrains_hook(h)]
                if others:
                    kept.append(cast(dict[str, Any], group) | {"hooks": others})
            else:
                kept.append(group)
        events[event] = kept + ours
    what = "engrain's hooks"
    if json.dumps(events, sort_keys=True) == before:
        return Written(path, changed=False, backup=None, what=what, held=what)
    backup = _back_up(path) if path.exists() else None
    _replace(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return Written(path, changed=True, backup=backup, what=what, held=what)


def merge(path: Path, client: Client, entry: Mapping[str, Any]) -> Written:
    """Put `entry` as the `engrain` server of the config file at `path`, replacing an older one and keeping
    every other key exactly. Written whole to a temporary file beside it, then moved over it, so a client
    reading meanwhile sees the old file or the new one; the mode of an existing file is kept."""
    document = _read(path)
    servers: object = document.setdefault(client.servers_key, {})
    if not isinstance(servers, dict):
        raise ConnectError(f'{path}: "{client.servers_key}" is not an object; nothing was written')
    servers = cast(dict[str, Any], servers)
    if servers.get(SERVER) == entry:
        return Written(path, changed=False, backup=None)
    servers[SERVER] = dict(entry)
    backup = _back_up(path) if path.exists() else None
    _replace(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return Written(path, changed=True, backup=backup)


def _read(path: Path) -> dict[str, Any]:
    """The file's JSON object; an absent or blank file is an empty one."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # Notepad starts a file with a BOM
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConnectError(f"{path}: cannot be read ({exc}); nothing was written") from exc
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConnectError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); nothing was written. "
            "Fix the file (comments and trailing commas are not JSON), or paste the entry by hand"
        ) from exc
    if not isinstance(document, dict):
        raise ConnectError(f"{path}: holds {type(document).__name__}, not a JSON object; nothing was written")
    return document  # pyright: ignore[reportUnknownVariableType]


def _back_up(path: Path) -> Path:
    """A copy of the file beside it, named for the time, created new (never over an earlier backup) with
    the file's own mode, since it holds what the file holds."""
    stamp = datetime.now().strftime("%Y%m%d%H%M%S")
    content = path.read_bytes()
    mode = path.stat().st_mode & 0o777
    for n in range(100):
        backup = path.with_name(f"{path.name}.engrain-backup-{stamp}" + (f"-{n}" if n else ""))
        try:
            handle = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        return backup
    raise ConnectError(f"{path}: 100 backups made this second already; nothing was written")


def _replace(path: Path, text: str) -> None:
    target = path.resolve() if path.is_symlink() else path  # a linked file (dotfiles) stays linked
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else NEW_FILE_MODE
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
