"""The assistant's words are the assistant's (issue 61, point 2), through a real MCP client on the host route: a
conversation whose assistant — a friend in the assistant's role — tells of its own life is ingested; reflection's
task lists what the user said as learned about the user and none of what the friend said; and "What are my
hobbies?" finds the user's hobbies before the friend's, while "what did you recommend…" still finds the friend's
reply."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from tests.conftest import Clock, call, connect
from tests.scripted import ScriptedLLM, answer

pytestmark = pytest.mark.anyio
NOW = datetime(2024, 6, 20, 9, 0, tzinfo=UTC)
MINILM = "minilm-int8"
HOBBY = "I spend my weekends hiking in the Sintra hills and painting watercolours."
THEIR_HOBBIES = "My main hobbies are video games and movies, so I mostly stay in on weekends."
RECOMMENDED = "You should try the Moominvalley watercolour set, it is cheap and the colours are lovely for skies."
# Two sessions between the user and a friend who plays the assistant's part and tells of their own life.
SESSIONS = [
    (
        "2024-05-04T18:00:00+00:00",
        [
            ("user", "Hey Ken! How was your week?"),
            ("assistant", "Pretty good! I live in Osaka now, so I spent the week trying new ramen shops."),
            ("user", "I moved to Lisbon last spring and I still get lost in the old town."),
            ("assistant", THEIR_HOBBIES),
            ("user", HOBBY),
            ("assistant", "Painting sounds relaxing. I tried drawing once but gave up after a week."),
            ("user", "I work as a nurse at the children's hospital, so quiet weekends matter to me."),
            ("assistant", "That must be tiring. I work from home as a translator, which is quiet."),
            ("user", "My sister Ana is coming to visit in June."),
            ("assistant", RECOMMENDED),
        ],
    ),
    (
        "2024-06-15T18:00:00+00:00",
        [
            ("user", "Guess what, I started learning the cello last month."),
            ("assistant", "Wow! I just adopted a cat named Mochi, she sleeps on my keyboard all day."),
            ("user", "I love cats but I'm allergic to them, sadly."),
            ("assistant", "Oh no. Mochi is a tabby and she is very shy around guests."),
            ("user", "Ana and I hiked to the Cabo da Roca lighthouse last Sunday."),
            ("assistant", "Sounds beautiful. I watched three movies last weekend and played Zelda all night."),
            ("user", "My favourite painter is Turner because of his skies."),
            ("assistant", "I prefer anime over painting, honestly; my favourite film is Spirited Away."),
            ("user", "I'm planning to paint the lighthouse from my hike next weekend."),
            ("assistant", "Send me a picture when you finish it!"),
        ],
    ),
]
THEIRS = [text for _, turns in SESSIONS for role, text in turns if role == "assistant"]
MINE = [HOBBY, "I work as a nurse at the children's hospital", "My favourite painter is Turner"]


def learned(task: str) -> list[str]:
    """The lines a reflection task lists under "Recently learned about the user"."""
    section = task.split("Recently learned about the user:\n", 1)[1].split("\n\n", 1)[0]
    return [line for line in section.splitlines() if re.match(r"\[m\d+\]", line)]


async def test_reflection_reads_the_users_words_and_recall_ranks_them_above_the_friends(host_settings):
    async with connect(host_settings(embedder=MINILM), Clock(NOW)) as (client, _):
        for i, (said, turns) in enumerate(SESSIONS):
            messages = [{"role": role, "content": text} for role, text in turns]
            out = await call(client, "ingest_conversation", messages=messages, said_at=said, session_id=f"s{i}")
            assert len(out["replies"]) == 5  # each of the friend's messages is kept, as the assistant's
        out = await call(client, "reflect", force=True)
        task = out["task"]
        lines = learned(task)
        assert not [t for t in THEIRS if t in task], "the friend's words are listed as learned about the user"
        assert all(any(mine in line for line in lines) for mine in MINE), lines
        assert len(lines) == 9 and out["memories_pending"] == 9  # the user's statements (the rules kept them)
        done = await call(client, "reflect", task_id=out["task_id"], answer={"new_trends": []})
        assert done["memories_pending"] == 0  # the watermark passed the replies with the user's words
        again = await call(client, "reflect", force=True)
        assert again["memories_scanned"] == 0 and not again.get("task")  # no reply is new to the next one
        hobbies = await call(client, "recall", query="What are my hobbies?", limit=5)
        recommended = await client.call_tool("recall", {"query": "What watercolour set did you recommend to me?"})
    ranked = [hit["content"] for hit in hobbies["results"]]
    assert ranked[0] != THEIR_HOBBIES, ranked
    assert HOBBY in ranked and (THEIR_HOBBIES not in ranked or ranked.index(HOBBY) < ranked.index(THEIR_HOBBIES))
    found = recommended.structured_content["results"]  # a reply is still found, as the assistant's
    assert found[0]["content"] == RECOMMENDED and found[0]["kind"] == "reply", [hit["content"] for hit in found]
    assert "assistant's reply" in recommended.content[0].text


async def test_the_server_models_reflection_prompt_reads_the_users_words_only(settings_factory):
    """The same on a server with a model of its own: a chat stored turn by turn (`remember_many` with roles)."""
    said, turns = SESSIONS[0]
    llm = ScriptedLLM(answer())
    async with connect(settings_factory(), Clock(NOW), llm) as (client, _):
        items = [{"content": text, "role": role, "said_at": said} for role, text in turns]
        await call(client, "remember_many", items=items)
        done = await call(client, "reflect", force=True)
    [prompt] = llm.prompts
    assert done["status"] == "completed" and done["memories_scanned"] == 5
    assert HOBBY in prompt.user and not [t for t in THEIRS if t in prompt.user]
