"""`engrain reindex`: after a change of embedder every row is re-embedded in batches; an interrupted
run resumes; recall keeps answering (by full text) for rows not yet done."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import engrain.services.memories.reembedding as reembedding_service
from tests.conftest import call, connect, engrain_env, execute, scalar

pytestmark = pytest.mark.anyio


async def test_interrupted_reindex_resumes_and_recall_works_meanwhile(
    settings_factory, fresh_database_url, monkeypatch
):
    monkeypatch.setattr(reembedding_service, "REEMBED_BATCH", 4)
    settings = settings_factory(database_url=fresh_database_url)
    async with connect(settings) as (client, app):
        places = ["Oslo", "Lima", "Hanoi", "Dakar", "Quito", "Perth", "Cork", "Fez", "Bonn", "Nara"]
        for place in places:
            await call(client, "remember", content=f"The lighthouse keeper wrote to {place} about whales")
        await execute(app, "UPDATE memory_vectors SET embedder = 'retired-model' WHERE user_id = :u", u=settings.user)
        assert await app.reembedding.count_stale() == 10

        class Interrupted(Exception):
            pass

        async def stop_after_first(n: int) -> None:
            found = await call(client, "recall", explain=True, query="lighthouse keeper")  # mid-reindex: still answers
            assert len(found["results"]) == 10
            assert sum(1 for h in found["results"] if h["breakdown"]["vector"] == 0) == 6  # by text only
            raise Interrupted

        with pytest.raises(Interrupted):
            await app.reembedding.reembed_stale(on_batch=stop_after_first)
        assert await app.reembedding.count_stale() == 6  # the first batch of 4 stayed done
        assert await app.reembedding.reembed_stale() == 6
        assert (
            await scalar(app, "SELECT count(DISTINCT embedder) FROM memory_vectors WHERE user_id = :u", u=settings.user)
            == 1
        )
        found = await call(client, "recall", explain=True, query="lighthouse keeper")
        assert all(h["breakdown"]["vector"] > 0 for h in found["results"])


LONG = " ".join(
    f"Day {n} of the starter: fed it rye flour and water at a one to one ratio, and it rose by half." for n in range(8)
)


async def test_reindex_command(settings_factory, fresh_database_url, tmp_path):
    settings = settings_factory(database_url=fresh_database_url)
    async with connect(settings) as (client, app):
        await call(client, "remember", content="Fed the sourdough starter")
        await call(client, "remember", content=LONG)
        await app.reembedding.windows_settled()
        await execute(app, "UPDATE memory_vectors SET embedder = 'retired-model'")
        await execute(app, "UPDATE memory_windows SET embedder = 'retired-model'")
    env = engrain_env(tmp_path, ENGRAIN_DATABASE_URL=fresh_database_url)
    done = subprocess.run(
        [sys.executable, "-m", "engrain", "reindex"], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["reembedded"] == report["were_stale"] == 2 and report["embedder"].startswith("hash")
    assert report["windowed"] == 1  # the long memory's windows, made again by the current model
    again = subprocess.run(
        [sys.executable, "-m", "engrain", "reindex"], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert json.loads(again.stdout)["reembedded"] == json.loads(again.stdout)["windowed"] == 0
