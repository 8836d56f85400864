"""How far a call travels through the code: module hops and SQL statements per call (issue 40).

An in-process MCP client on the host route (no key, no sampling: the calling model does the thinking) tells
five memories, recalls, asks `reflect` for a task and answers it, as Claude Desktop and Claude Code do. For
each of those calls it counts, in every thread of this process:
- hops: calls from a function of one engrain module into a function of another, all of them and the
  distinct (caller module, callee module) pairs (the path's length as a reader follows it), and the
  modules the call passed through;
- statements: SQL statements sent to the database (both engines).
Prints JSON. The figures are of the code's shape, not of the machine: one run is enough.

    python bench/trace_path.py
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

import anyio
from mcp import Client
from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.server.app import create_server
from engrain.server.state import AppState

MORNING = [
    "I had two coffees before my 6am run",
    "Morning run done, then espresso",
    "Coffee first thing, always",
    "Ran 10k at dawn today",
    "My morning starts with coffee and a jog",
]


class Trace:
    """Module hops (sys.setprofile in every thread) and SQL statements while `recording`."""

    def __init__(self) -> None:
        self.hops = 0
        self.edges: set[tuple[str, str]] = set()
        self.modules: Counter[str] = Counter()
        self.statements = 0
        self.recording = False

    def profile(self, frame: FrameType, what: str, _arg: object) -> None:
        if what != "call" or not self.recording:
            return
        callee = frame.f_globals.get("__name__", "")
        if not callee.startswith("engrain."):
            return
        self.modules[callee] += 1
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        if caller.startswith("engrain.") and caller != callee:
            self.hops += 1
            self.edges.add((caller, callee))

    def statement(self, *_args: Any) -> None:
        if self.recording:
            self.statements += 1

    @contextmanager
    def call(self, name: str, out: dict[str, Any]) -> Iterator[None]:
        self.hops, self.statements, self.modules, self.edges = 0, 0, Counter(), set()
        self.recording = True
        try:
            yield
        finally:
            self.recording = False
            out[name] = {
                "hops": self.hops,
                "distinct_hops": len(self.edges),
                "modules": len(self.modules),
                "statements": self.statements,
            }


def _alias(task: str, fragment: str) -> str:
    for line in task.splitlines():
        if fragment in line and (m := re.match(r"\[(\w+)\]", line)):
            return m.group(1)
    raise ValueError(f"{fragment!r} is not in the task")


async def trace() -> dict[str, Any]:
    os.environ.pop("ANTHROPIC_API_KEY", None)  # the host route: no key on the server
    app = AppState(bench_settings(scratch_home("engrain-trace-"), llm="auto"), lambda: datetime.now(UTC))
    found: dict[str, Any] = {}
    tracer = Trace()
    async with Client(create_server(app)) as client:
        db = await app.database()
        for engine in (db.engine, db.reader):
            event.listen(engine.sync_engine, "before_cursor_execute", tracer.statement)
        sys.setprofile(tracer.profile)
        threading.setprofile(tracer.profile)  # worker threads: text reading, embedding, parsing
        try:
            for n, text in enumerate(MORNING):
                if n == len(MORNING) - 1:
                    with tracer.call("remember", found):
                        await client.call_tool("remember", {"content": text})
                else:
                    await client.call_tool("remember", {"content": text})
            with tracer.call("recall", found):
                await client.call_tool("recall", {"query": "what do I do in the morning"})
            with tracer.call("reflect: the task out", found):
                out = await client.call_tool("reflect", {"force": True})
            task = (out.structured_content or {})["task"]
            evidence = [_alias(task, "coffees before my 6am run"), _alias(task, "Morning run done")]
            behavior = {"content": "Starts the day with coffee and a run", "evidence_ids": evidence, "confidence": 0.45}
            answer = {"new_behaviors": [behavior]}
            task_id = (out.structured_content or {})["task_id"]
            with tracer.call("reflect: the answer in", found):
                done = await client.call_tool("reflect", {"task_id": task_id, "answer": answer})
            assert (done.structured_content or {}).get("traits_created") == 1, done.content
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # pyright: ignore[reportArgumentType]
    return found


def main() -> None:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(json.dumps({"machine": machine, "calls": anyio.run(trace)}, indent=2))


if __name__ == "__main__":
    main()
