"""`get_profile` (issue 42, item 4): the standing picture as a tool, since most clients hand a model tools,
not resources, and Claude Desktop ignores the server's instructions. Through a real MCP client."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.conftest import Clock, call, connect

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


async def test_the_tool_gives_the_profile_and_the_descriptions_say_to_read_it_first(settings_factory):
    async with connect(settings_factory(), Clock(NOW)) as (client, _):
        for content in ("I live in Manchester.", "I'm allergic to peanuts.", "I'm vegetarian."):
            await call(client, "remember", content=content, said_at="2026-10-01")
        await call(client, "remember", content="We moved into our new house in Bristol last weekend.")
        tool = await client.call_tool("get_profile", {})
        text = tool.content[0].text
        assert text == (await client.read_resource("engrain://profile")).contents[0].text
        sections = {s["title"]: s for s in tool.structured_content["sections"]}
        assert [line["tags"] for line in sections["About them"]["lines"]] == [["home"]]
        assert "Bristol" in sections["About them"]["lines"][0]["content"] and "Manchester" not in text
        assert sections["Health"]["lines"][0]["content"] == "I'm allergic to peanuts."
        assert sections["Preferences"]["lines"][0]["when"] == "said 2026-10-01"
        before = await client.call_tool("get_profile", {"as_of": "2026-10-02"})
        assert "Manchester" in before.content[0].text and "Bristol" not in before.content[0].text
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["get_profile"].description.startswith("Read this first, at the start of a conversation")
        assert tools["get_profile"].annotations.read_only_hint
        assert "start a conversation with get_profile" in (tools["recall"].description or "")
        assert "get_profile shows the traits" in (tools["get_user_traits"].description or "")
