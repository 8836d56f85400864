"""The hook worker: one process per home that answers Claude Code's hooks (server/hooks.py) over a Unix socket in
the home, so that a prompt's hook costs a connection and a recall, not a Python start-up with engrain's services
and a model (seconds on a loaded machine). The first hook that finds none starts it; it loads its model in the
background (until then recall answers by words, as a server's does) and exits after IDLE_SECONDS with no request,
giving up the embedded Postgres it joined.

One worker per home: it holds LOCK_FILE locked while it lives (a second one started meanwhile exits at once), and
the socket is the owner's only (0600 in a home only they read). Requests and answers are one JSON line each."""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from engrain.config import Settings
from engrain.reading.projects import namespace_of
from engrain.server.hooks import lock_path, socket_path
from engrain.server.state import AppState

log = logging.getLogger(__name__)
IDLE_SECONDS = 30 * 60
MAX_REQUEST = 4 * 1024**2  # bytes of one request line: a hook's input (a prompt may be a pasted file)
KEEP_SECONDS = 300  # a transcript's import goes on after its hook gave up waiting; the next one resumes it
ANSWER_SECONDS = 30  # any other request: its hook waited seconds at most, no answer is of use after this
KEEPS = ("Stop", "PreCompact", "SessionEnd")


class HookWorker:
    """Answers each hook's request with the sessions services of one AppState."""

    def __init__(self, app: AppState) -> None:
        self.app = app
        self.last_request = time.monotonic()
        self.keeping: dict[str, anyio.Lock] = {}  # one import at a time per transcript

    async def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The request's answer: {"context": text} for SessionStart and UserPromptSubmit ("" for nothing),
        {"kept": n} for the events that keep the session."""
        event = str(request.get("hook_event_name", ""))
        folder = str(request.get("project_dir") or request.get("cwd") or "")
        project = namespace_of(folder)
        user = str(request.get("user") or "") or await self.app.local_users.name()
        if event == "SessionStart":
            with anyio.fail_after(ANSWER_SECONDS):
                return {"context": await self.app.session_context.opening(user, project, Path(folder).name)}
        if event == "UserPromptSubmit":
            with anyio.fail_after(ANSWER_SECONDS):
                return {"context": await self.app.session_context.for_prompt(user, project, str(request["prompt"]))}
        if event in KEEPS:
            transcript = str(request["transcript_path"])
            with anyio.fail_after(KEEP_SECONDS):
                async with self.keeping.setdefault(transcript, anyio.Lock()):
                    kept = await self.app.session_keeper.keep(user, Path(transcript), project)
            log.info("kept %d memories of %d new messages of %s", kept.kept, kept.messages, transcript)
            return {"kept": kept.kept}
        return {}

    async def handle(self, stream: SocketStream) -> None:
        """One request: a JSON line in, a JSON line out. A failure is logged here and answered with nothing."""
        self.last_request = time.monotonic()
        async with stream:
            try:
                line = await BufferedByteReceiveStream(stream).receive_until(b"\n", MAX_REQUEST)
                answer = await self.answer(json.loads(line))
            except Exception as exc:
                log.warning("hook request failed: %s: %s", type(exc).__name__, exc)
                answer = {"error": type(exc).__name__}
            # A hook that gave up waiting is not answered: its work is done all the same.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stream.send(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
            self.last_request = time.monotonic()

    async def serve(self, path: Path) -> None:
        """Listen at `path` until IDLE_SECONDS pass with no request."""
        path.unlink(missing_ok=True)  # a dead worker's: only the holder of the lock gets here
        listener = await anyio.create_unix_listener(path)
        os.chmod(path, 0o600)
        self.app.start(scheduler_loop=False)
        log.info("hook worker %d listening at %s", os.getpid(), path)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(listener.serve, self.handle)
                while time.monotonic() - self.last_request < IDLE_SECONDS:
                    await anyio.sleep(min(60.0, IDLE_SECONDS))
                group.cancel_scope.cancel()
        finally:
            path.unlink(missing_ok=True)
            with anyio.CancelScope(shield=True):
                await self.app.close()
        log.info("hook worker %d: idle for %d s, stopped", os.getpid(), IDLE_SECONDS)


def run_worker(settings: Settings) -> int:
    """Run the home's hook worker unless one runs already (then exit at once)."""
    settings.home.mkdir(parents=True, exist_ok=True)
    handle = os.open(lock_path(settings.home), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0
    os.ftruncate(handle, 0)
    os.write(handle, f"{os.getpid()}\n".encode())  # who holds it: `kill $(cat hooks.lock)` stops it
    worker = HookWorker(AppState(settings, role="hooks"))
    anyio.run(worker.serve, socket_path(settings.home))
    return 0
