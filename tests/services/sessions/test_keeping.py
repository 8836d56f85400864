"""A Claude Code session kept by its hooks (issue 62), at the service: its statements in their scope (the project's
namespace, or the default one for what is about the user), and the model's later reading of its queued piece kept
in the same scope — a project's words do not become global when a model reads them, also when the rules kept none
of the piece's words (the piece keeps its project in the queue)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from engrain.reading.chats import claude_code
from engrain.reading.projects import namespace_of
from engrain.services.memories.extraction import Extraction
from tests.conftest import running

pytestmark = pytest.mark.anyio


STATED = "We use PostgreSQL 16 here. I prefer answers in British English."
ASKED = "Can you move the retry logic into its own module and then run the tests?"  # the rules keep nothing of it


@pytest.mark.parametrize(("words", "kept_by_rules"), [(STATED, 2), (ASKED, 0)])
async def test_a_sessions_words_and_their_reading_by_a_model_keep_their_scope(
    settings_factory, tmp_path: Path, words: str, kept_by_rules: int
):
    project = namespace_of(str(tmp_path / "alpha"))
    said = {"type": "user", "timestamp": "2026-12-01T10:00:00Z", "cwd": str(tmp_path), "message": {"content": words}}
    log = tmp_path / "s-9.jsonl"
    log.write_text(json.dumps(said) + "\n")
    async with running(settings_factory()) as app:
        user = app.settings.user
        kept = await app.session_keeper.keep(user, log, project)
        assert (kept.messages, kept.kept) == (1, kept_by_rules)
        assert (await app.session_keeper.keep(user, log, project)).messages == 0  # read on from where it stopped

        db = await app.database()
        async with db.sessions.begin() as s:
            piece = await app.import_queue.next(s, user)
            assert piece is not None
            reading = Extraction.model_validate(
                {
                    "memories": [
                        {"content": "The project's database is PostgreSQL 16 with pgvector"},
                        {"content": "I prefer answers in British English"},
                    ],
                    "summary": "Which database the project uses.",
                }
            )
            told = piece.conversation.latest
            await app.import_queue.apply(s, user, piece.queued, piece.provisional, reading, "test", told)
        live = "SELECT content, namespace FROM memories WHERE user_id = :u AND valid_until IS NULL"
        async with db.sessions() as s:
            rows = (await s.execute(text(live), {"u": user})).all()
    assert sorted(rows) == [
        ("Conversation summary: Which database the project uses.", project),
        ("I prefer answers in British English", "default"),
        ("The project's database is PostgreSQL 16 with pgvector", project),
    ]


def said(words: str, minute: int) -> str:
    """One of the user's lines of a Claude Code transcript."""
    line = {"type": "user", "timestamp": f"2026-12-01T10:{minute:02d}:00Z", "message": {"content": words}}
    return json.dumps(line) + "\n"


async def test_a_transcript_is_read_on_from_where_the_last_hook_left_it(settings_factory, tmp_path: Path):
    """Each Stop reads only what was appended since the last; a line Claude Code is still writing (no newline yet)
    is read once it is whole, not refused as broken JSON; a file read whole gives the same messages."""
    project = namespace_of(str(tmp_path / "beta"))
    log = tmp_path / "s-10.jsonl"
    first, second = said("I prefer tabs over spaces.", 1), said("We deploy this service with Helm.", 2)
    log.write_text(first + second[:30])
    async with running(settings_factory()) as app:
        user = app.settings.user
        assert (await app.session_keeper.keep(user, log, project)).messages == 1
        with log.open("a") as f:
            f.write(second[30:])
        assert (await app.session_keeper.keep(user, log, project)).messages == 1
        assert (await app.session_keeper.keep(user, log, project)).messages == 0
    read_once = claude_code.read_on(log)
    assert claude_code.read_on(log, read_once) == read_once  # read on at its end: nothing new
    assert [m.text for m in read_once.chat.messages] == [
        "I prefer tabs over spaces.",
        "We deploy this service with Helm.",
    ]
    assert read_once.offset == log.stat().st_size
