"""Query focus: a user's ubiquitous words are left out of a semantic model's query embedding.

The end-to-end case is a transcript where every memory starts with the speaker's name: with the
packaged MiniLM, the name pulls every short turn close to any question naming the speaker.
"""

from __future__ import annotations

import pytest

from engrain.services.recall.focus import MIN_MEMORIES, focus
from engrain.storage.vocabulary import common_words
from tests.conftest import call, connect

pytestmark = pytest.mark.anyio

SMALL_TALK = [
    "No way, really?",
    "I know what you mean.",
    "That's a good point.",
    "Oh nice, tell me more about it.",
    "Same old, same old.",
    "Thanks for asking, I appreciate it.",
    "Fair enough!",
    "Okay, that made me laugh.",
    "It's been ages since we talked like this.",
    "Wow, I didn't expect that.",
    "Sounds good to me.",
    "Let me know how it goes.",
    "I hope things calm down for you soon.",
    "Good for you, seriously.",
    "I'll keep my fingers crossed.",
    "That must have been a lot to handle.",
    "Ha, classic!",
    "I can't believe how fast this year is going.",
    "I've been meaning to ask you about that.",
    "Let's catch up again soon!",
    "You always find the bright side of things.",
    "Same here, it's been busy.",
]
EVIDENCE = "Zoe: My brother Sam just got a job as a firefighter, the whole family is proud."
QUESTION = "What profession did Zoe's sibling start?"


def test_focus_leaves_out_common_words_and_their_possessive():
    assert focus(QUESTION, frozenset({"zoe"})).text == "What profession did sibling start?"
    assert focus("ZOE’S plans with zoe", frozenset({"zoe"})).left_out == ("zoe",)
    assert focus("ZOE’S plans with zoe", frozenset({"zoe"})).text == "plans with"
    # Only whole words (letters and digits; the same split as the SQL that finds common words).
    assert focus("Zoey met Zoe2", frozenset({"zoe"})).left_out == ()
    assert focus("ask user_zoe", frozenset({"zoe"})).text == "ask user_"
    assert focus("Was Zoë's café open?", frozenset({"zoë", "café"})).text == "Was open?"
    # Nothing but common words: the whole query is embedded.
    assert focus("Zoe?", frozenset({"zoe"})).text == "Zoe?"
    assert focus("", frozenset({"zoe"})).left_out == ()


async def test_common_words_are_the_users_own_and_never_stop_words(settings_factory):
    async with connect(settings_factory()) as (client, app):
        user = app.settings.user
        for i, talk in enumerate(SMALL_TALK):
            await call(client, "remember", content=f"Zoe: {talk} (turn {i})")
        async with connect(settings_factory(user="someone-else")) as (other, _):
            for talk in SMALL_TALK:
                await call(other, "remember", content=f"Max: {talk}")
        db = await app.database()
        async with db.sessions.begin() as s:
            sampled, shares = await common_words(s, user, app.clock(), 0.3)
        assert sampled == len(SMALL_TALK)
        assert shares == {"zoe": 1.0, "turn": 1.0}  # "Max" is another user's; "I", "the", "you" are stop words
        assert await app.recall.focus.common_words("nobody") == frozenset()


async def test_too_few_memories_have_no_common_words(settings_factory):
    async with connect(settings_factory()) as (client, app):
        for talk in SMALL_TALK[: MIN_MEMORIES - 1]:
            await call(client, "remember", content=f"Zoe: {talk}")
        assert await app.recall.focus.common_words(app.settings.user) == frozenset()


async def test_recall_embeds_the_question_without_the_speakers_name(settings_factory, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    async with connect(settings_factory(embedder="minilm-int8")) as (client, app):
        for talk in SMALL_TALK:
            await call(client, "remember", content=f"Zoe: {talk}")
        evidence = await call(client, "remember", content=EVIDENCE)
        out = await call(client, "recall", query=QUESTION, limit=3)
        assert out["words_not_embedded"] == ["zoe"]
        assert out["results"][0]["id"] == evidence["id"]
        # What focus corrects: the whole question, name included, is closer to small talk than to the answer.
        _, (question, answer, talk) = await app.embeddings.embed([QUESTION, EVIDENCE, "Zoe: No way, really?"])
        assert cosine(question, talk) > cosine(question, answer)


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))  # the embedder's vectors are unit length


async def test_a_lexical_embedder_embeds_the_whole_query(settings_factory):
    async with connect(settings_factory(embedder="hash")) as (client, _):
        for talk in SMALL_TALK:
            await call(client, "remember", content=f"Zoe: {talk}")
        out = await call(client, "recall", query=QUESTION)
        assert out["words_not_embedded"] == []


async def test_common_words_are_renewed_in_the_background(settings_factory):
    async with connect(settings_factory()) as (client, app):
        for talk in SMALL_TALK:
            await call(client, "remember", content=f"Zoe: {talk}")
        assert await app.recall.focus.common_words(app.settings.user) == frozenset({"zoe"})
        for talk in SMALL_TALK:
            await call(client, "remember", content=f"Ravi: {talk} (echo)")
        app.recall.focus.words.ttl = 0.0
        app.recall.focus.words.forget()
        await app.recall.focus.common_words(app.settings.user)  # read again, and due for renewal at once
        for talk in SMALL_TALK:
            await call(client, "remember", content=f"Ravi: {talk} (reprise)")
        # Due: the cached words answer at once while the renewal runs in the background.
        assert await app.recall.focus.common_words(app.settings.user) == frozenset({"zoe", "ravi", "echo"})
        await app.drain()
        assert await app.recall.focus.common_words(app.settings.user) == frozenset({"zoe", "ravi", "echo", "reprise"})
