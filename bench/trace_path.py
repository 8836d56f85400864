"""How far a call travels through the code: module hops and SQL statements per call (issue 40).

An in-process MCP client on the host route (no key, no sampling: the calling model does the thinking) tells
five memories, recalls, asks `reflect` for a task and answers it, as Claude Desktop and Claude Code do. For
each of those calls it counts, on the event loop's thread:
- hops: calls from a function of one engrain module into a function of another (a coroutine resumed after an
  await is no new call): all of them (a helper called per memory counts once per memory); distinct ones, each
  (calling function, called function) once: the path's length as a reader follows it; the distinct module
  pairs among them; and the modules the call passed through;
- statements: SQL statements sent to the database (both engines);
- callbacks: calls into a closure or lambda of another module (a function handed down to be called back up),
  but for the MCP edge's own decorators (tools/common.py wrapping each tool).
Prints JSON. The figures are of the code's shape, not of the machine: one run is enough.

    python bench/trace_path.py [--detail]   # --detail: each call's SQL (shortened, in order) and module pairs
"""

from __future__ import annotations

import dis
import functools
import inspect
import json
import os
import platform
import re
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import anyio
from mcp import Client
from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.homes import bench_settings, scratch_home
from engrain.server.app import create_server
from engrain.server.state import AppState

DETAIL = "--detail" in sys.argv

MORNING = [
    "I had two coffees before my 6am run",
    "Morning run done, then espresso",
    "Coffee first thing, always",
    "Ran 10k at dawn today",
    "My morning starts with coffee and a jog",
]


_SUSPENDABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


@functools.cache
def _start(code: CodeType) -> int:
    """Where a coroutine's or generator's frame starts running (its first RESUME)."""
    return next(i.offset for i in dis.get_instructions(code) if i.opname == "RESUME")


def _resumed(frame: FrameType) -> bool:
    """A coroutine resumed after an await (the profiler sees a "call" each time, all the way up its stack), not
    called: counting those would count waits for the database, not steps of the path."""
    code = frame.f_code
    return bool(code.co_flags & _SUSPENDABLE) and frame.f_lasti > _start(code)


def _name(code: CodeType) -> str:
    return f"{Path(code.co_filename).stem}.{code.co_qualname}"


class Trace:
    """Module hops (sys.setprofile: the event loop's thread; the worker threads that read texts and embed are
    the same for every route) and SQL statements while `recording`."""

    def __init__(self) -> None:
        self.hops = 0
        self.modules: Counter[str] = Counter()
        self.statements = 0
        self.sql: list[str] = []
        self.pairs: Counter[tuple[str, str]] = Counter()
        self.steps: set[tuple[CodeType, CodeType]] = set()
        self.callbacks: set[tuple[CodeType, CodeType]] = set()
        self.recording = False

    def profile(self, frame: FrameType, what: str, _arg: object) -> None:
        if what != "call" or not self.recording:
            return
        callee = frame.f_globals.get("__name__", "")
        if not callee.startswith("engrain.") or frame.f_code.co_filename == "<string>" or _resumed(frame):
            return  # the generated __init__ of a dataclass is a constructor, not a step of the path
        self.modules[callee] += 1
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        if caller.startswith("engrain.") and caller != callee:
            self.hops += 1
            self.pairs[(caller, callee)] += 1
            assert frame.f_back is not None
            self.steps.add((frame.f_back.f_code, frame.f_code))
            if "<locals>" in frame.f_code.co_qualname and not caller.startswith("engrain.tools."):
                self.callbacks.add((frame.f_back.f_code, frame.f_code))

    def statement(self, _conn: object, _cursor: object, sql: str, *_args: Any) -> None:
        if self.recording:
            self.statements += 1
            self.sql.append(" ".join(sql.split())[:160])

    @contextmanager
    def call(self, name: str, out: dict[str, Any]) -> Iterator[None]:
        self.hops, self.statements, self.modules, self.pairs, self.sql = 0, 0, Counter(), Counter(), []
        self.steps, self.callbacks = set(), set()
        self.recording = True
        try:
            yield
        finally:
            self.recording = False
            out[name] = {
                "hops": self.hops,
                "distinct_hops": len(self.steps),
                "module_pairs": len(self.pairs),
                "modules": len(self.modules),
                "statements": self.statements,
                "callbacks": sorted(f"{_name(a)} -> {_name(b)}" for a, b in self.callbacks),
            }
            if DETAIL:
                out[name]["sql"] = self.sql
                out[name]["pairs"] = [f"{n} {a} -> {b}" for (a, b), n in self.pairs.most_common()]
                out[name]["steps"] = sorted(f"{_name(a)} -> {_name(b)}" for a, b in self.steps)


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
    return found


def main() -> None:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(json.dumps({"machine": machine, "calls": anyio.run(trace)}, indent=2))


if __name__ == "__main__":
    main()
