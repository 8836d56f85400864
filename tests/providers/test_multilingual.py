"""The packaged multilingual model (issue 27, part 1): Google's Universal Sentence Encoder multilingual v3,
shipped with its weights in a pip package (`ENGRAIN_EMBEDDER=use-multilingual`). Through a real MCP
client: questions that share no word with their memory, in Chinese, German and Spanish, and questions in
one language about memories in another."""

from __future__ import annotations

import json

import pytest

from tests.conftest import call, connect, scalar

pytestmark = pytest.mark.anyio
USE = "use-multilingual"
# Each user's other memories: the answer must outrank them by meaning, not by a shared word.
DISTRACTORS = [
    "我喜欢吃火锅",
    "我在一家游戏公司工作",
    "Ich wohne in Köln",
    "Mein Hund heißt Max",
    "Vivo en Sevilla",
    "Trabajo en un hospital",
    "I bought a new laptop last week",
]


@pytest.mark.parametrize(
    "memories, query",
    [
        (["我每周四去游泳", "我周末常常去爬山"], "我平时做什么运动？"),
        (["Ich arbeite als Tontechniker in einem Studio"], "Was ist mein Beruf?"),
        (["No como carne desde hace años"], "¿Qué no como?"),
    ],
)
async def test_a_question_finds_its_memory_by_meaning(settings_factory, memories, query):
    async with connect(settings_factory(embedder=USE)) as (client, _):
        for text in [*DISTRACTORS, *memories]:
            await call(client, "remember", content=text)
        found = await call(client, "recall", query=query, limit=len(memories) + 1)
    contents = [hit["content"] for hit in found["results"]]
    # First, and all of them among the first one-more-than-them of nine: by meaning (with hash: nothing).
    assert contents[0] in memories and set(memories) <= set(contents), (query, contents)


@pytest.mark.parametrize(
    "memory, query",
    [
        ("I live in Lisbon now.", "Wo wohne ich?"),
        ("Ich arbeite als Tontechniker in einem Studio", "What do I do for a living?"),
        ("我对花生过敏", "What am I allergic to?"),
        ("I'm allergic to peanuts", "我对什么过敏？"),
    ],
)
async def test_a_question_in_one_language_finds_a_memory_in_another(settings_factory, memory, query):
    async with connect(settings_factory(embedder=USE)) as (client, _):
        for text in [*DISTRACTORS, memory]:
            await call(client, "remember", content=text)
        found = await call(client, "recall", query=query, limit=1)
    assert [hit["content"] for hit in found["results"]] == [memory], query


async def test_status_names_the_model(settings_factory):
    async with connect(settings_factory(embedder=USE)) as (client, _):
        await call(client, "remember", content="Ich wohne in Köln")
        status = json.loads((await client.read_resource("engrain://status")).contents[0].text)
    assert status["embedder"]["id"] == "use:multilingual-v3" and status["embedder"]["dim"] == 512


async def test_auto_turns_to_the_multilingual_model_when_most_memories_are_not_english(
    settings_factory, fresh_database_url
):
    """`auto` serves the English model until most memories are in another language; then the packaged
    multilingual model, offline, and every memory is embedded again with it (the reindex path)."""
    settings = settings_factory(embedder="auto", fetch_models=False, database_url=fresh_database_url)
    async with connect(settings) as (client, app):
        await call(client, "remember", content="I like green tea")
        first = json.loads((await client.read_resource("engrain://status")).contents[0].text)["embedder"]["id"]
        for i in range(24):
            await call(client, "remember", content=f"我第{i + 1}次去北京出差，住在同一家酒店")
        await call(client, "remember", content="我每周四去游泳")
        await app.languages.check()  # what a stored memory starts in the background, at most once a minute
        await app.drain()
        status = json.loads((await client.read_resource("engrain://status")).contents[0].text)["embedder"]
        found = await call(client, "recall", query="我平时做什么运动？", limit=1)
        models = await scalar(
            app, "SELECT array_agg(DISTINCT embedder) FROM memory_vectors WHERE user_id = :u", u=app.settings.user
        )
    assert first != "use:multilingual-v3" and status["id"] == "use:multilingual-v3"
    assert status["message"] == f"switched from {first}: many memories are not in English"
    assert [hit["content"] for hit in found["results"]] == ["我每周四去游泳"]
    assert models == ["use:multilingual-v3"]  # every memory embedded again


