"""Nothing half-done, nothing skipped, one user's load never stalls another (issue 23, items 7, 9, 10, 11, 15)."""

from __future__ import annotations

import json
import statistics
import time
import uuid
from datetime import UTC, datetime

import anyio
import pytest

from engrain.errors import InvalidInput
from engrain.services.memories.portability import import_jsonl
from engrain.services.traits.reflection.planning import MAX_MEMORIES, MEMORY_CHARS
from engrain.storage.portability import MEMORY_COLUMNS
from tests.conftest import Clock, call, call_error, connect, scalar
from tests.http_server import http_client, http_server

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
HEADER = '{"type":"header","format":"engrain-export","version":1,"vectors":false}\n'


async def test_reflection_passes_over_no_memory(host_settings):
    """260 new memories, one batch (one instant): a task shows as many as fit MEMORY_CHARS of lines, and after its
    answer the others are still pending and come in the next tasks, each memory in exactly one."""
    count = MAX_MEMORIES + 60
    async with connect(host_settings(), Clock(NOW)) as (client, _):
        items = [{"content": f"Note number {i} about the garden shed"} for i in range(count)]
        await call(client, "remember_many", items=items)
        seen: list[str] = []
        tasks = 0
        while (task := await call(client, "reflect", force=True)).get("task_id"):
            shown = [line for line in task["task"].splitlines() if line.startswith("[m")]
            assert 0 < sum(len(line) + 1 for line in shown) <= MEMORY_CHARS
            seen += [line.split("] ", 2)[2] for line in shown]
            tasks += 1
            done = await call(client, "reflect", task_id=task["task_id"], answer={"new_trends": []})
            assert done["memories_pending"] == count - len(seen)
        assert len(seen) == len(set(seen)) == count and tasks >= 3, tasks
        status = json.loads((await client.read_resource("engrain://status")).contents[0].text)
        assert status["reflection"]["memories_pending"] == 0


