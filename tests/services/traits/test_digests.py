"""Topic digests (issue 60, part 2), through a real MCP client on the host route: the calling model reads the digests
rule in reflect's task, writes a digest of a year of books citing the task's aliases, and a question that gathers
gets the digest first, named as one; a later book rewrites the digest whole, the old one leaves recall."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from engrain.services.recall.gathering import gather
from engrain.services.recall.results import RecallHit
from tests.conftest import Clock, call, call_error, connect, scalar
from tests.scripted import ScriptedLLM, alias, answer
from tests.services.traits.test_host_reflection import aliases
from tests.tools.test_gathering import BOOKS, START, day
from tests.tools.test_gathering import FILLER as GATHERING_FILLER

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)
FILLER = GATHERING_FILLER[:3]
TITLES = ["Dune", "The Remains of the Day", "Piranesi", "Middlemarch", "The Overstory", "Klara and the Sun"]
DIGEST = "Books read: " + "; ".join(
    f"{title} ({(START + timedelta(days=offset)).isoformat()})"
    for title, (offset, _) in zip([*TITLES, "Project Hail Mary"], BOOKS, strict=True)
)
NEW_BOOK = "I read Lessons in Chemistry, a book about a chemist who hosts a cooking show"


def first_line_of_hits(text: str) -> str:
    """The first memory line of a recall text (after its head and notes)."""
    return next(line for line in text.splitlines() if line.startswith("- "))


async def test_a_digest_of_a_year_of_books_is_found_first_and_rewritten_whole(host_settings):
    clock = Clock(NOW)
    async with connect(host_settings(), clock) as (client, app):
        items = [{"content": text, "said_at": day(offset)} for offset, text in BOOKS]
        items += [{"content": text, "said_at": day(20 + 60 * n)} for n, text in enumerate(FILLER)]
        await call(client, "remember_many", items=items)
        out = await call(client, "reflect", force=True)
        task = out["task"]
        assert out["status"] == "needs_model"
        assert '- "digests": [{"topic", "content", "evidence_ids", "digest_id"}]: a thing' in task
        assert "Current digests (summaries of one thing the user told about; newest first):\n(none yet)" in task
        assert '"digest_id": "d1" rewrites that digest whole' in task
        evidence = [aliases(task, text) for _, text in BOOKS]
        digest = {"topic": "books", "content": DIGEST, "evidence_ids": evidence}
        done = await call(client, "reflect", task_id=out["task_id"], answer={"digests": [digest]})
        assert done["status"] == "completed" and done["digests_written"] == 1

        found = await call(client, "recall", query="What books have I read?")
        first = found["results"][0]
        assert found["gathered"] is not None and first["kind"] == "digest" and first["content"] == DIGEST
        assert first["digest_of"] == len(BOOKS) and first["excerpt"] is None
        assert first["happened"] == f"{day(0)}..{day(330)}" and first["told_at"][:10] == day(330)
        summarized = [link["id"] for link in first["links"] if link["relation"] == "summarizes"]
        assert len(summarized) == len(BOOKS)
        text = (await client.call_tool("recall", {"query": "What books have I read?"})).content[0].text
        assert "a digest, then spread over" in text.splitlines()[0]
        line = first_line_of_hits(text)
        assert (
            f"happened {day(0)}..{day(330)}, digest of 7 memories]" in line and "Project Hail Mary (2025-12-02)" in line
        )
        old_id = first["id"]

        # A new book, months later: the next task shows the digest as [d1]; the answer rewrites it whole.
        clock.now += timedelta(days=40)
        await call(client, "remember", content=NEW_BOOK)
        out = await call(client, "reflect", force=True)
        task = out["task"]
        d1 = next(line for line in task.splitlines() if line.startswith("[d1]"))
        assert "digest of 7 memories" in d1 and "topic «books»" in d1 and DIGEST in d1
        assert not re.search(r"^\[m\d+\].*Books read", task, re.MULTILINE)  # a digest is never a new memory
        rewritten = DIGEST + f"; Lessons in Chemistry ({clock.now.date().isoformat()})"
        redo = {"topic": "books", "content": rewritten, "evidence_ids": [aliases(task, NEW_BOOK)], "digest_id": "d1"}
        twice = {**redo, "content": rewritten + "."}  # a second rewrite of [d1] in one answer is left out
        done = await call(client, "reflect", task_id=out["task_id"], answer={"digests": [redo, twice]})
        assert done["digests_written"] == 1

        found = await call(client, "recall", query="What books have I read?")
        first = found["results"][0]
        assert first["kind"] == "digest" and first["content"] == rewritten and first["digest_of"] == len(BOOKS) + 1
        assert old_id not in [hit["id"] for hit in found["results"]]
        assert DIGEST not in [hit["content"] for hit in found["results"]]
        assert first["happened"] == f"{day(0)}..{clock.now.date().isoformat()}"
        ended = await scalar(
            app, "SELECT superseded_by::text FROM memories WHERE id = :i AND valid_until IS NOT NULL", i=old_id
        )
        assert ended == first["id"]
        live = "SELECT count(*) FROM memories WHERE user_id = :u AND kind = 'digest' AND valid_until IS NULL"
        assert await scalar(app, live, u=app.settings.user) == 1


async def test_a_digest_citing_what_the_task_did_not_show_is_refused_by_name(host_settings):
    async with connect(host_settings(), Clock(NOW)) as (client, app):
        items = [{"content": text, "said_at": day(offset)} for offset, text in BOOKS[:3]]
        await call(client, "remember_many", items=items)
        out = await call(client, "reflect", force=True)
        evidence = [aliases(out["task"], text) for _, text in BOOKS[:3]]
        unknown = {
            "topic": "books",
            "content": "Books: Dune, Remains of the Day, Piranesi",
            "evidence_ids": [*evidence, "m99"],
        }
        error = await call_error(client, "reflect", task_id=out["task_id"], answer={"digests": [unknown]})
        assert "digests[0].evidence_ids[3]: 'm99' is not a memory this task showed" in error
        no_digest = {**unknown, "evidence_ids": evidence, "digest_id": "d4"}
        error = await call_error(client, "reflect", task_id=out["task_id"], answer={"digests": [no_digest]})
        assert "digests[0].digest_id: 'd4' is not a digest this task showed" in error
        count = "SELECT count(*) FROM memories WHERE user_id = :u AND kind = 'digest'"
        assert await scalar(app, count, u=app.settings.user) == 0
        # Two memories make no digest: the answer is applied, the digest left out.
        short = {**unknown, "evidence_ids": evidence[:2]}
        done = await call(client, "reflect", task_id=out["task_id"], answer={"digests": [short]})
        assert done["status"] == "completed" and done["digests_written"] == 0


async def test_the_servers_model_writes_a_digest_with_the_same_prompt_and_answer(settings_factory):
    llm = ScriptedLLM(
        lambda p: answer(
            digests=[{"topic": "books", "content": DIGEST, "evidence_ids": [alias(p, text) for _, text in BOOKS]}]
        )
    )
    async with connect(settings_factory(), Clock(NOW), llm) as (client, app):
        user = app.settings.user
        items = [{"content": text, "said_at": day(offset)} for offset, text in BOOKS]
        await call(client, "remember_many", items=items)
        out = await call(client, "reflect", force=True)
        assert out["status"] == "completed" and out["llm"] == "scripted" and out["digests_written"] == 1
        assert "Current digests" in llm.prompts[0].user and '- "digests": [{' in llm.prompts[0].user
        again = await call(client, "reflect", force=True)
        assert again["memories_scanned"] == 0  # the digest is no new memory: nothing waits
        found = await call(client, "recall", query="Which books did I read last year?", kinds=["digest"])
        assert [hit["content"] for hit in found["results"]] == [DIGEST]
        # A digest holds the words of what it summarizes: forgetting one of them forgets the digest too.
        book = next(link["id"] for link in found["results"][0]["links"] if link["relation"] == "summarizes")
        await call(client, "forget", memory_id=book)
        found = await call(client, "recall", query="Which books did I read last year?", kinds=["digest"])
        assert found["results"] == []
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u AND kind = 'digest'", u=user) == 0
        reasons = (
            "SELECT array_agg(reason ORDER BY reason) FROM memory_history WHERE user_id = :u AND action = 'forget'"
        )
        assert await scalar(app, reasons, u=user) == ["a digest of a forgotten memory", "user_request"]


def _hit(content: str, kind: str, score: float, told: datetime, excerpt: str | None = None) -> RecallHit:
    return RecallHit(
        id=content[:8],
        content=content,
        kind=kind,
        score=score,
        event_time=None,
        told_at=told,
        created_at=told,
        temporality="current",
        namespace="default",
        importance=5,
        source="search",
        excerpt=excerpt,
        digest_of=3 if kind == "digest" else None,
    )


def test_gather_puts_a_digest_first_and_whole():
    told = datetime(2025, 5, 1, tzinfo=UTC)
    hits = [
        _hit("Dune on the first day", "episodic", 0.9, told),
        _hit("Piranesi on the first day", "episodic", 0.8, told),
        _hit("Middlemarch later " * 30, "episodic", 0.7, told + timedelta(days=9), excerpt="…Middlemarch…"),
        _hit("Books read: " + "Dune, Piranesi, Middlemarch " * 20, "digest", 0.5, told, excerpt="…cut…"),
    ]
    pieces = gather(hits, 10, 6000, UTC, "What books have I read?")
    assert pieces.hits[0].kind == "digest"
    assert pieces.hits[0].excerpt is None  # never cut to an excerpt
    assert pieces.hits[1].content == "Dune on the first day" and pieces.occasions == 2  # a digest is no occasion
