"""One clock for plans (issue 52, part 3), through a real MCP client: the same plan, told in a conversation of
2024-01-06 to a fresh home years later by the server's clock, is judged at the user's time of that conversation on
every path that stores it — `remember`, `remember_many`, `ingest_conversation` read by the rules, by a model and
by the calling model — and shown alike by the result, the intentions, the profile and recall's marks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.conftest import Clock, call, connect, line_ids
from tests.scripted import ScriptedLLM

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)  # the server's day, years after the conversation
SAID = "2024-01-06T18:00:00Z"
PLAN = "We are off to Canada next month for our honeymoon!"
TALK = [
    {"role": "user", "content": PLAN, "said_at": SAID},
    {"role": "assistant", "content": "Congratulations! Banff is lovely in February.", "said_at": SAID},
]
# The model's reading of the conversation: a plan for February 2024.
READ = {"memories": [{"content": PLAN, "temporality": "prospective", "event_time": "2024-02", "message": 1}]}


async def stored_plan(client, path: str) -> str:
    """The id of the plan, stored through `path`."""
    if path == "remember":
        return (await call(client, "remember", content=PLAN, said_at=SAID))["id"]
    if path == "remember_many":
        return (await call(client, "remember_many", items=[{"content": PLAN, "said_at": SAID}]))["results"][0]["id"]
    out = await call(client, "ingest_conversation", messages=TALK)
    if path == "ingest_host":
        assert out["status"] == "needs_model", out
        out = await call(client, "ingest_conversation", task_id=out["task_id"], answer=READ)
    return out["created"][0]


@pytest.mark.parametrize("path", ["remember", "remember_many", "ingest_rules", "ingest_model", "ingest_host"])
async def test_a_plan_is_judged_at_the_users_time_of_its_conversation_on_every_path(
    settings_factory, host_settings, path
):
    settings = {
        "ingest_rules": lambda: settings_factory(llm="none"),
        "ingest_model": lambda: settings_factory(),
        "ingest_host": lambda: host_settings(),
    }.get(path, lambda: settings_factory(llm="none"))()
    llm = ScriptedLLM(READ) if path == "ingest_model" else None
    async with connect(settings, Clock(NOW), llm) as (client, _):
        plan_id = await stored_plan(client, path)
        detail = await call(client, "recall", query="honeymoon in Canada")
        intentions = (await client.read_resource("engrain://intentions")).contents[0].text
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        recalled = (await client.call_tool("recall", {"query": "honeymoon in Canada"})).content[0].text
    hit = next(h for h in detail["results"] if h["id"] == plan_id)
    assert (hit["temporality"], hit["happened"]) == ("prospective", "2024-02"), hit
    assert line_ids(intentions, "Upcoming") == [plan_id[:8]], intentions
    assert plan_id[:8] in line_ids(profile, "Upcoming plans"), profile
    line = next(x for x in recalled.splitlines() if x.endswith(f"({plan_id[:8]})"))
    assert "2024-02, plan]" in line and "overdue" not in line, line


@pytest.mark.parametrize("path", ["remember", "remember_many"])
async def test_a_period_a_question_names_is_read_on_the_users_clock(settings_factory, path):
    """ "What's coming up next month?" asked of the history of January 2024 means February 2024, where the plan is,
    not the month after the server's day (2026-12): the plan scores for the window the question names."""
    async with connect(settings_factory(llm="none"), Clock(NOW)) as (client, _):
        plan_id = await stored_plan(client, path)
        await call(client, "remember", content="I renewed my passport in Leeds.", said_at="2023-12-12")
        ahead = await call(client, "recall", query="What's coming up next month?", explain=True)
        later = await call(client, "recall", query="What's coming up next month?", explain=True, as_of="2026-11-28")
    hit = next(h for h in ahead["results"] if h["id"] == plan_id)
    assert hit["breakdown"]["temporal"] > 0 and ahead["results"][0]["id"] == plan_id, ahead["results"]
    # Asked as of a moment, the period counts from that moment, as before: December 2026 holds no plan.
    assert all(h["breakdown"]["temporal"] == 0 for h in later["results"]), later["results"]
