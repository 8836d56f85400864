"""A plan whose time has passed is history that answers "when was I planning to…" (issue 60, part 3), through a real
MCP client: a half-year history told session by session (one memory per turn, told at its session's date), the
scheduler's expiry job between sessions, then questions about a plan told in its first session.

Before the fix the plan words of such a question ("planning") read it as a question about what is ahead: the
plans of the history's coming week were candidates with +0.3 each and pushed the studio plan, which the expiry
job had made history, below them."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from engrain.scheduler import jobs
from tests.conftest import Clock, call, connect

pytestmark = pytest.mark.anyio
NOW = datetime(2023, 7, 8, 18, 0, tzinfo=UTC)  # the server's clock: the evening of the last session
PLAN = "I'm planning to open my own dance studio next month."
SESSIONS = [
    (
        "2023-01-20T15:00:00Z",
        [
            "I lost my job at the bank last week.",
            PLAN,
            "Dancing has always been my escape since I was a kid.",
            "My wife Anna thinks the studio is a great idea.",
            "I'm going to visit my brother in Denver on Saturday.",
        ],
    ),
    (
        "2023-02-04T15:00:00Z",
        [
            "I've been looking at spaces for the studio downtown.",
            "The rent for studio spaces in the city is really high.",
            "I went to a salsa class at the community center last night.",
            "I'm meeting the bank about a loan for the studio on Tuesday.",
            "My daughter Lily wants to learn ballet.",
        ],
    ),
    (
        "2023-02-25T15:00:00Z",
        [
            "I found the perfect spot for my dance studio on Main Street!",
            "I signed the lease for the studio yesterday.",
            "The studio needs new floors and mirrors before it can open.",
            "I'm planning to paint the studio walls this weekend.",
        ],
    ),
    (
        "2023-03-18T15:00:00Z",
        [
            "I hired two dance teachers for the studio.",
            "I'm nervous about money now that I have no salary.",
            "I watched a great hip hop documentary last night.",
            "I'm planning to print flyers for the studio next week.",
        ],
    ),
    (
        "2023-04-08T15:00:00Z",
        [
            "The studio is finally open, we had the grand opening last Friday!",
            "So many people came to the opening, even my old colleagues from the bank.",
            "I started posting dance videos on Instagram to grow the studio's social media presence.",
            "Lily loves her ballet lessons.",
        ],
    ),
    (
        "2023-05-06T15:00:00Z",
        [
            "We have twenty regular students at the studio now.",
            "I taught a contemporary class for kids on Saturday.",
            "I still dance every day, it keeps me sane.",
            "Anna and I celebrated our anniversary at an Italian restaurant.",
        ],
    ),
    (
        "2023-06-03T15:00:00Z",
        [
            "I went to a dance festival in Miami last weekend.",
            "The studio's Instagram has two thousand followers now.",
            "I'm thinking about adding a hip hop class in the fall.",
            "My knee hurts after long rehearsals.",
        ],
    ),
    (  # plans still ahead at the history's end, several of them about the studio
        "2023-07-08T15:00:00Z",
        [
            "I'm planning a dance competition for my students at the studio next week.",
            "I'm planning to buy new speakers for the studio on Wednesday.",
            "We're planning a summer dance showcase at the studio on July 15.",
            "I'm planning to take Lily to her ballet recital on Sunday.",
            "I'm going to meet a salsa teacher at the studio on Tuesday.",
            "I'm planning to take a vacation with Anna in August.",
        ],
    ),
]
AHEAD = SESSIONS[-1][1][:5]  # dated within the coming week of the history's last day


@pytest.fixture
async def history(settings_factory):
    """The history told session by session, with the expiry job run after each as the scheduler runs it between
    sessions; the ids of the turns by their text."""
    async with connect(settings_factory(), Clock(NOW)) as (client, app):
        ids: dict[str, str] = {}
        for said_at, turns in SESSIONS:
            out = await call(client, "remember_many", items=[{"content": t, "said_at": said_at} for t in turns])
            ids |= {turn: result["id"] for turn, result in zip(turns, out["results"], strict=True)}
            await jobs.expiry(app.job_context, app.clock(), None, False)
        yield client, ids


@pytest.mark.parametrize(
    "question",
    [
        "When was I planning to open my dance studio?",
        "When am I planning to open my dance studio?",
        "When did I plan to open my dance studio?",
    ],
)
async def test_a_passed_plan_answers_when_it_was_planned(history, question):
    client, ids = history
    result = await client.call_tool("recall", {"query": question, "explain": True})
    hits = result.structured_content["results"]
    plan = next(h for h in hits if h["id"] == ids[PLAN])
    assert hits[0]["id"] == ids[PLAN], [(h["content"], h["breakdown"]) for h in hits[:4]]
    # It is history now (the expiry job), keeps its whole score, and says when: "next month" from January.
    assert plan["temporality"] == "historical" and plan["breakdown"]["penalty"] == 1.0
    assert plan["breakdown"]["temporal"] == pytest.approx(0.1)
    # The coming week's plans gain nothing for being ahead: the question asks for the date of one plan.
    assert all(h["breakdown"]["temporal"] <= 0.1 for h in hits), [(h["content"], h["breakdown"]) for h in hits]
    # The model reads the plan with the day it was told and the month it was for.
    line = next(line for line in result.content[0].text.splitlines() if ids[PLAN][:8] in line)
    assert re.search(r"\[said 2023-01-20 · happened 2023-02\b", line), line
    assert "«I'm planning to open my own dance studio next month.»" in line


async def test_a_plan_named_by_what_follows_is_found_whenever_it_fell(history):
    client, ids = history
    hits = (await call(client, "recall", query="What was I planning to open?", explain=True))["results"]
    assert hits[0]["id"] == ids[PLAN], [(h["content"], h["breakdown"]) for h in hits[:4]]


async def test_what_is_coming_up_still_prefers_the_plans_ahead(history):
    client, ids = history
    hits = (await call(client, "recall", query="What's coming up for me?", explain=True))["results"]
    assert {h["id"] for h in hits[: len(AHEAD)]} == {ids[t] for t in AHEAD}, [h["content"] for h in hits]
    assert ids[PLAN] not in {h["id"] for h in hits if h["breakdown"]["temporal"] > 0}
