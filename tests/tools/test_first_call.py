"""The first calls never wait for the model of meaning, through a real MCP client: while it loads (held back here
by a gate in front of the manager's own loading), `remember` and `remember_many` are stored and acknowledged with
no vector, `recall` finds them by their words and says so in one line; once the model serves, the background pass
gives them their vectors; a process closed before that leaves them to the next start, which embeds them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from mcp import Client

from engrain.config import Settings
from engrain.providers.embeddings import USE_SPEC
from engrain.server.app import create_server
from engrain.server.state import AppState
from tests.conftest import call, connect, scalar

pytestmark = pytest.mark.anyio
LOADING = "(by words only: the model of meaning is still loading)"


def held(app: AppState) -> asyncio.Event:
    """Hold the app's model back: its manager loads it only once the returned gate is set."""
    gate = asyncio.Event()
    load = app.embeddings._load

    async def after_the_gate(after: Callable[[], Awaitable[Any]] | None = None) -> None:
        await gate.wait()
        await load(after)

    app.embeddings._load = after_the_gate  # type: ignore[method-assign]
    return gate


@asynccontextmanager
async def loading(settings: Settings) -> AsyncIterator[tuple[Client, AppState, asyncio.Event]]:
    """A real MCP client against a server whose model is still loading until the gate is set."""
    app = AppState(settings, lambda: datetime.now(UTC))
    gate = held(app)
    async with Client(create_server(app)) as client:
        yield client, app, gate


async def vectors(app: AppState, user: str) -> dict[str, int]:
    """The user's memories, and how many of them have a vector."""
    memories = await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=user)
    embedded = await scalar(app, "SELECT count(*) FROM memory_vectors WHERE user_id = :u", u=user)
    return {"memories": memories, "with a vector": embedded}


async def test_remember_and_recall_while_the_model_loads_then_the_vector_comes(
    settings_factory: Callable[..., Settings],
) -> None:
    settings = settings_factory(embedder=USE_SPEC)
    async with loading(settings) as (client, app, gate):
        stored = await call(client, "remember", content="My sister Ines lives in Porto and teaches piano")
        assert (stored["status"], stored.get("words_only")) == ("created", None)  # its vector follows: no word
        assert app.embeddings.state == "loading"
        again = await call(client, "remember", content="My sister Ines lives in Porto and teaches piano")
        assert (again["status"], again["id"]) == ("duplicate", stored["id"])  # the same text, found without a vector
        assert await vectors(app, settings.user) == {"memories": 1, "with a vector": 0}

        found = await client.call_tool("recall", {"query": "Where does Ines live?"})
        text = found.content[0].text
        assert [line for line in text.splitlines() if line.startswith("(by words only")] == [LOADING]
        assert "Porto" in text
        assert found.structured_content is not None
        assert found.structured_content["words_only"] == "the model of meaning is still loading"
        assert found.structured_content["embedder"] is None
        assert found.structured_content["results"][0]["id"] == stored["id"]

        gate.set()
        model = await app.embeddings.ready()
        await app.drain()  # the pass the write asked for, once the model served
        assert await vectors(app, settings.user) == {"memories": 1, "with a vector": 1}
        made_by = await scalar(app, "SELECT embedder FROM memory_vectors WHERE user_id = :u", u=settings.user)
        assert made_by == model.id

        meant = await client.call_tool("recall", {"query": "Who plays the piano in my family?"})
        assert "by words only" not in meant.content[0].text
        assert meant.structured_content is not None
        assert meant.structured_content["embedder"] == model.id
        assert meant.structured_content["results"][0]["id"] == stored["id"]


async def test_memories_left_without_a_vector_by_a_closed_process_are_embedded_at_the_next_start(
    settings_factory: Callable[..., Settings],
) -> None:
    """As after a kill -9 while the model loaded: the rows committed with no vector; the next server embeds them."""
    settings = settings_factory(embedder=USE_SPEC)
    async with loading(settings) as (client, app, _):
        batch = await call(
            client,
            "remember_many",
            items=[
                {"content": "I run the Lisbon half marathon every March"},
                {"content": "My cat Miso is afraid of the vacuum cleaner"},
                {"content": "I run the Lisbon half marathon every March"},
            ],
        )
        assert (batch["created"], batch["duplicates"]) == (2, 1)
        found = await client.call_tool("recall", {"query": "Miso the cat"})
        assert LOADING in found.content[0].text and "vacuum" in found.content[0].text
        assert await vectors(app, settings.user) == {"memories": 2, "with a vector": 0}
    # closed while the model was still loading: its pass was stopped, the rows stay without a vector

    async with connect(settings.model_copy(update={"embedder": "hash"})) as (client, app):
        await app.embeddings.ready()
        await app.database()
        await app.drain()  # start-up's pass over the memories with no vector
        assert await vectors(app, settings.user) == {"memories": 2, "with a vector": 2}
        made_by = await scalar(app, "SELECT DISTINCT embedder FROM memory_vectors WHERE user_id = :u", u=settings.user)
        assert made_by == (await app.embeddings.ready()).id


async def test_a_model_that_cannot_load_leaves_words(settings_factory: Callable[..., Settings]) -> None:
    """An explicit model that fails to load: memories are stored by their words and found by them, and recall
    says why; no vector is made until a model serves."""
    settings = settings_factory(embedder="fastembed:BAAI/no-such-model")
    async with connect(settings) as (client, app):
        with pytest.raises(Exception, match="failed to load"):
            await app.embeddings.ready()
        stored = await call(client, "remember", content="I take the 7:40 ferry to work on Mondays")
        assert (stored["status"], stored["words_only"]) == ("created", "no model of meaning could load")
        found = await client.call_tool("recall", {"query": "ferry"})
        assert "(by words only: no model of meaning could load)" in found.content[0].text
        assert found.structured_content is not None and found.structured_content["results"][0]["id"] == stored["id"]
        await app.drain()
        assert await vectors(app, settings.user) == {"memories": 1, "with a vector": 0}
