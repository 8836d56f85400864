"""The MCP App (ui://engrain/profile) as a host renders it: the view runs in a real browser (Debian's chromium)
inside an iframe of a small host page, which answers `ui/initialize`, sends the tool result, and proxies the
view's `tools/call` and `resources/read` to engrain through a real MCP client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from tests.browser import browser, collect_dialogs
from tests.conftest import Clock, call, connect, scalar
from tests.scripted import ScriptedLLM, alias, answer

pytestmark = pytest.mark.anyio
RUNS = "Goes running early in the morning"
HOSTILE = '<img src=x onerror="window.__pwned = 1"> I keep a cat called Miso'
# The host: answers the view's handshake, hands it the tool's result, and proxies its requests to the server.
HOST = """<!doctype html><html><body><iframe id="app" style="width:100%;height:600px"></iframe><script>
window.seen = [];
const frame = document.getElementById("app");
function send(message) { frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*"); }
function reply(id, result) { send({ id: id, result: result }); }
window.addEventListener("message", async function (event) {
  if (event.source !== frame.contentWindow) return;
  const m = event.data;
  window.seen.push(m.method || "reply");
  if (m.method === "ui/initialize") {
    reply(m.id, { protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "1" },
                  hostCapabilities: { serverTools: {}, serverResources: {} }, hostContext: { theme: "light" } });
  } else if (m.method === "ui/notifications/initialized") {
    send({ method: "ui/notifications/tool-input", params: { arguments: {} } });
    send({ method: "ui/notifications/tool-result", params: window.toolResult });
  } else if (m.method === "tools/call" || m.method === "resources/read") {
    reply(m.id, JSON.parse(await window.mcp(m.method, JSON.stringify(m.params))));
  }
});
</script></body></html>"""


def proposes_running(prompt):
    return answer(
        new_behaviors=[
            {"content": RUNS, "confidence": 0.45, "context": "personal", "evidence_ids": [alias(prompt, "ran 5k")]}
        ]
    )


def proxy(client: Client):
    async def mcp(method: str, params: str) -> str:
        args: dict[str, Any] = json.loads(params)
        if method == "tools/call":
            result = await client.call_tool(args["name"], args.get("arguments") or {})
        else:
            result = await client.read_resource(args["uri"])
        return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True))

    return mcp


async def test_the_app_shows_traits_and_profile_and_reviews_through_the_host(settings_factory):
    async with connect(settings_factory(), Clock(), ScriptedLLM(proposes_running)) as (client, app):
        await call(client, "remember", content="I ran 5k before work today")
        await call(client, "remember", content=HOSTILE)
        await call(client, "reflect", force=True)
        tool = next(t for t in (await client.list_tools()).tools if t.name == "get_user_traits")
        assert tool.meta == {"ui": {"resourceUri": "ui://engrain/profile"}}
        [view] = (await client.read_resource("ui://engrain/profile")).contents
        assert view.mime_type == "text/html;profile=mcp-app"
        listed = await client.call_tool("get_user_traits", {"min_stage": "candidate"})
        trait_id = listed.structured_content["traits"][0]["id"]  # type: ignore[index]

        async with browser() as b:
            page = await b.new_page()
            dialogs = await collect_dialogs(page)
            await page.expose_function("mcp", proxy(client))
            await page.set_content(HOST)
            await page.evaluate(
                "([result, html]) => { window.toolResult = result; document.getElementById('app').srcdoc = html; }",
                [listed.model_dump(mode="json", by_alias=True, exclude_none=True), view.text],  # type: ignore[union-attr]
            )
            frame = page.frame_locator("#app")
            row = frame.locator("li", has_text=RUNS)
            await row.wait_for()
            profile = frame.locator("#profile")
            await profile.get_by_text("What engrain knows about").wait_for()
            assert "I keep a cat called Miso" in await profile.inner_text()  # the hostile memory, as text
            assert await frame.locator("img").count() == 0

            await row.get_by_role("button", name="Endorse").click()
            await frame.locator("#state", has_text="endorsed").wait_for()
            confidence = await scalar(
                app, "SELECT trait_confidence FROM memories WHERE id = CAST(:i AS uuid)", i=trait_id
            )
            assert confidence > 0.45
            seen = await page.evaluate("window.seen")
            assert seen[0] == "ui/initialize" and "ui/notifications/initialized" in seen and "tools/call" in seen
            assert "resources/read" in seen
            assert await page.frames[1].evaluate("window.__pwned") is None
            assert dialogs == []


# The host page above, served from its own origin, with a window of another origin beside the view that forges
# what the host would send: a tool result with a trait of its choosing, and answers to the view's requests.
EVIL = """<!doctype html><html><body><script>
const view = window.parent.frames[0];
function forge() {
  view.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result",
                     params: { structuredContent: { traits: [{ id: "forged-id", stage: "core", confidence: 0.99,
                                                              content: "FORGED: trusts any window" }] } } }, "*");
  for (let id = 1; id < 40; id++) {
    view.postMessage({ jsonrpc: "2.0", id: id, result: { structuredContent: { traits: [
      { id: "forged-id", stage: "core", content: "FORGED: an answer" }] } } }, "*");
  }
}
setInterval(forge, 50);
</script></body></html>"""


async def test_the_app_reads_only_its_host_and_declares_its_policy(settings_factory):
    """The view's listener checked neither `event.source` nor `event.origin`: a message from another origin put
    a forged trait on the list, and its Dismiss sent `review_trait` for the forged id; the resource declared no
    CSP. Now only the host window at the host's origin is read, and the page runs under its own policy."""
    async with connect(settings_factory(), Clock(), ScriptedLLM(proposes_running)) as (client, app):
        await call(client, "remember", content="I ran 5k before work today")
        await call(client, "reflect", force=True)
        [view] = (await client.read_resource("ui://engrain/profile")).contents
        resources = await client.list_resources()
        meta = next(r for r in resources.resources if str(r.uri) == "ui://engrain/profile").meta or {}
        assert meta["ui"]["csp"] == {
            "connectDomains": [],
            "resourceDomains": [],
            "frameDomains": [],
            "baseUriDomains": [],
        }
        assert "default-src 'none'" in view.text and "connect-src 'none'" in view.text  # type: ignore[union-attr]
        assert "unsafe-inline" not in view.text  # type: ignore[union-attr]
        listed = await client.call_tool("get_user_traits", {"min_stage": "candidate"})
        trait_id = listed.structured_content["traits"][0]["id"]  # type: ignore[index]
        calls: list[dict[str, Any]] = []
        mcp = proxy(client)

        async def recorded(method: str, params: str) -> str:
            calls.append({"method": method, **json.loads(params)})
            return await mcp(method, params)

        async with browser() as b:
            page = await b.new_page()
            refused: list[str] = []
            page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
            await page.route("http://host.test/", lambda route: route.fulfill(body=HOST, content_type="text/html"))
            await page.route("http://evil.test/", lambda route: route.fulfill(body=EVIL, content_type="text/html"))
            await page.expose_function("mcp", recorded)
            await page.goto("http://host.test/")
            await page.evaluate(
                "([result, html]) => { window.toolResult = result; document.getElementById('app').srcdoc = html;"
                " const evil = document.createElement('iframe'); evil.src = 'http://evil.test/';"
                " document.body.append(evil); }",
                [listed.model_dump(mode="json", by_alias=True, exclude_none=True), view.text],  # type: ignore[union-attr]
            )
            frame = page.frame_locator("#app")
            row = frame.locator("li", has_text=RUNS)
            await row.wait_for()
            await page.wait_for_timeout(500)  # the forger has sent its messages many times over
            assert await frame.locator("li", has_text="FORGED").count() == 0
            await row.get_by_role("button", name="Dismiss").click()
            await frame.locator("#state", has_text="dismissed").wait_for()
            assert [c["arguments"]["trait_id"] for c in calls if c.get("name") == "review_trait"] == [trait_id]
            assert await frame.locator("li", has_text="FORGED").count() == 0
            assert refused == []  # the view's own script and style run under its policy
        stage = await scalar(app, "SELECT trait_stage FROM memories WHERE id = CAST(:i AS uuid)", i=trait_id)
        assert stage == "dissolved"
