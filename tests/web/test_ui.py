"""The local page (engrain ui) in a real browser: Debian's chromium driven by Playwright. Sign-in by the
one-time URL, a profile that matches the data, search, a trait and its evidence, every action (checked in
the database afterwards), the hostile corpus as inert text, and forms without the session's token refused."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import anyio
import httpx
import pytest

from engrain.web.sessions import Sessions
from tests.browser import browser, collect_dialogs, page_server
from tests.conftest import DATA, Clock, call, connect, engrain_env, scalar
from tests.http_server import free_port, http_client, http_server
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
HOSTILE: list[str] = json.loads((DATA / "hostile_memories.json").read_text())
SCRIPTS = [
    "<script>window.__pwned = 1; alert('pwned')</script> I like green tea",
    '<img src=x onerror="window.__pwned = 2; alert(2)"> My cat is called Miso',
    "[click me](javascript:alert(3)) and <a href='javascript:alert(4)'>here</a>",
]
FACTS = [
    "I live in Lisbon",
    "I work as a sound engineer at a studio",
    "My sister Anna is a doctor",
    "Every Thursday I go swimming",
    "I ran 5k before work today",
    "I drink a flat white every morning",
    "I read before bed most nights",
]
RUNS, COFFEE, READS = "Goes running early in the morning", "Drinks coffee every morning", "Reads in the evening"


def three_traits(prompt):
    def behavior(content, fragment):
        return {
            "content": content,
            "confidence": 0.45,
            "context": "personal",
            "evidence_ids": [alias(prompt, fragment)],
        }

    return answer(
        new_behaviors=[behavior(RUNS, "ran 5k"), behavior(COFFEE, "flat white"), behavior(READS, "read before bed")]
    )


def as_html_reads(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


async def sign_in(page, base: str, sessions: Sessions, user: str) -> None:
    await page.goto(f"{base}/ui/login?token={sessions.login_token(user)}")
    assert page.url == f"{base}/ui/"  # the token never stays in the address


async def test_sign_in_profile_search_trait_and_every_action(settings_factory):
    settings = settings_factory()
    user = settings.user
    async with connect(settings, Clock(), ScriptedLLM(three_traits)) as (client, app):
        for fact in FACTS:
            await call(client, "remember", content=fact)
        await call(client, "reflect", force=True)
        traits = {
            t["content"]: t["id"] for t in (await call(client, "get_user_traits", min_stage="candidate"))["traits"]
        }
        assert set(traits) == {RUNS, COFFEE, READS}
        sessions = Sessions()
        async with page_server(app, sessions) as base, browser() as b:
            page = await b.new_page()
            dialogs = await collect_dialogs(page)
            # Not signed in: the sign-in page, nothing of the user's.
            await page.goto(f"{base}/ui/")
            assert page.url.endswith("/ui/signin") and "Lisbon" not in await page.content()
            await sign_in(page, base, sessions, user)

            # The profile matches the data.
            main = page.locator("main")
            about = main.locator("section", has=page.get_by_role("heading", name="About them"))
            assert "I live in Lisbon" in await about.inner_text()
            assert "sound engineer" in await about.inner_text()
            assert (
                "My sister Anna is a doctor"
                in await main.locator("section", has=page.get_by_role("heading", name="People and pets")).inner_text()
            )
            forming = main.locator("section", has=page.get_by_role("heading", name=re.compile("Forming traits")))
            assert {RUNS, COFFEE, READS} <= set(await forming.locator("bdi.text").all_inner_texts())
            assert (
                "Every Thursday I go swimming"
                in await main.locator("section", has=page.get_by_role("heading", name="Habits")).inner_text()
            )

            # Search goes through recall.
            await page.get_by_role("link", name="Memories").click()
            await page.get_by_label("Search").fill("where do I live")
            await page.get_by_role("button", name="Search").click()
            results = page.locator("ul.results bdi.text")
            assert (await results.first.inner_text()) == "I live in Lisbon"
            assert await page.locator("figure.chart svg rect").count() >= 1  # the weekly chart

            # A trait with its evidence, history and confidence chart.
            await page.goto(f"{base}/ui/traits")
            await page.get_by_role("link", name=RUNS).click()
            assert page.url.endswith(f"/ui/traits/{traits[RUNS]}")
            supporting = page.locator("section", has=page.get_by_role("heading", name=re.compile("Supporting")))
            assert "I ran 5k before work today" in await supporting.inner_text()
            assert await page.locator("figure.chart svg circle").count() >= 1

            # Endorse (strong evidence: confidence rises), reword, dismiss.
            await page.get_by_role("button", name="Endorse").first.click()
            assert "Endorsed" in await page.locator("p.notice").inner_text()
            confidence = await scalar(
                app, "SELECT trait_confidence FROM memories WHERE id = CAST(:i AS uuid)", i=traits[RUNS]
            )
            assert confidence > 0.45
            await page.get_by_label("Reword").fill("Runs before work on weekdays")
            await page.get_by_role("button", name="Save wording").click()
            assert await scalar(app, "SELECT content FROM memories WHERE id = CAST(:i AS uuid)", i=traits[RUNS]) == (
                "Runs before work on weekdays"
            )
            await page.goto(f"{base}/ui/traits/{traits[COFFEE]}")
            await page.get_by_role("button", name="Dismiss").first.click()
            assert "Dismissed" in await page.locator("p.notice").inner_text()
            stage = await scalar(app, "SELECT trait_stage FROM memories WHERE id = CAST(:i AS uuid)", i=traits[COFFEE])
            assert stage == "dissolved"

            # Edit a memory: a supersede, with history; the old one is replaced, the new one live.
            lisbon = await scalar(
                app, "SELECT id::text FROM memories WHERE user_id = :u AND content = 'I live in Lisbon'", u=user
            )
            await page.goto(f"{base}/ui/memories/{lisbon}")
            await page.get_by_label(re.compile("^Edit")).fill("I live in Porto")
            await page.get_by_role("button", name="Save", exact=True).click()
            porto = await scalar(
                app, "SELECT id::text FROM memories WHERE user_id = :u AND content = 'I live in Porto'", u=user
            )
            assert page.url.endswith(f"/ui/memories/{porto}?done=edited")
            assert (
                await scalar(app, "SELECT superseded_by::text FROM memories WHERE id = CAST(:i AS uuid)", i=lisbon)
                == porto
            )
            replaced = page.locator("section", has=page.get_by_role("heading", name="It replaced"))
            assert "I live in Lisbon" in await replaced.inner_text()

            # Pin, then unpin.
            await page.get_by_role("button", name="Pin", exact=True).click()
            assert await scalar(app, "SELECT pinned FROM memories WHERE id = CAST(:i AS uuid)", i=porto) is True
            await page.get_by_role("button", name="Unpin").click()
            assert await scalar(app, "SELECT pinned FROM memories WHERE id = CAST(:i AS uuid)", i=porto) is False

            # Link two memories.
            sister = await scalar(
                app, "SELECT id::text FROM memories WHERE user_id = :u AND content LIKE 'My sister%'", u=user
            )
            await page.get_by_label("Link to (id)").fill(sister[:8])
            await page.get_by_role("button", name="Link").click()
            assert "Linked" in await page.locator("p.notice").inner_text()
            linked = (
                "SELECT count(*) FROM memory_links WHERE user_id = :u"
                " AND source_id = CAST(:a AS uuid) AND target_id = CAST(:b AS uuid)"
            )
            assert await scalar(app, linked, u=user, a=porto, b=sister) == 1

            # Forget: the confirmation names what is erased (the earlier wording too), then it is gone.
            await page.get_by_role("link", name="Forget…").click()
            confirm = await page.locator("main").inner_text()
            assert "I live in Porto" in confirm and "I live in Lisbon" in confirm and "earlier wording" in confirm
            await page.get_by_role("button", name="Forget for good").click()
            assert "Forgotten" in await page.locator("p.notice").inner_text()
            gone = "SELECT count(*) FROM memories WHERE user_id = :u AND content LIKE 'I live in %'"
            assert await scalar(app, gone, u=user) == 0

            # Status and export.
            await page.get_by_role("link", name="Status").click()
            status = await page.locator("main").inner_text()
            assert "hash" in status and "words only" in status
            assert "{'" not in status and "'id':" not in status  # issue 39: the last cycle was a raw dict
            assert "traits formed" in status
            async with page.expect_download() as download:
                await page.get_by_role("link", name="Export").click()
            lines = Path(await (await download.value).path()).read_text().splitlines()
            assert json.loads(lines[0])["type"] == "header"
            assert any("My sister Anna is a doctor" in line for line in lines)
            assert dialogs == []


async def test_the_one_time_url_signs_in_once(settings_factory):
    async with connect(settings_factory()) as (client, app):
        await call(client, "remember", content="I live in Lisbon")
        sessions = Sessions()
        async with page_server(app, sessions) as base, browser() as b:
            url = f"{base}/ui/login?token={sessions.login_token(app.settings.user)}"
            first = await b.new_page()
            await first.goto(url)
            assert first.url == f"{base}/ui/" and "I live in Lisbon" in await first.locator("main").inner_text()
            second = await (await b.new_context()).new_page()
            response = await second.goto(url)
            assert response is not None and response.status == 401
            assert "used already" in await second.locator("main").inner_text()
            assert "Lisbon" not in await second.content()


async def test_hostile_memories_render_as_inert_text(settings_factory):
    async with connect(settings_factory()) as (client, app):
        corpus = HOSTILE + SCRIPTS
        for content in corpus:
            await call(client, "remember", content=content)
        sessions = Sessions()
        async with page_server(app, sessions) as base, browser() as b:
            page = await b.new_page()
            dialogs = await collect_dialogs(page)
            await sign_in(page, base, sessions, app.settings.user)
            for path in ("/ui/", "/ui/memories"):
                await page.goto(base + path)
                assert await page.evaluate("window.__pwned") is None
                # No element came from a memory's words: no script, image, link to javascript:, or <system> tag.
                assert await page.locator("main script, main img, main system, main iframe").count() == 0
                assert await page.locator("main a[href^='javascript']").count() == 0
            shown = await page.locator("main ul.items bdi.text").evaluate_all("els => els.map(e => e.textContent)")
            stored = await scalar(app, "SELECT json_agg(content) FROM memories WHERE user_id = :u", u=app.settings.user)
            # Every memory, character for character, as text (an HTML parser reads CR LF as LF: its spec).
            assert sorted(shown) == sorted(as_html_reads(c) for c in stored)
            for content in stored:
                await page.goto(
                    f"{base}/ui/memories/"
                    + await scalar(
                        app,
                        "SELECT id::text FROM memories WHERE user_id = :u AND content = :c",
                        u=app.settings.user,
                        c=content,
                    )
                )
                assert await page.locator("p.lead bdi.text").evaluate("e => e.textContent") == as_html_reads(content)
                assert await page.evaluate("window.__pwned") is None
            width = await page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert width[0] <= width[1]  # a very long line wraps instead of widening the page
            assert dialogs == []


async def test_forms_need_the_session_token_and_this_origin(settings_factory):
    async with connect(settings_factory()) as (client, app):
        memory = await call(client, "remember", content="I live in Lisbon")
        sessions = Sessions()
        async with page_server(app, sessions) as base:
            async with httpx.AsyncClient(base_url=base, follow_redirects=False) as http:
                signed = await http.get(f"/ui/login?token={sessions.login_token(app.settings.user)}")
                assert signed.status_code == 303 and "engrain_session" in signed.headers["set-cookie"]
                page = await http.get(f"/ui/memories/{memory['id']}")
                csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
                assert csrf is not None
                assert "script-src 'self'" in page.headers["content-security-policy"]
                assert "unsafe-inline" not in page.headers["content-security-policy"]
                path = f"/ui/memories/{memory['id']}/forget"
                assert (await http.post(path, data={"reason": "incorrect"})).status_code == 403
                assert (await http.post(path, data={"csrf": "forged"})).status_code == 403
                other_origin = await http.post(
                    path, data={"csrf": csrf.group(1)}, headers={"Origin": "http://evil.test"}
                )
                assert other_origin.status_code == 403
                assert (
                    await scalar(app, "SELECT count(*) FROM memories WHERE id = CAST(:i AS uuid)", i=memory["id"]) == 1
                )
                done = await http.post(path, data={"csrf": csrf.group(1)}, headers={"Origin": base})
                assert done.status_code == 303
                assert (
                    await scalar(app, "SELECT count(*) FROM memories WHERE id = CAST(:i AS uuid)", i=memory["id"]) == 0
                )
                # A name that is not loopback (DNS rebinding) is refused before any page.
                assert (await http.get("/ui/", headers={"Host": "evil.test"})).status_code == 400
            assert uuid.UUID(memory["id"])


async def test_bad_filters_are_named_and_dates_follow_the_reader(settings_factory):
    async with connect(settings_factory(timezone="Europe/Berlin")) as (client, app):
        await call(client, "remember", content="I live in Lisbon", said_at="2026-03-02T10:00:00+01:00")
        sessions = Sessions()
        async with page_server(app, sessions) as base, browser() as b:
            context = await b.new_context(locale="de-DE", viewport={"width": 375, "height": 740})
            page = await context.new_page()
            await sign_in(page, base, sessions, app.settings.user)
            await page.goto(f"{base}/ui/memories?kind=bogus")
            assert "kind: 'bogus' is not one of" in await page.locator("p.error").inner_text()
            await page.goto(f"{base}/ui/memories")
            assert await page.locator("main time").first.inner_text() == "02.03.2026"  # German, in the user's zone
            await page.keyboard.press("/")
            assert await page.evaluate("document.activeElement.id") == "q"
            width = await page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert width[0] <= width[1]  # a phone-width window scrolls down, not sideways


def _url_printed(process: subprocess.Popen[str]) -> str:
    for line in process.stdout or []:
        found = re.search(r"open (http://\S+)", line)
        if found:
            return found.group(1)
    raise AssertionError("engrain ui printed no address")


async def test_engrain_ui_command_prints_a_url_that_signs_in(settings_factory, tmp_path):
    settings = settings_factory()
    async with connect(settings) as (client, _):
        await call(client, "remember", content="I live in Lisbon")
    port = free_port()
    env = engrain_env(tmp_path / "home", ENGRAIN_DATABASE_URL=settings.database_url or "", ENGRAIN_USER=settings.user)
    process = subprocess.Popen(
        [sys.executable, "-m", "engrain", "ui", "--no-browser", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = await anyio.to_thread.run_sync(_url_printed, process)
        assert url.startswith(f"http://127.0.0.1:{port}/ui/login?token=")
        async with httpx.AsyncClient() as http:
            for _ in range(300):
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"http://127.0.0.1:{port}/ui/signin")).status_code == 200:
                        break
                await anyio.sleep(0.1)
        async with browser() as b:
            page = await b.new_page()
            await page.goto(url)
            assert page.url == f"http://127.0.0.1:{port}/ui/"
            assert "I live in Lisbon" in await page.locator("main").inner_text()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) in (0, 128 + signal.SIGTERM)


async def test_over_http_each_user_signs_in_with_their_token_and_sees_only_their_own(pg_url, tmp_path):
    tag = uuid.uuid4().hex[:8]
    alice, bob = f"alice-{tag}", f"bob-{tag}"
    tokens = {f"token-alice-{tag}": alice, f"token-bob-{tag}": bob}
    with http_server(pg_url, tmp_path / "home", tokens) as running:
        async with (
            http_client(running.mcp, f"token-alice-{tag}") as a,
            http_client(running.mcp, f"token-bob-{tag}") as b_,
        ):
            await call(a, "remember", content="Alice lives in Lisbon")
            await call(a, "remember", content="I took this photo in Lisbon last month", said_at="2023-01-01")
            oslo = await call(b_, "remember", content="Bob lives in Oslo")
        async with browser() as b:
            page = await b.new_page()
            await page.goto(f"{running.url}/ui/")
            assert page.url.endswith("/ui/signin")
            await page.get_by_label(re.compile("access token")).fill("not-a-token")
            await page.get_by_role("button", name="Sign in").click()
            assert "not known" in await page.locator("p.error").inner_text()
            await page.get_by_label(re.compile("access token")).fill(f"token-alice-{tag}")
            await page.get_by_role("button", name="Sign in").click()
            assert page.url == f"{running.url}/ui/"
            profile = await page.locator("main").inner_text()
            assert "Alice lives in Lisbon" in profile and "Oslo" not in profile
            await page.goto(f"{running.url}/ui/memories?q=Oslo")
            assert "Oslo" not in await page.locator("ul.results").inner_text()
            # Both times, at their precision, as the model reads them (issue 41): a month, not its first day.
            await page.goto(f"{running.url}/ui/memories?q=photo")
            found = await page.locator("ul.results").inner_text()
            assert "said " in found and " · happened 2022-12" in found, found  # the month, not its first day
            response = await page.goto(f"{running.url}/ui/memories/{oslo['id']}")
            assert response is not None and response.status == 404
            assert "Oslo" not in await page.content()
            # Alice's session cannot act on Bob's memory either, with a valid token of her own.
            csrf = await page.locator("input[name=csrf]").first.get_attribute("value")
            forged = await page.request.post(
                f"{running.url}/ui/memories/{oslo['id']}/forget",
                form={"csrf": csrf or ""},
                headers={"Origin": running.url},
            )
            assert forged.status == 404
        async with http_client(running.mcp, f"token-bob-{tag}") as b_:
            assert [h["content"] for h in (await call(b_, "recall", query="Oslo"))["results"]] == ["Bob lives in Oslo"]


async def test_time_travel_and_filters(settings_factory):
    clock = Clock(datetime(2026, 11, 2, 12, tzinfo=UTC))
    async with connect(settings_factory(), clock) as (client, app):
        berlin = await call(client, "remember", content="I live in Berlin")
        await call(client, "remember", content="Next Friday I have a dentist appointment")
        await call(client, "remember", content="Deploy steps: build, test, ship", kind="procedural", namespace="work")
        clock.now = datetime(2026, 11, 20, 12, tzinfo=UTC)
        await call(client, "remember", content="I live in Lisbon now", supersedes=berlin["id"])
        sessions = Sessions()
        async with page_server(app, sessions) as base, browser() as b:
            page = await b.new_page()
            await sign_in(page, base, sessions, app.settings.user)
            now = await page.locator("main").inner_text()
            assert "I live in Lisbon now" in now and "I live in Berlin" not in now
            await page.get_by_label("As of").fill("2026-11-10")
            await page.get_by_role("button", name="Show").click()
            assert page.url.endswith("/ui/?as_of=2026-11-10")
            then = await page.locator("main").inner_text()
            assert "Profile as of" in then and "I live in Berlin" in then and "Lisbon" not in then

            await page.goto(f"{base}/ui/memories")
            await page.get_by_label("Kind").select_option("procedural")
            await page.get_by_role("button", name="Search").click()  # the filters submit with the search form
            assert await page.locator("main ul.items bdi.text").all_inner_texts() == ["Deploy steps: build, test, ship"]
            await page.goto(f"{base}/ui/memories?temporality=prospective")
            assert await page.locator("main ul.items bdi.text").all_inner_texts() == [
                "Next Friday I have a dentist appointment"
            ]
            await page.goto(f"{base}/ui/memories?namespace=work")
            assert await page.locator("main ul.items bdi.text").count() == 1
            await page.goto(f"{base}/ui/memories?since=2026-11-15")
            assert await page.locator("main ul.items bdi.text").all_inner_texts() == ["I live in Lisbon now"]
