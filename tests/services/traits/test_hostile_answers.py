"""Answers to host tasks and other model-facing text, as an adversary writes them (issue 39): every parser is
linear in its input and bounded, and refuses what it cannot take with the field and the limit named — never
an internal error, never a stalled server."""

from __future__ import annotations

import anyio
import pytest

from tests.conftest import call, call_error, connect

pytestmark = pytest.mark.anyio
MORNING = ["I had two coffees before my 6am run", "Morning run done, 10k by the river", "Coffee and a jog again"]


@pytest.fixture
def host_settings(settings_factory, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return lambda **kw: settings_factory(llm="host", **kw)


async def _task(client) -> str:
    for text in MORNING:
        await call(client, "remember", content=text)
    return (await call(client, "reflect", force=True))["task_id"]


async def test_an_unclosed_fence_of_spaces_is_refused_in_linear_time(host_settings):
    """ "```json" and 60,000 spaces held the event loop 25.5 s (quadratic in the length; 190,000 would take
    minutes). Now it is read once and refused as no JSON; the bound is a hundred times what it takes."""
    async with connect(host_settings()) as (client, _):
        task_id = await _task(client)
        with anyio.fail_after(60):
            error = await call_error(client, "reflect", task_id=task_id, answer="```json" + " " * 190_000)
        assert "answer" in error and "no JSON object" in error
        assert (await call(client, "recall", query="coffee"))["results"]  # the server serves on


async def test_deep_nesting_and_an_answer_too_long_are_refused_with_the_limit(host_settings):
    """100,000 `[` ended in "internal error" (RecursionError); an answer has a bound on its length."""
    async with connect(host_settings()) as (client, _):
        task_id = await _task(client)
        deep = await call_error(client, "reflect", task_id=task_id, answer="[" * 100_000)
        assert "answer" in deep and "nested too deeply" in deep
        prose = 'My answer: {"links": []}' + " " * 200_001  # prose around JSON: a string to the end
        long = await call_error(client, "reflect", task_id=task_id, answer=prose)
        assert "answer" in long and "the limit is 200,000" in long
        extraction = await call(client, "ingest_conversation", messages=[{"role": "user", "content": "I live in Oslo"}])
        wrong = await call_error(client, "ingest_conversation", task_id=extraction["task_id"], answer="[" * 100_000)
        assert "nested too deeply" in wrong


async def test_an_answer_has_a_bound_on_its_items(host_settings):
    """A valid answer of 2,000 traits and 5,000 links held the user's reflection lock for 23 minutes. Each list
    has a bound; an answer over it is refused naming the list, and nothing is applied."""
    async with connect(host_settings()) as (client, _):
        task_id = await _task(client)
        behaviors = [{"content": f"Habit number {n}", "evidence_ids": ["m1"]} for n in range(51)]
        error = await call_error(client, "reflect", task_id=task_id, answer={"new_behaviors": behaviors})
        assert "new_behaviors" in error and "50" in error and "nothing was applied" in error
        links = [{"source_id": "m1", "target_id": "m2"}] * 201
        error = await call_error(client, "reflect", task_id=task_id, answer={"links": links})
        assert "links" in error and "200" in error
        ids = {"content": "Runs", "evidence_ids": ["m1"] * 51}
        error = await call_error(client, "reflect", task_id=task_id, answer={"new_behaviors": [ids]})
        assert "evidence_ids" in error
        done = await call(client, "reflect", task_id=task_id, answer={"new_behaviors": behaviors[:2]})
        assert done["traits_created"] == 2  # the same task, answered within the bounds
