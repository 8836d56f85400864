"""A question that gathers, through a real MCP client (issue 60): a list told over a year comes back one piece per
day told, not as near-copies from the one session that talks most about it; a long memory shows its passages."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from tests.conftest import call, connect

pytestmark = pytest.mark.anyio

START = date(2025, 1, 6)
# Seven books, each told on its own day across the year.
BOOKS = [
    (0, "I finished reading Dune by Frank Herbert, the desert planet book"),
    (45, "Just read The Remains of the Day by Kazuo Ishiguro, a quiet sad book"),
    (90, "I read Piranesi this week, a strange book about an endless house"),
    (150, "My book club picked Middlemarch and I read the whole book in May"),
    (210, "On holiday I read The Overstory, a long book about trees"),
    (270, "I read Klara and the Sun, another Ishiguro book, on the train"),
    (330, "Finished reading Project Hail Mary, a funny science fiction book"),
]
# One long evening about Dune: twelve turns that share the question's words.
DUNE_NIGHT = [
    f"Reading Dune again tonight, the book's chapter {n} about the spice and the sandworms is my favourite part"
    for n in range(1, 13)
]
FILLER = [
    "My sister Ines moved to Porto and teaches piano there",
    "I cook lentil soup every Sunday",
    "The car needs new tyres before winter",
    "I started running three times a week",
    "Work is busy with the quarterly report",
]


def day(offset: int) -> str:
    return (START + timedelta(days=offset)).isoformat()


async def store_year(client) -> None:
    items = [{"content": text, "said_at": day(offset)} for offset, text in BOOKS]
    items += [{"content": text, "said_at": day(300)} for text in DUNE_NIGHT]
    items += [{"content": text, "said_at": day(20 + 30 * n)} for n, text in enumerate(FILLER)]
    out = await call(client, "remember_many", items=items)
    assert out["created"] == len(items)


async def test_a_list_question_gets_one_piece_per_day_across_the_year(settings_factory):
    async with connect(settings_factory()) as (client, _):
        await store_year(client)
        found = await call(client, "recall", query="What books have I read?")
        assert found["gathered"] is not None
        contents = [hit["content"] for hit in found["results"]]
        for _, book in BOOKS:  # every book of the year, not the Dune evening ten times over
            assert book in contents
        days = [hit["told_at"][:10] for hit in found["results"]]
        assert len(set(days[: len(BOOKS) + 1])) == len(BOOKS) + 1  # the first pieces: one per day told
        assert sum(content in DUNE_NIGHT for content in contents) < len(DUNE_NIGHT)
        assert found["gathered"]["occasions"] >= len(BOOKS) + 1
        text = (await client.call_tool("recall", {"query": "What books have I read?"})).content[0].text
        head = text.splitlines()[0]
        assert f"of {found['gathered']['found']} found, spread over" in head and "in the order told" in head
        told = [
            line[line.index("said ") + 5 : line.index("said ") + 15] for line in text.splitlines() if "said " in line
        ]
        assert told == sorted(told)  # the story as it happened


async def test_a_single_fact_question_keeps_its_ranking_and_gather_overrides_the_reading(settings_factory):
    async with connect(settings_factory()) as (client, _):
        await store_year(client)
        one = await call(client, "recall", query="Where does Ines live?")
        assert one["gathered"] is None
        assert one["results"][0]["content"] == FILLER[0]
        forced = await call(client, "recall", query="Dune sandworms", gather=True)
        assert forced["gathered"] is not None
        plain = await call(client, "recall", query="What books have I read?", gather=False)
        assert plain["gathered"] is None


async def test_gathered_text_takes_no_more_than_the_ten_best_whole_results(settings_factory):
    long_reply = (
        "Here is a plan for your garden this year. "
        + "Keep the soil loose and water early in the morning. " * 12
        + "The tomatoes you plant should be staked in June, side shoots pinched. "
        + "Compost in autumn. " * 10
    )
    async with connect(settings_factory()) as (client, _):
        items = [{"content": long_reply, "said_at": day(n * 20), "role": "assistant"} for n in range(6)]
        items += [
            {"content": f"I planted {plant} in the garden", "said_at": day(n * 20 + 3)}
            for n, plant in enumerate(["tomatoes", "basil", "beans", "roses", "garlic", "leeks"])
        ]
        await call(client, "remember_many", items=items)
        text = (await client.call_tool("recall", {"query": "What plants have I grown in the garden?"})).content[0].text
        whole = await client.call_tool("recall", {"query": "What plants have I grown in the garden?", "gather": False})
        assert len(text) <= len(whole.content[0].text)  # no more than the ten best whole results take
        found = await call(client, "recall", query="What plants have I grown in the garden?")
        shortened = [hit for hit in found["results"] if hit["excerpt"]]
        assert shortened and all(len(hit["excerpt"]) < len(hit["content"]) for hit in shortened)
        assert "passages that match" in text
        assert "tomatoes" in next(hit["excerpt"] for hit in shortened)
