"""Plans and habits judged on the user's time, not the server's (issue 41), through a real MCP client, in the five
languages engrain reads: an imported history's plan whose period was over by its last message is history, one
still ahead stays upcoming, an undated plan told weeks before lapses, and a change told over time ("my knee gets
better every day") is neither a habit nor a plan."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from engrain.services.memories.requests import RememberRequest
from tests.conftest import Clock, call, connect, line_ids, running

pytestmark = pytest.mark.anyio

NOW = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)  # the server's day: years after the history

SENTENCES = {
    # an undated plan, a plan for a weekend long over, a plan ahead at the history's end, a change over time
    "en": (
        "I plan to learn Portuguese",
        "I'm going to paint the fence this weekend",
        "My performance review is next Thursday",
        "My knee gets better every day",
    ),
    "de": (
        "Ich habe vor, Portugiesisch zu lernen",
        "Dieses Wochenende werde ich den Zaun streichen",
        "Mein Leistungsgespräch ist nächsten Donnerstag",
        "Mein Knie wird jeden Tag besser",
    ),
    "es": (
        "Voy a aprender portugués",
        "Este fin de semana voy a pintar la valla",
        "Mi evaluación es el próximo jueves",
        "Mi rodilla está cada día mejor",
    ),
    "fr": (
        "Je compte apprendre le portugais",
        "Ce week-end, je vais peindre la clôture",
        "Mon entretien annuel est jeudi prochain",
        "Mon genou va mieux chaque jour",
    ),
    "zh": ("我打算学葡萄牙语", "这个周末我要刷篱笆", "我的绩效评估在下周四", "我的膝盖一天比一天好"),
}


def section(profile: str, title: str) -> str:
    return profile.split(f"## {title}\n", 1)[1].split("\n\n", 1)[0] if f"## {title}\n" in profile else ""


@pytest.mark.parametrize("lang", list(SENTENCES))
async def test_an_imported_historys_plans_are_judged_on_its_own_time(settings_factory, lang):
    undated, past, ahead, changing = SENTENCES[lang]
    told = ["2023-01-10T10:00:00Z", "2023-02-01T10:00:00Z", "2023-03-01T10:00:00Z", "2023-03-01T10:05:00Z"]
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        stored = await call(
            client,
            "remember_many",
            items=[
                {"content": text, "said_at": at}
                for text, at in zip((undated, past, ahead, changing), told, strict=True)
            ],
        )
        ids = [r["id"][:8] for r in stored["results"]]
        temporalities = [r["temporality"] for r in stored["results"]]
        profile = (await client.read_resource("engrain://profile")).contents[0].text
        intentions = (await client.read_resource("engrain://intentions")).contents[0].text
        await call(client, "reflect", force=True)  # the expiry pass, on the user's clock
        after = (await client.read_resource("engrain://intentions")).contents[0].text
        recalled = (await client.call_tool("recall", {"query": changing})).content[0].text
    # The weekend was over by the history's last message: history on arrival. The review is still ahead then.
    assert temporalities[1] == "historical" and temporalities[2] == "prospective", stored
    assert temporalities[3] == "current", stored  # a change told over time: no plan, whatever "wird", "va" say
    assert line_ids(intentions, "Upcoming") == [ids[2]]  # the undated plan lapsed, the weekend is over
    assert ids[0] not in section(profile, "Upcoming plans") and ids[2] in section(profile, "Upcoming plans")
    assert line_ids(after, "Upcoming") == [ids[2]]  # the expiry pass agrees, on the user's time
    line = next(x for x in recalled.splitlines() if x.endswith(f"({ids[3]})"))
    assert "habit" not in line and "plan" not in line, line


async def test_the_models_reading_of_a_plan_wins_over_the_rules_habit(settings_factory):
    """An extraction answer (the calling model's reading) that says a plan is stored as one: the rules' "every
    Sunday" habit reading gives way (service level: the ingestion stores extracted items as these requests)."""
    async with running(settings_factory(), Clock(NOW)) as app:
        user = app.settings.user
        said = "Every Sunday from next month I will go to the gym"
        ruled = await app.memories.remember(user, RememberRequest(content=said, namespace="rules"))
        read = await app.memories.remember(user, RememberRequest(content=said, temporality="prospective"))
        rows = {
            r[0]: r[1:]
            for r in await rows_of(app, "SELECT namespace, temporality, metadata ->> 'recurrence' FROM memories")
        }
    assert ruled.temporality == "current" and rows["rules"][1] is not None  # the rules: a habit
    assert read.temporality == "prospective" and rows["default"] == ("prospective", None)  # the model: a plan


async def rows_of(app, sql: str) -> list[tuple]:
    db = await app.database()
    async with db.sessions() as s:
        return [tuple(r) for r in (await s.execute(text(sql + " WHERE user_id = :u"), {"u": app.settings.user}))]


CORRECTIONS = {
    "en": ("I live in Berlin", "I moved to Lisbon"),
    "de": ("Ich wohne in Berlin", "Ich bin nach Lissabon gezogen"),
    "es": ("Vivo en Berlín", "Me mudé a Lisboa"),
    "fr": ("J'habite à Berlin", "J'ai déménagé à Lisbonne"),
    "zh": ("我住在柏林", "我搬到了里斯本"),
}


@pytest.mark.parametrize("lang", list(CORRECTIONS))
async def test_as_of_runs_on_the_users_timeline(settings_factory, lang):
    """An imported history is stored on the day of the import; `as_of` a day of that history answers from what
    the user had told by then — the home before the move, then after it (it showed nothing: it ran on the
    server's clock)."""
    before, after = CORRECTIONS[lang]
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        old = await call(client, "remember", content=before, said_at="2023-01-05")
        new = await call(client, "remember", content=after, said_at="2023-06-10", supersedes=old["id"])

        async def homes(as_of: str) -> list[str]:
            found = await call(client, "recall", query=f"{before} {after}", as_of=as_of, include_links=False)
            return [h["id"] for h in found["results"]]

        assert await homes("2022-12-01") == []
        assert await homes("2023-03-01") == [old["id"]]
        assert await homes("2023-07-01") == [new["id"]]
        then = (await client.read_resource("engrain://profile/as-of/2023-03-01")).contents[0].text
        assert old["id"][:8] in then and new["id"][:8] not in then
