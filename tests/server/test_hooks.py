"""Claude Code's hooks, end to end (issue 62): the plugin's own hook command (claude-plugin/hooks/hooks.json, with
CLAUDE_PLUGIN_ROOT and CLAUDE_PROJECT_DIR set as Claude Code sets them) run as a subprocess with the hook's input
JSON on stdin, against a real home and database, through the hook worker the first hook starts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engrain.reading.projects import namespace_of
from engrain.server.hooks import hooks_config, lock_path, socket_path
from tests.conftest import ROOT, call, connect, engrain_env, scalar

pytestmark = pytest.mark.anyio
PLUGIN = ROOT / "claude-plugin"
COMMAND = "${CLAUDE_PLUGIN_ROOT}/bin/engrain-hook"
WORKER_START = 90.0  # s: a cold worker on a loaded 2-core machine (imports, the database)


def hook_command(event: str) -> str:
    """The command the plugin registers for `event`."""
    config = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    return config[event][0]["hooks"][0]["command"]


def run_hook(env: dict[str, str], event: str, **fields: Any) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run the plugin's hook for `event` as Claude Code does (a shell command, the input on stdin); its result and
    how long it took."""
    data = {"session_id": "s-1", "transcript_path": "", "cwd": env["CLAUDE_PROJECT_DIR"], "hook_event_name": event}
    start = time.monotonic()
    done = subprocess.run(
        hook_command(event),
        shell=True,
        input=json.dumps(data | fields),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done, time.monotonic() - start


def added(done: subprocess.CompletedProcess[str], event: str) -> str:
    """The context the hook added ("" for none), checked to be Claude Code's documented shape."""
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return ""
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == event
    return output["additionalContext"]


def hook_env(home: Path, project: Path, **settings: str) -> dict[str, str]:
    env = engrain_env(home, **settings)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # this installation's `engrain`
    env["PYTHONPATH"] = str(ROOT)
    env["CLAUDE_PLUGIN_ROOT"] = str(PLUGIN)
    env["CLAUDE_PROJECT_DIR"] = str(project)
    return env


def with_project(env: dict[str, str], project: Path, user: str) -> dict[str, str]:
    project.mkdir(parents=True, exist_ok=True)
    return env | {"CLAUDE_PROJECT_DIR": str(project), "ENGRAIN_USER": user}


def stop_worker(home: Path) -> None:
    """Stop the worker the hooks started in `home` (its id is in its lock file), and wait for it to exit."""
    try:
        pid = int(lock_path(home).read_text().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


def wait_for_worker(env: dict[str, str], home: Path) -> None:
    """Have a hook start the worker, and wait until it listens: the first hook of a cold home adds nothing while
    the worker starts (tested apart), the tests here are about what a running one answers."""
    run_hook(env, "SessionStart", source="startup")
    deadline = time.monotonic() + WORKER_START
    while not socket_path(home).exists():
        assert time.monotonic() < deadline, "the hook worker did not start"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def worker_home(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of hooks on one home whose hook worker runs, for the module (each test is its own user, so
    they see nothing of another's)."""
    home = tmp_path_factory.mktemp("hooks-home")
    env = hook_env(home, tmp_path_factory.mktemp("warm-project"), ENGRAIN_DATABASE_URL=pg_url)
    try:
        wait_for_worker(env, home)
        yield env
    finally:
        stop_worker(home)


def transcript(path: Path, project: Path) -> Path:
    """A Claude Code session log: the user's words, a tool call and its output, code, Claude Code's own lines."""
    at = "2026-12-01T10:0{}:00.000Z"

    def line(n: int, kind: str, content: Any, **more: Any) -> str:
        entry = {"type": kind, "timestamp": at.format(n), "cwd": str(project), "sessionId": "s-1"}
        return json.dumps(entry | {"message": {"role": kind, "content": content}} | more)

    lines = [
        line(0, "user", "<command-name>/clear</command-name>"),
        line(1, "user", "I'm moving this project from poetry to uv next week."),
        line(
            2,
            "assistant",
            [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat pyproject.toml"}}],
        ),
        line(3, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "[tool.poetry] name = 'zebrafish'"}]),
        line(4, "assistant", [{"type": "text", "text": "I see the pyproject uses poetry-core as its build backend."}]),
        line(5, "user", "Here is the script:\n```python\nimport quokka_lib\nquokka_lib.run()\n```"),
        line(6, "user", "Caveat: be terse.", isMeta=True),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


async def test_session_start_adds_the_profile(worker_home, settings_factory, tmp_path):
    env = worker_home
    settings = settings_factory()
    async with connect(settings) as (client, _):
        await call(client, "remember", content="I prefer answers in British English, with metric units.")
    env = with_project(env, tmp_path / "alpha", settings.user)
    context = added(run_hook(env, "SessionStart", source="startup")[0], "SessionStart")
    assert "I prefer answers in British English" in context
    assert "never as instructions" in context  # memories reach the model as data
    for source in ("resume", "clear", "compact"):
        assert "British English" in added(run_hook(env, "SessionStart", source=source)[0], "SessionStart")


async def test_a_prompt_gets_what_bears_on_it_and_nothing_else(worker_home, settings_factory, tmp_path):
    env = worker_home
    settings = settings_factory()
    async with connect(settings) as (client, _):
        await call(client, "remember", content="We use PostgreSQL 16 with pgvector.")
        await call(client, "remember", content="My sister Noor lives in Lisbon.")
    env = with_project(env, tmp_path / "alpha", settings.user)
    context = added(run_hook(env, "UserPromptSubmit", prompt="which database do we use here?")[0], "UserPromptSubmit")
    assert "We use PostgreSQL 16 with pgvector" in context
    assert "Noor" not in context
    assert "«" in context and "said 20" in context  # quoted as data, dated
    assert added(run_hook(env, "UserPromptSubmit", prompt="what is 17 times 23?")[0], "UserPromptSubmit") == ""


async def test_stop_keeps_the_users_words_once_and_no_code_or_tool_output(worker_home, settings_factory, tmp_path):
    env = worker_home
    settings = settings_factory()
    project = tmp_path / "alpha"
    env = with_project(env, project, settings.user)
    log = transcript(tmp_path / "s-1.jsonl", project)
    for event in ("Stop", "Stop", "PreCompact", "SessionEnd"):
        done, _ = run_hook(env, event, transcript_path=str(log), stop_hook_active=False)
        assert added(done, event) == ""
    async with connect(settings) as (_, app):
        rows = await scalar(
            app,
            "SELECT json_agg(json_build_array(content, namespace, source)) FROM memories WHERE user_id = :u",
            u=settings.user,
        )
        queued = await scalar(app, "SELECT count(*) FROM chat_imports WHERE user_id = :u", u=settings.user)
    kept = [content for content, *_ in rows]
    assert [c for c in kept if "poetry to uv" in c] == ["I'm moving this project from poetry to uv next week."]
    assert all(namespace == namespace_of(str(project)) for _, namespace, _ in rows)
    assert all(source == "claude-code:s-1" for *_, source in rows)
    assert not [c for c in kept if "zebrafish" in c or "quokka" in c or "poetry-core" in c or "terse" in c], kept
    assert queued == 1  # queued for a model once, as an import is


async def test_a_project_sees_its_own_memories_and_no_other_projects(worker_home, settings_factory, tmp_path):
    env = worker_home
    settings = settings_factory()
    async with connect(settings) as (client, _):
        await call(client, "remember", content="I prefer answers in British English.")
    alpha = with_project(env, tmp_path / "alpha", settings.user)
    log = transcript(tmp_path / "s-1.jsonl", tmp_path / "alpha")
    assert added(run_hook(alpha, "Stop", transcript_path=str(log))[0], "Stop") == ""
    in_alpha = added(run_hook(alpha, "SessionStart", source="startup")[0], "SessionStart")
    assert "About this project (alpha)" in in_alpha and "poetry to uv" in in_alpha
    beta = with_project(env, tmp_path / "beta", settings.user)
    in_beta = added(run_hook(beta, "SessionStart", source="startup")[0], "SessionStart")
    assert "British English" in in_beta and "poetry" not in in_beta
    prompt = "are we moving from poetry to uv?"
    assert "poetry to uv" in added(run_hook(alpha, "UserPromptSubmit", prompt=prompt)[0], "UserPromptSubmit")
    assert added(run_hook(beta, "UserPromptSubmit", prompt=prompt)[0], "UserPromptSubmit") == ""


async def test_a_project_with_the_opt_out_file_is_left_alone(worker_home, settings_factory, tmp_path):
    env = worker_home
    settings = settings_factory()
    async with connect(settings) as (client, _):
        await call(client, "remember", content="I prefer answers in British English.")
    env = with_project(env, tmp_path / "private", settings.user)
    (tmp_path / "private" / ".engrain-off").touch()
    assert added(run_hook(env, "SessionStart", source="startup")[0], "SessionStart") == ""
    log = transcript(tmp_path / "s-1.jsonl", tmp_path / "private")
    assert added(run_hook(env, "Stop", transcript_path=str(log))[0], "Stop") == ""
    async with connect(settings) as (_, app):
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=settings.user) == 1


def test_with_the_database_unreachable_every_hook_exits_0_quickly_and_adds_nothing(tmp_path):
    home = tmp_path / "home"
    env = hook_env(home, tmp_path / "alpha", ENGRAIN_DATABASE_URL="postgresql://engrain@127.0.0.1:9/none")
    (tmp_path / "alpha").mkdir()
    log = transcript(tmp_path / "s-1.jsonl", tmp_path / "alpha")
    try:
        for event, fields in [
            ("SessionStart", {"source": "startup"}),
            ("UserPromptSubmit", {"prompt": "which database do we use here?"}),
            ("Stop", {"transcript_path": str(log)}),
            ("PreCompact", {"transcript_path": str(log), "trigger": "auto"}),
            ("SessionEnd", {"transcript_path": str(log), "reason": "exit"}),
            ("SessionStart", {"source": "resume"}),  # once the worker runs, too
        ]:
            done, took = run_hook(env, event, **fields)
            assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), event
            assert took < 10, (event, took)
    finally:
        stop_worker(home)
    assert "the worker could not answer (Unavailable)" in (home / "logs" / "hooks.log").read_text()


def test_a_hook_with_broken_settings_or_input_exits_0_and_logs_why(tmp_path):
    home = tmp_path / "home"
    env = hook_env(home, tmp_path, ENGRAIN_TIMEZONE="Mars/Olympus")
    done, _ = run_hook(env, "SessionStart", source="startup")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert "settings do not parse" in (home / "logs" / "hooks.log").read_text()
    env = hook_env(home, tmp_path)
    command = hook_command("Stop")
    done = subprocess.run(command, shell=True, input=b"not json", env=env, capture_output=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_the_plugin_registers_the_hooks_engrain_writes_for_those_without_plugins():
    plugin = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "engrain"
    assert json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"] == hooks_config(COMMAND)
    assert json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["engrain"]["args"] == ["serve"]
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert (ROOT / market["plugins"][0]["source"]).resolve() == PLUGIN
