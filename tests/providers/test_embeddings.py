"""Embedders: the hash embedder, spec parsing, the OpenAI-compatible client against a local fake
server, and the manager's batching and failure reporting."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import numpy as np
import pytest

from engrain.errors import Unavailable
from engrain.providers.embedder_manager import EmbedderManager
from engrain.providers.embeddings import EmbedderSpec, HashEmbedder, OpenAICompatibleEmbedder, parse_spec
from tests.conftest import call, connect, execute, scalar
from tests.fake_http import json_server


def cos(a, b) -> float:
    return float(np.dot(a, b))


def test_hash_embedder_is_deterministic_normalised_and_lexical():
    h = HashEmbedder()
    a, a2, near, far = h.embed(["I adore sushi", "I adore sushi", "I adore sushi rolls", "Quarterly tax filing"])
    assert a == a2 and len(a) == 384
    assert np.linalg.norm(a) == pytest.approx(1.0, abs=1e-5)
    assert cos(a, near) > 0.6 > cos(a, far)
    assert h.embed([""])[0] == [0.0] * 384


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("auto", EmbedderSpec("auto")),
        ("hash", EmbedderSpec("hash")),
        ("fastembed:BAAI/bge-base-en-v1.5", EmbedderSpec("fastembed", "BAAI/bge-base-en-v1.5")),
        ("fastembed", EmbedderSpec("fastembed", "BAAI/bge-small-en-v1.5")),
        ("sentence-transformers:/models/minilm", EmbedderSpec("sentence-transformers", "/models/minilm")),
        (
            "openai-compatible:http://localhost:11434/v1:nomic-embed-text:latest",
            EmbedderSpec("openai-compatible", "nomic-embed-text:latest", "http://localhost:11434/v1"),
        ),
        (
            "openai-compatible:https://api.openai.com/v1:text-embedding-3-small",
            EmbedderSpec("openai-compatible", "text-embedding-3-small", "https://api.openai.com/v1"),
        ),
    ],
)
def test_parse_spec(value, expected):
    assert parse_spec(value) == expected


@pytest.mark.parametrize("value", ["bert", "openai-compatible:nourl", "sentence-transformers:"])
def test_parse_spec_rejects_nonsense(value):
    with pytest.raises(ValueError, match="ENGRAIN_EMBEDDER"):
        parse_spec(value)


def embeddings_reply(path: str, headers: dict, body: dict) -> tuple[int, dict]:
    """The OpenAI /v1/embeddings wire format; vectors from the hash embedder (dim 16), scaled and out of order."""
    vectors = HashEmbedder(dim=16).embed(body["input"])
    data = [
        {"object": "embedding", "index": i, "embedding": [v * 3 for v in vec]}
        for i, vec in reversed(list(enumerate(vectors)))
    ]
    usage = {"prompt_tokens": 1, "total_tokens": 1}
    return 200, {"object": "list", "data": data, "model": body["model"], "usage": usage}


@pytest.fixture
def fake_api() -> Iterator[tuple[str, list[dict]]]:
    with json_server(embeddings_reply) as (url, seen):
        yield f"{url}/v1", seen


def test_openai_compatible_embedder(fake_api):
    url, seen = fake_api
    emb = OpenAICompatibleEmbedder(url, "nomic-embed-text:latest", api_key="sk-test")
    assert emb.dim == 16 and emb.id == "openai-compatible:nomic-embed-text:latest"
    a, _ = emb.embed(["first", "second"])
    assert np.linalg.norm(a) == pytest.approx(1.0, abs=1e-5)  # re-normalised
    assert a == pytest.approx(HashEmbedder(dim=16).embed(["first"])[0], abs=1e-6)  # order restored by index
    last = seen[-1]
    assert last["path"] == "/v1/embeddings" and last["headers"]["authorization"] == "Bearer sk-test"
    assert last["body"]["input"] == ["first", "second"] and last["body"]["model"] == "nomic-embed-text:latest"


@pytest.mark.anyio
async def test_server_with_openai_compatible_embedder(settings_factory, fake_api):
    settings = settings_factory(embedder=f"openai-compatible:{fake_api[0]}:fake-embed", embedder_api_key="k")
    async with connect(settings) as (client, app):
        out = await call(client, "remember", content="Keeps bees in the garden")
        assert (
            await scalar(app, "SELECT embedder FROM memory_vectors WHERE user_id = :u", u=app.settings.user)
            == "openai-compatible:fake-embed"
        )
        found = await call(client, "recall", query="bees garden")
        assert found["results"][0]["id"] == out["id"] and found["embedder"] == "openai-compatible:fake-embed"


@pytest.mark.anyio
async def test_concurrent_requests_share_one_model_call(settings_factory):
    manager = EmbedderManager(settings_factory())
    calls: list[int] = []
    manager.start()
    model = await manager.ready()
    original = model.embed
    model.embed = lambda texts: calls.append(len(texts)) or original(texts)  # type: ignore[method-assign]
    results = await asyncio.gather(*(manager.embed_one(f"text number {i}") for i in range(20)))
    assert calls == [20]
    assert [vec for _, vec in results] == original([f"text number {i}" for i in range(20)])


@pytest.mark.anyio
async def test_unloadable_model_is_reported_and_recall_still_answers_by_text(settings_factory):
    settings = settings_factory(embedder="sentence-transformers:/nonexistent/model/path")
    async with connect(settings) as (client, app):
        with pytest.raises(Unavailable, match="failed to load"):
            await app.embeddings.ready()
        with pytest.raises(Unavailable, match="failed to load"):  # a failed model stays failed: no load again
            await app.embeddings.ready()
        assert app.embeddings.state == "failed"
        result = await client.call_tool("remember", {"content": "anything"})  # stored, by its words only
        assert not result.is_error
        assert "Stored by its words only: no model of meaning could load" in result.content[0].text
        assert await scalar(app, "SELECT count(*) FROM memories WHERE user_id = :u", u=app.settings.user) == 1
        assert await scalar(app, "SELECT count(*) FROM memory_vectors WHERE user_id = :u", u=app.settings.user) == 0
        status = json.loads((await client.read_resource("engrain://status")).contents[0].text)
        assert status["embedder"]["state"] == "failed"
        assert "/nonexistent/model/path" in status["embedder"]["message"]
        # Memories stored earlier by another model are still found by full text.
        await execute(
            app,
            "WITH added AS (INSERT INTO memories (id, user_id, kind, content, content_hash) "
            "VALUES (gen_random_uuid(), :u, 'fact', 'Grows chillies on the windowsill', 'h') RETURNING user_id, id) "
            "INSERT INTO memory_vectors SELECT user_id, id, 'old', '[0.1, 0.2, 0.3]' FROM added",
            u=app.settings.user,
        )
        found = await call(client, "recall", query="chillies windowsill")
        assert found["embedder"] is None
        assert [r["content"] for r in found["results"]] == ["Grows chillies on the windowsill"]


@pytest.mark.anyio
async def test_query_embeddings_are_cached(settings_factory):
    manager = EmbedderManager(settings_factory())
    manager.start()
    model = await manager.ready()
    calls: list[int] = []
    original = model.embed
    model.embed = lambda texts: calls.append(len(texts)) or original(texts)  # type: ignore[method-assign]
    first = await manager.embed_cached("where does Anna work")
    again = await manager.embed_cached("where does Anna work")
    assert first[1] == again[1] and calls == [1]
    await manager.embed_cached("something else")
    assert calls == [1, 1]