@pytest.mark.parametrize(
    "memory, query",
    [
        ("我跟二丫说了这件事", "二丫怎么样了？"),  # jieba merges the name with the verb: 二丫说
        ("我们周五晚上和小雨去撸串了", "撸串"),  # jieba cuts the colloquial word in two: 撸 + 串
    ],
)
async def test_a_name_or_colloquial_word_jieba_cuts_wrongly_still_matches_whole(settings_factory, memory, query):
    """Character pairs of what jieba did not know (text/fulltext.chinese_words): with the hash embedder the
    words decide, and every word of the question is found in the memory."""
    async with connect(settings_factory(embedder="hash")) as (client, _):
        for text in ["我二月去了一趟山里", "我喜欢吃烤串", "我跟同事说了这个计划", memory]:
            await call(client, "remember", content=text)
        found = await call(client, "recall", query=query, limit=1, explain=True)
    hit = found["results"][0]
    assert hit["content"] == memory and hit["breakdown"]["lexical"] == 1.0, hit["breakdown"]


async def test_a_new_user_who_writes_chinese_is_answered_by_meaning_from_the_start(
    settings_factory, fresh_database_url
):
    """On a fresh install with `auto`, the issue's first question returned nothing: the English model does not
    know Chinese and the words differ. A second memory not in English switches to the multilingual model."""
    settings = settings_factory(embedder="auto", fetch_models=False, database_url=fresh_database_url)
    async with connect(settings) as (client, app):
        for text in ["我每周四去游泳", "我周末常常去爬山"]:
            await call(client, "remember", content=text)
        await app.drain()  # the switch runs in the background, after the second memory
        found = await call(client, "recall", query="我平时做什么运动？", limit=2)
    assert {hit["content"] for hit in found["results"]} == {"我每周四去游泳", "我周末常常去爬山"}


async def test_a_first_batch_in_chinese_is_embedded_by_the_multilingual_model_at_once(
    settings_factory, fresh_database_url
):
    """A conversation stored at once (`remember_many`) by a new user is weighed before it is embedded: no row
    waits for a re-embedding in the background, so the first question finds it by meaning."""
    settings = settings_factory(embedder="auto", fetch_models=False, database_url=fresh_database_url)
    async with connect(settings) as (client, app):
        items = [{"content": text} for text in ["我每周四去游泳", "我周末常常去爬山", "我在一家游戏公司工作"]]
        await call(client, "remember_many", items=items)
        models = await scalar(
            app, "SELECT array_agg(DISTINCT embedder) FROM memory_vectors WHERE user_id = :u", u=app.settings.user
        )
        found = await call(client, "recall", query="我平时做什么运动？", limit=2)
    assert models == ["use:multilingual-v3"]
    assert {hit["content"] for hit in found["results"]} == {"我每周四去游泳", "我周末常常去爬山"}


def test_one_foreign_sentence_among_an_english_users_first_memories_switches_nothing():
    from engrain.services.memories.language_mix import wants_multilingual

    assert not wants_multilingual(3, 1 / 3)  # one German sentence of three
    assert wants_multilingual(2, 1.0)  # a new user writing Chinese
    assert not wants_multilingual(40, 0.2) and wants_multilingual(40, 0.3)  # the share, once there are enough


@pytest.mark.parametrize(
    "memory, query",
    [
        ("Ich arbeite als Tontechniker in einem Studio", "Meine Arbeit im Studio"),  # arbeite ~ Arbeit: stemmed
        ("Ich arbeite als Tontechniker in einem Studio", "Bin ich Techniker?"),  # a compound: the hash's n-grams
        ("No como carne desde hace años", "¿Comí carne?"),  # como ~ comí
        ("J'ai mangé des crêpes à Rennes", "Quand est-ce que j'ai mangé des crêpes ?"),
        ("Nous avons déménagé à Lyon", "Quand avons-nous déménagé ?"),
        ("我每周四去游泳", "我什么时候去游泳？"),
    ],
)
async def test_with_the_hash_embedder_a_question_finds_its_memory_by_word(settings_factory, memory, query):
    """With no model at all, each language's full-text configuration stems the words (German, Spanish,
    French Snowball; jieba for Chinese) and the hash embedder's character n-grams reach into compounds."""
    async with connect(settings_factory(embedder="hash")) as (client, _):
        for text in [*DISTRACTORS, memory]:
            await call(client, "remember", content=text)
        found = await call(client, "recall", query=query, limit=1)
    assert [hit["content"] for hit in found["results"]] == [memory], query
