"""Recall by meaning with a real model that ships inside a pip package (no model hub).

`auto` serves the packaged all-MiniLM-L6-v2 for an English home, fetches nothing (issue 50: a model fetched
at run time changed recall under the user, unmeasured), and says which model serves and why.
"""

from __future__ import annotations

import json

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


async def test_auto_uses_packaged_model_and_recalls_by_meaning(settings_factory, fresh_database_url):
    """A database of its own: an `auto` server re-embeds every vector another model made."""
    settings = settings_factory(embedder="auto", database_url=fresh_database_url)
    async with connect(settings) as (client, app):
        for text in DISTRACTORS:
            await call(client, "remember", content=text)
        sushi = await call(client, "remember", content="I adore sushi")
        found = await call(client, "recall", explain=True, query="favorite Japanese food", limit=3)
        print(json.dumps(found, indent=2, default=str))
        assert found["embedder"] == "minilm:all-minilm-l6-v2-int8"
        assert found["results"][0]["id"] == sushi["id"]
        assert found["results"][0]["breakdown"]["text"] is False  # found by meaning, not by words
        status = json.loads((await client.read_resource("engrain://status")).contents[0].text)["embedder"]
    assert status["reason"] == "auto: the packaged English model; most memories are in English"
    assert status["languages"] == "meaning in English only; other languages by words"
    assert status["message"] == "" and app.embeddings.multilingual is False
