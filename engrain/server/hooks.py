"""`engrain hook`: the command Claude Code runs for engrain's hooks (the plugin's hooks/hooks.json, or the hooks
`engrain connect claude-code --write` puts in its settings). It reads the hook's input JSON on stdin, asks the
home's hook worker (server/hook_worker.py) over its socket, starting it when none answers, and prints what the
session should be told as `hookSpecificOutput.additionalContext` (SessionStart, UserPromptSubmit).

Never in the way: whatever happens — no worker yet, a database down, a setting that does not parse, input that is
not a hook's — it exits 0 within its event's budget, prints nothing, and says why in the home's logs/hooks.log,
never on the user's screen or in their prompt. A project holding OPT_OUT_FILE at its root is left alone. This
process imports little (no services, no model, not even the settings' validation: pydantic alone was 0.5 s of a
0.7 s start on a loaded 2-core machine; nor logging until there is a line to log): a warm prompt costs a Python
start, a connection and the worker's recall.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO, cast

from engrain.home import default_home

if TYPE_CHECKING:
    import logging

OPT_OUT_FILE = ".engrain-off"
LOG_FILE = Path("logs") / "hooks.log"  # in the home; the worker's too (server/cli.py)
# How long each hook may take, in seconds, start-up included (Claude Code's own `timeout` for it is longer: it
# never has to kill one). A first hook waits for the worker to start; a prompt's waits least, as the user does.
BUDGET = {"SessionStart": 6.0, "UserPromptSubmit": 2.5}
KEEP_BUDGET = 4.0  # Stop, PreCompact, SessionEnd: the worker goes on importing after the hook leaves
# The hooks engrain registers: event, matcher (None: every one), Claude Code's timeout (s).
HOOKS: tuple[tuple[str, str | None, int], ...] = (
    ("SessionStart", "startup|resume|clear|compact", 10),
    ("UserPromptSubmit", None, 5),
    ("Stop", None, 10),
    ("PreCompact", None, 10),
    ("SessionEnd", None, 10),
)
MAX_INPUT = 4 * 1024**2  # bytes of a hook's input (a prompt may hold a pasted file)
RETRY_SECONDS = 0.05
SOCKET_FILE = "hooks.sock"  # the worker's, in the home
LOCK_FILE = "hooks.lock"  # held by the running worker; it holds its process id


def socket_path(home: Path) -> Path:
    return home / SOCKET_FILE


def lock_path(home: Path) -> Path:
    return home / LOCK_FILE


def hooks_config(command: str) -> dict[str, Any]:
    """Claude Code's `hooks` object that runs `command` for each of HOOKS: the plugin's hooks/hooks.json holds it,
    and `engrain connect claude-code --write` merges it into the user's settings."""
    config: dict[str, Any] = {}
    for event, matcher, timeout in HOOKS:
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        config[event] = [group]
    return config


class _Log:
    """The hooks' log (the home's LOG_FILE), set up at its first line: most hooks log nothing, and logging's
    set-up (its modules, the rotating file) was a tenth of a warm hook's time."""

    def __init__(self) -> None:
        self.home: Path | None = None
        self.level = "INFO"
        self._logger: logging.Logger | None = None

    def _get(self) -> logging.Logger:
        if self._logger is None:
            import logging

            from engrain import logs

            if self.home is not None:
                logs.configure(self.level, path=self.home / LOG_FILE)
            self._logger = logging.getLogger("engrain.hooks")
        return self._logger

    def info(self, message: str, *args: object) -> None:
        self._get().info(message, *args)

    def warning(self, message: str, *args: object) -> None:
        self._get().warning(message, *args)


log = _Log()


def main() -> None:
    """`engrain hook` (server/entry.py)."""
    sys.exit(run_hook(sys.stdin.buffer, sys.stdout, dict(os.environ)))


