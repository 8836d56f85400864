"""A chat is a conversation between the user and an assistant (issue 51), through a real MCP client: what the
assistant said is kept as a reply, found when the user asks what it recommended, and ranked behind the user's
own words otherwise; a standing instruction is recalled by a request that does not repeat its words; and a
reply is never read as the user's fact, plan or preference."""

from __future__ import annotations

import pytest

from tests.conftest import call, connect

pytestmark = pytest.mark.anyio
SAID = "2024-03-04T10:00:00+00:00"
MINILM = "minilm-int8"
BACK = "I've had lower back pain for two weeks since I started working from my couch."
ADVICE = (
    "Assistant: For lower back pain from working on a couch, I'd recommend a lumbar support cushion, a desk at "
    "elbow height, and ten minutes of cat-cow and child's pose stretches every morning. If the pain spreads down a "
    "leg or lasts beyond six weeks, see a physiotherapist."
)
# What a chat holds besides: other replies and user turns, for the answer to outrank.
CHAT = [
    ("user", "Can you help me plan meals for the week? I'm vegetarian."),
    ("assistant", "Sure! Monday: lentil curry. Tuesday: halloumi wraps. Wednesday: mushroom risotto."),
    ("user", "My sister Ana is visiting in May and she loves hiking."),
    ("assistant", "Great, for hiking with Ana in May I'd suggest the coastal trail, which is easy and scenic."),
    ("user", "I'm learning Rust and struggling with the borrow checker."),
    ("assistant", "The borrow checker enforces one mutable or many shared references; try cloning less."),
]


async def test_an_assistant_reply_is_found_by_what_did_you_recommend(settings_factory):
    async with connect(settings_factory()) as (client, _):
        items = [{"content": text, "role": role, "said_at": SAID} for role, text in CHAT]
        items += [{"content": BACK, "said_at": SAID}, {"content": ADVICE, "said_at": SAID}]
        stored = await call(client, "remember_many", items=items)
        kinds = [r["kind"] for r in stored["results"]]
        assert kinds[1] == "reply" and kinds[-1] == "reply" and kinds[-2] != "reply"  # "Assistant:" says who spoke
        found = await call(client, "recall", query="What did you recommend for my back pain?", limit=3)
        assert found["results"][0]["content"] == ADVICE
        text = (await client.call_tool("recall", {"query": "What did you recommend for my back pain?"})).content[0]
        assert "assistant's reply" in text.text  # the model reads that the assistant said it


async def test_the_users_statement_ranks_above_a_long_reply_repeating_its_words(settings_factory):
    statement = "I switched our team's database from MySQL to PostgreSQL last month."
    echo = (
        "Switching your team's database from MySQL to PostgreSQL is a big step. PostgreSQL gives you better "
        "JSON support, window functions, and stricter types than MySQL; when you switched from MySQL to "
        "PostgreSQL, you probably also had to change the driver, the migrations and the database dumps your team "
        "relies on, and revisit indexes, collations and the way the team's database backups are taken."
    )
    async with connect(settings_factory()) as (client, _):
        items = [{"content": text, "role": role, "said_at": SAID} for role, text in CHAT]
        items += [{"content": statement, "role": "user", "said_at": SAID}]
        items += [{"content": echo, "role": "assistant", "said_at": SAID}]
        await call(client, "remember_many", items=items)
        found = await call(client, "recall", query="Which database does my team use now?", limit=5)
        contents = [hit["content"] for hit in found["results"]]
    assert contents.index(statement) < contents.index(echo), contents


async def test_a_standing_instruction_is_recalled_by_an_unrelated_sounding_request(settings_factory):
    instruction = "Always give me code examples in TypeScript, never plain JavaScript."
    async with connect(settings_factory()) as (client, _):
        items = [{"content": text, "role": role, "said_at": SAID} for role, text in CHAT]
        items += [{"content": instruction, "said_at": SAID}]
        await call(client, "remember_many", items=items)
        found = await call(client, "recall", query="How do I read a file line by line?", limit=5)
        profile = (await client.read_resource("engrain://profile")).contents[0].text
    assert instruction in [hit["content"] for hit in found["results"]]
    assert instruction in profile


async def test_a_standing_instruction_gains_nothing_on_a_question_about_what_the_user_told(settings_factory):
    """ "What did I say about…" looks up the past: the instruction is found by its words, and scored by them only."""
    instruction = "Always give me code examples in TypeScript, never plain JavaScript."
    async with connect(settings_factory()) as (client, _):
        await call(client, "remember_many", items=[{"content": instruction, "said_at": SAID}])
        request = await call(
            client, "recall", query="How do I read a file line by line in TypeScript?", limit=3, explain=True
        )
        told = await call(client, "recall", query="What did I say about TypeScript?", limit=3, explain=True)
    [asked] = [hit for hit in request["results"] if hit["content"] == instruction]
    [looked_up] = [hit for hit in told["results"] if hit["content"] == instruction]
    assert asked["breakdown"]["standing"] == 0.5
    assert looked_up["breakdown"]["standing"] == 0.0


async def test_a_reply_is_never_the_users_fact_plan_or_preference(settings_factory):
    async with connect(settings_factory()) as (client, _):
        reply = "Assistant: You should move to Lisbon next month and you love surfing there."
        stored = await call(client, "remember", content=reply, said_at=SAID)
        assert stored["kind"] == "reply" and stored["temporality"] == "current" and stored["happened"] is None
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        plans = (await client.read_resource("engrain://intentions")).contents[0].text
    assert "Lisbon" not in profile and "Lisbon" not in plans


async def test_an_order_or_summary_question_reads_its_memories_in_the_order_told(settings_factory):
    told = [
        ("2024-05-02T10:00:00+00:00", "I deployed the chat app to production on Fly.io."),
        ("2024-01-10T10:00:00+00:00", "I started building the chat app with Node.js and Socket.io."),
        ("2024-03-15T10:00:00+00:00", "I added message editing to the chat app."),
    ]
    async with connect(settings_factory()) as (client, _):
        await call(client, "remember_many", items=[{"content": text, "said_at": at} for at, text in told])
        result = await client.call_tool("recall", {"query": "In what order did I work on the chat app?"})
    lines = result.content[0].text.splitlines()
    assert "in the order told" in lines[0]
    shown = [line for line in lines[1:] if line.startswith("- [said")]
    assert [line[8:18] for line in shown] == ["2024-01-10", "2024-03-15", "2024-05-02"], shown
    assert result.structured_content["in_time_order"] is True


async def test_a_short_turn_is_found_by_the_question_it_answers(settings_factory):
    """ "Yes, the sage one!" shares no word with "which colour did I choose for the kitchen?": its vector reads the
    turn it answers (a short turn of a chat, stored in order), its words stay its own."""
    chat = [
        ("user", "I'm repainting the kitchen this spring."),
        ("assistant", "For a north-facing kitchen, would you rather have sage green or a warm off-white colour?"),
        ("user", "Yes, the sage one!"),
        *CHAT,
    ]
    async with connect(settings_factory(embedder=MINILM)) as (client, _):
        items = [{"content": text, "role": role, "said_at": SAID} for role, text in chat]
        await call(client, "remember_many", items=items)
        found = await call(client, "recall", query="Which colour did I choose for the kitchen?", limit=3)
    contents = [hit["content"] for hit in found["results"]]
    assert contents[0] == "Yes, the sage one!", contents