async def test_a_host_answer_of_the_wrong_shape_is_refused_and_moves_nothing(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        for text in ("I bake bread on Sundays", "I bake sourdough every weekend"):
            await call(client, "remember", content=text)
        task = await call(client, "reflect", force=True)
        watermark = "SELECT last_reflected_at FROM user_state WHERE user_id = :u"
        before = await scalar(app, watermark, u=app.settings.user)
        wrong = await call_error(client, "reflect", task_id=task["task_id"], answer={"memories": [{"content": "x"}]})
        assert "answer.memories" in wrong and "new_trends" in wrong
        empty = await call_error(client, "reflect", task_id=task["task_id"], answer={})
        assert "answer: has none of the keys" in empty
        assert await scalar(app, watermark, u=app.settings.user) == before
        unknown = await call_error(client, "reflect", task_id=str(uuid.uuid4()), answer={"new_trends": []})
        assert "no task with id" in unknown and "memory" not in unknown
        await call(client, "reflect", task_id=task["task_id"], answer={"new_trends": []})
        again = await call_error(client, "reflect", task_id=task["task_id"], answer={"new_trends": []})
        assert "already answered" in again
        ingest = await call(client, "ingest_conversation", messages=[{"role": "user", "content": "I moved to Porto"}])
        missing = await call_error(client, "ingest_conversation", task_id=ingest["task_id"], answer={"summary": "x"})
        assert "answer.memories: is required" in missing


async def test_an_ingestion_answer_is_applied_whole_or_not_at_all(host_settings):
    """The answer fails part-way (the third extracted memory passes the user's quota): the provisional
    statements are still there, nothing of the extraction is stored, and the task is still open."""
    async with connect(host_settings(max_memories_per_user=3), Clock(NOW)) as (client, app):
        messages = [{"role": "user", "content": "I just moved to Lisbon. I work as a nurse."}]
        out = await call(client, "ingest_conversation", messages=messages)
        assert len(out["created"]) == 2
        live = "SELECT array_agg(content ORDER BY content) FROM memories WHERE user_id = :u"
        before = await scalar(app, live, u=app.settings.user)
        extraction = {
            "memories": [{"content": f"Extracted fact {i} about the user's life in Lisbon"} for i in range(4)],
            "summary": "Moved to Lisbon, works as a nurse.",
        }
        refused = await call_error(client, "ingest_conversation", task_id=out["task_id"], answer=extraction)
        assert "quota" in refused
        assert await scalar(app, live, u=app.settings.user) == before
        status = "SELECT status FROM host_tasks WHERE user_id = :u AND id = :t"
        assert await scalar(app, status, u=app.settings.user, t=uuid.UUID(out["task_id"])) == "open"
        extraction["memories"] = extraction["memories"][:1]
        done = await call(client, "ingest_conversation", task_id=out["task_id"], answer=extraction)
        assert len(done["created"]) == 1 and done["summary_id"]


def memory_line(user: str, text: str, **fields: object) -> str:
    row = {
        "type": "memory",
        "id": str(uuid.uuid4()),
        "user_id": user,
        "namespace": "default",
        "kind": "fact",
        "content": text,
        "content_hash": uuid.uuid4().hex,
        "embedder": None,
        "embedding": None,
        "importance": 5,
        "category": None,
        "tags": [],
        "temporality": "current",
        "event_time": None,
        "created_at": NOW.isoformat(),
        "updated_at": NOW.isoformat(),
        "valid_until": None,
        "pinned": False,
        "access_count": 0,
        "last_accessed_at": None,
        "source": None,
        "metadata": {},
        **dict.fromkeys(c for c in MEMORY_COLUMNS if c.startswith("trait_")),
        **fields,
    }
    return json.dumps(row) + "\n"


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ({"content": "x" * 698_009}, "line 3, content: is 698,009 characters long; the limit is 8,000"),
        ({"kind": "secret"}, "line 3, kind: 'secret' is not one of"),
        ({"importance": 99}, "line 3, importance: 99 is out of range"),
        ({"namespace": "no spaces allowed"}, "line 3, namespace:"),
        ({"content": "nul \x00 byte"}, "line 3, content: contains a NUL byte"),
        ({"user_id": None}, "line 3, user_id: is required"),
    ],
)
async def test_import_applies_the_tools_limits_and_writes_nothing_from_a_failing_file(settings_factory, bad, says):
    from engrain.server.state import AppState

    app = AppState(settings_factory())
    app.start(scheduler_loop=False)
    user = f"import-{uuid.uuid4().hex[:8]}"
    try:
        lines = [HEADER, memory_line(user, "A perfectly fine memory"), memory_line(user, "Second", **bad)]
        with pytest.raises(InvalidInput) as refused:
            await import_jsonl(app.database, lines)
        assert says in str(refused.value)
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=user) == 0
        stats = await import_jsonl(app.database, lines[:2])
        assert stats["memory"]["added"] == 1
    finally:
        await app.close()


async def test_a_costly_remember_does_not_stall_another_users_recall(pg_url, tmp_path):
    """Over HTTP, as the issue measured it: the costliest allowed remember (8,000 characters of dates) of
    one user runs while another user recalls, one recall after another. Before the fix each recall waited the
    remember out (one recall in all, seconds long); now they go on meanwhile — on this 2-core machine about ten
    while it runs. The behaviour is held, not a timing (CI shares a busy box): several recalls end before the
    remember does."""
    costly = " ".join(f"{d}/{m}/20{y:02d}" for d, m, y in [(i % 28 + 1, i % 12 + 1, i % 30) for i in range(1000)])
    costly = ("Dates: " + costly)[:8000]
    tokens = {"tok-stall-writer-0123456789": "stall-writer", "tok-stall-reader-0123456789": "stall-reader"}
    with http_server(pg_url, tmp_path, tokens) as server:
        async with (
            http_client(server.mcp, "tok-stall-writer-0123456789") as writer,
            http_client(server.mcp, "tok-stall-reader-0123456789") as reader,
        ):
            for i in range(20):
                await call(reader, "remember", content=f"Reader memory {i}: tomatoes, basil and peppers")
            await call(writer, "remember", content=costly[:-1])  # once first: what loads on first use is loaded

            async def timed_recall() -> float:
                started = time.perf_counter()
                await call(reader, "recall", query="what do I grow")
                return time.perf_counter() - started

            baseline = statistics.median([await timed_recall() for _ in range(9)])
            during: list[float] = []
            finished = anyio.Event()

            async def write() -> None:
                await call(writer, "remember", content=costly)
                finished.set()

            async with anyio.create_task_group() as tg:
                tg.start_soon(write)
                while not finished.is_set() or not during:
                    during.append(await timed_recall())
    assert len(during) >= 3, (baseline, during)