def run_hook(stdin: BinaryIO, stdout: TextIO, environ: dict[str, str]) -> int:
    """Answer one hook; always 0. The settings are read by the worker, which checks them; this process reads only
    the home and the user from the environment, and checks the settings only to start a worker (`_ask`)."""
    started = time.monotonic()
    home = Path(environ.get("ENGRAIN_HOME") or default_home())
    log.home, log.level = home, environ.get("ENGRAIN_LOG_LEVEL", "INFO")
    try:
        request = _request(stdin.read(MAX_INPUT + 1), environ)
        if request is None:
            return 0
        event = request["hook_event_name"]
        answer = _ask(home, request, started + BUDGET.get(event, KEEP_BUDGET))
        context = str(answer.get("context") or "")
        if context and event in BUDGET:
            output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
            stdout.write(json.dumps(output, ensure_ascii=False) + "\n")
        if "error" in answer:
            log.warning("hook %s: the worker could not answer (%s); see its lines above", event, answer["error"])
    except Exception as exc:
        log.warning("hook: nothing added: %s: %s", type(exc).__name__, exc)
    return 0


def _request(raw: bytes, environ: dict[str, str]) -> dict[str, Any] | None:
    """The hook's input with what the worker needs besides (the project's folder, the user), or None when there is
    nothing to do (a project that opted out; input that is no hook's, which is logged)."""
    if len(raw) > MAX_INPUT:
        log.warning("hook: an input of more than %d bytes, ignored", MAX_INPUT)
        return None
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("hook_event_name"), str):  # pyright: ignore[reportUnknownMemberType]
        log.warning("hook: the input is no Claude Code hook's (no hook_event_name)")
        return None
    request: dict[str, Any] = dict(data)  # pyright: ignore[reportUnknownArgumentType]
    folder = Path(environ.get("CLAUDE_PROJECT_DIR") or str(request.get("cwd") or "") or os.getcwd())
    if (folder / OPT_OUT_FILE).exists():
        log.info("hook %s: %s holds %s, left alone", request["hook_event_name"], folder, OPT_OUT_FILE)
        return None
    request["project_dir"] = str(folder.absolute())
    request["user"] = environ.get("ENGRAIN_USER") or None
    return request


def _ask(home: Path, request: dict[str, Any], deadline: float) -> dict[str, Any]:
    """The worker's answer to `request` by `deadline`; the worker is started if none listens. {} when there is
    none in time (logged)."""
    path = socket_path(home)
    started_worker = False
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.settimeout(max(0.01, deadline - time.monotonic()))
            conn.connect(str(path))
            break
        except OSError:
            conn.close()
            if not started_worker:
                if not _start_worker(home):
                    return {}
                started_worker = True
            if time.monotonic() + RETRY_SECONDS >= deadline:
                log.info("hook %s: the worker is starting; nothing added this time", request["hook_event_name"])
                return {}
            time.sleep(RETRY_SECONDS)
    with conn:
        try:
            conn.sendall(json.dumps(request, ensure_ascii=False).encode() + b"\n")
            received = b""
            while not received.endswith(b"\n"):
                conn.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = conn.recv(65536)
                if not chunk:
                    break
                received += chunk
        except TimeoutError:
            log.info("hook %s: no answer within its budget; nothing added", request["hook_event_name"])
            return {}
    answer: object = json.loads(received) if received.strip() else {}
    return cast(dict[str, Any], answer) if isinstance(answer, dict) else {}


def _start_worker(home: Path) -> bool:
    """Start the home's hook worker, apart from this process and Claude Code (its own session, no terminal):
    it outlives this hook. Two hooks starting one each leave one running (server/hook_worker.py's lock). False,
    and nothing started, when the settings do not parse: the worker would refuse them (said in the log)."""
    import subprocess

    from pydantic import ValidationError

    from engrain.config import Settings, describe_settings_error

    try:
        Settings()
    except ValidationError as exc:
        log.warning("hook: engrain's settings do not parse, nothing added: %s", describe_settings_error(exc))
        return False
    log.info("hook: starting the hook worker")
    with (home / LOG_FILE).open("ab") as errors:  # what it says before its log is set up (a model that fails)
        subprocess.Popen(
            [sys.executable, "-m", "engrain.server.cli", "hook-worker"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
            close_fds=True,
        )
    return True
