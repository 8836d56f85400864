"""Take the README's screenshots of the page (documentation only; tests/web/test_ui.py asserts on the page).

    python docs/screenshots/take.py            # writes docs/screenshots/*.png

A demo user in a throwaway home (embedded PostgreSQL, hash embedder), a few weeks of memories told on
their dates, and one reflection answered by a stand-in model, then Debian's chromium photographs the
main screens at desktop width and the profile at phone width.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mcp import Client  # noqa: E402

from engrain.config import Settings  # noqa: E402
from engrain.providers.llm import Prompt  # noqa: E402
from engrain.server.app import create_server  # noqa: E402
from engrain.server.state import AppState  # noqa: E402
from engrain.web.sessions import Sessions  # noqa: E402
from tests.browser import browser, page_server  # noqa: E402

OUT = Path(__file__).parent
NOW = datetime(2026, 11, 23, 18, 0, tzinfo=UTC)
TOLD = [
    (60, "I live in Lisbon with my wife Marta"),
    (58, "I work as a sound engineer at Estúdio Nove"),
    (55, "My sister Anna is a paediatrician in Porto"),
    (50, "Every Thursday I go swimming before work"),
    (44, "I ran 5k along the river before work today"),
    (37, "Ran again this morning, 6k, felt great"),
    (30, "I drink a flat white every morning"),
    (23, "We adopted a dog called Pepper"),
    (16, "Went for an early run before the studio opened"),
    (9, "I'm flying to Berlin for the mixing session on December 4"),
    (2, "I read a chapter of a novel before bed most nights"),
]


class StandIn:
    """A stand-in model for the demo's one reflection: it proposes what the memories plainly show."""

    name = "stand-in"

    async def complete(self, prompt: Prompt) -> str:
        def cite(fragment: str) -> list[str]:
            return [
                m.group(1)
                for line in prompt.user.splitlines()
                if fragment in line
                if (m := re.match(r"\[(\w+)\]", line))
            ]

        def behavior(content: str, fragment: str, confidence: float) -> dict[str, object]:
            return {"content": content, "confidence": confidence, "context": "personal", "evidence_ids": cite(fragment)}

        keys = ("new_trends", "new_behaviors", "reinforcements", "contradictions", "upgrades", "links")
        answer: dict[str, object] = {k: [] for k in keys}
        answer["new_behaviors"] = [
            behavior("Runs early in the morning, before work", "run", 0.62),
            behavior("Starts the day with a flat white", "flat white", 0.45),
        ]
        return json.dumps(answer)


async def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="engrain-shots-"))
    clock = [NOW - timedelta(days=61)]
    settings = Settings(
        home=home,
        user="marta-demo",
        embedder="hash",
        fetch_models=False,
        llm="none",
        scheduler="off",
        timezone="Europe/Lisbon",
    )
    app = AppState(settings, lambda: clock[0], llm=StandIn())
    sessions = Sessions()
    async with Client(create_server(app)) as client, page_server(app, sessions) as base, browser() as b:
        for days_ago, content in TOLD:
            clock[0] = NOW - timedelta(days=days_ago)
            await client.call_tool("remember", {"content": content})
        clock[0] = NOW - timedelta(days=6)
        await client.call_tool("reflect", {"force": True})
        listed = await client.call_tool("get_user_traits", {"min_stage": "candidate"})
        clock[0] = NOW - timedelta(days=2)
        first = (listed.structured_content or {})["traits"][0]["id"]
        await client.call_tool("review_trait", {"trait_id": first, "action": "endorse"})
        clock[0] = NOW
        page = await (await b.new_context(viewport={"width": 1100, "height": 900}, locale="en-GB")).new_page()
        await page.goto(f"{base}/ui/login?token={sessions.login_token(settings.user)}")
        await page.screenshot(path=OUT / "profile.png", full_page=True)
        await page.goto(f"{base}/ui/memories")
        await page.screenshot(path=OUT / "memories.png", full_page=True)
        await page.goto(f"{base}/ui/traits")
        links = page.locator("main a.mem")
        if await links.count():
            await links.first.click()
            await page.screenshot(path=OUT / "trait.png", full_page=True)
        await page.goto(f"{base}/ui/status")
        await page.screenshot(path=OUT / "status.png", full_page=True)
        phone = await (await b.new_context(viewport={"width": 390, "height": 844}, locale="pt-PT")).new_page()
        await phone.goto(f"{base}/ui/login?token={sessions.login_token(settings.user)}")
        await phone.screenshot(path=OUT / "profile-phone.png", full_page=True)


if __name__ == "__main__":
    asyncio.run(main())
