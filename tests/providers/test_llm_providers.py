"""LLM providers against local fakes of their wire formats, JSON extraction, ENGRAIN_LLM parsing,
and MCP sampling answered by a real in-process client."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mcp.types import CreateMessageResult, TextContent

from engrain.providers.llm import (
    AnthropicLLM,
    LLMError,
    OpenAICompatibleLLM,
    Prompt,
    choose,
    complete_json,
    extract_json,
)
from tests.conftest import call, connect
from tests.fake_http import json_server
from tests.scripted import alias, answer

PROMPT = Prompt("Answer in JSON.", "Say hello as JSON.", max_tokens=100)


class LLMScript:
    """Replies for the fake LLM server: Anthropic's /v1/messages and OpenAI's /v1/chat/completions."""

    def __init__(self) -> None:
        self.replies: list[str] = []
        self.status = 200

    def __call__(self, path: str, headers: dict, body: dict) -> tuple[int, dict]:
        if self.status != 200:
            return self.status, {"type": "error", "error": {"type": "overloaded_error", "message": "try later"}}
        text = self.replies.pop(0) if self.replies else "{}"
        if path.endswith("/messages"):
            return 200, {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
        return 200, {
            "id": "c1",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        }


class FakeLLM:
    def __init__(self, url: str, seen: list[dict], script: LLMScript) -> None:
        self.url, self.requests, self.script = url, seen, script


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    script = LLMScript()
    with json_server(script) as (url, seen):
        yield FakeLLM(url, seen, script)


@pytest.mark.anyio
async def test_anthropic_provider_speaks_the_messages_api(fake_llm):
    fake_llm.script.replies = ['{"hello": "world"}']
    llm = AnthropicLLM("claude-test", api_key="sk-ant-test", base_url=fake_llm.url)
    assert await complete_json(llm, PROMPT) == {"hello": "world"}
    req = fake_llm.requests[0]
    assert req["path"] == "/v1/messages" and "anthropic-version" in req["headers"]
    assert "sk-ant-test" in (req["headers"].get("x-api-key", "") + req["headers"].get("authorization", ""))
    assert req["body"]["model"] == "claude-test" and req["body"]["system"] == "Answer in JSON."
    assert req["body"]["messages"] == [{"role": "user", "content": "Say hello as JSON."}]
    assert req["body"]["max_tokens"] == 100


@pytest.mark.anyio
async def test_anthropic_errors_are_llm_errors(fake_llm):
    fake_llm.script.status = 529
    llm = AnthropicLLM("claude-test", api_key="k", base_url=fake_llm.url)
    with pytest.raises(LLMError, match="anthropic"):
        await llm.complete(PROMPT)


@pytest.mark.anyio
async def test_openai_compatible_provider(fake_llm):
    fake_llm.script.replies = ['Here: ```json\n{"ok": true}\n```']
    llm = OpenAICompatibleLLM(f"{fake_llm.url}/v1", "llama3.1:8b", api_key="k")
    assert await complete_json(llm, PROMPT) == {"ok": True}
    req = fake_llm.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["headers"]["authorization"] == "Bearer k"
    assert [m["role"] for m in req["body"]["messages"]] == ["system", "user"]


@pytest.mark.anyio
async def test_reflect_through_anthropic_provider(settings_factory, fake_llm, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_llm.url)
    fake_llm.script.replies = [json.dumps(answer())]
    async with connect(settings_factory(llm="anthropic:claude-haiku-4-5")) as (client, _):
        await call(client, "remember", content="Grows tomatoes on the balcony")
        out = await call(client, "reflect")
        assert out["llm"] == "anthropic:claude-haiku-4-5" and out["status"] == "completed"
        assert "Grows tomatoes" in fake_llm.requests[0]["body"]["messages"][0]["content"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Sure!\n```\n{"a": [1, 2]}\n```\nDone.', {"a": [1, 2]}),
        ('The answer is {"a": {"b": 2}} as requested.', {"a": {"b": 2}}),
    ],
)
def test_extract_json(text, value):
    assert extract_json(text) == value


@pytest.mark.parametrize("text", ["", "no json here", "{broken", "```json\n{'single': 'quotes'}\n```"])
def test_extract_json_rejects(text):
    with pytest.raises(ValueError):
        extract_json(text)


def test_choose(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert choose("auto").kind == "auto" and choose("auto").route(client_samples=True) == "sampling"
    assert choose("auto").route(client_samples=False) == "host" and choose("host").route(True) == "host"
    assert choose("none").name == "none" and choose("sampling").kind == "sampling"
    assert choose("sampling").route(client_samples=False) == "none"
    configured = choose("auto", base_url="http://localhost:11434/v1", model="llama3.1:8b")
    assert configured.name == "openai-compatible:llama3.1:8b" and configured.route(True) == "direct"
    assert choose("anthropic").name == "anthropic:claude-haiku-4-5"
    assert choose("anthropic:claude-sonnet-4-5").name == "anthropic:claude-sonnet-4-5"
    assert choose("openai-compatible:http://localhost:11434/v1:llama3.1:8b").name == "openai-compatible:llama3.1:8b"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert choose("auto").name.startswith("anthropic:")
    with pytest.raises(ValueError, match="ENGRAIN_LLM"):
        choose("gpt")


def sampler(replies: list):
    """A client-side sampling callback that answers from a script and records the requests."""
    seen: list = []

    async def callback(context, params):
        seen.append(params)
        reply = replies.pop(0)
        text = str(reply(params.messages[0].content.text)) if callable(reply) else json.dumps(reply)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model="client-model")

    return callback, seen


def _P(user: str) -> Prompt:
    return Prompt(system="", user=user)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_reflect_through_client_sampling(settings_factory, mode):
    callback, seen = sampler(
        [
            lambda text: json.dumps(
                answer(
                    new_behaviors=[
                        {
                            "content": "Bakes bread on weekends",
                            "confidence": 0.4,
                            "evidence_ids": [alias(_P(text), "sourdough")],
                        }
                    ]
                )
            )
        ]
    )
    async with connect(settings_factory(llm="sampling"), sampling_callback=callback, mode=mode) as (client, _):
        await call(client, "remember", content="Baked a sourdough loaf on Saturday")
        out = await call(client, "reflect")
        assert out["llm"] == "sampling" and out["status"] == "completed" and out["traits_created"] == 1
        assert len(seen) == 1 and "JSON" in seen[0].system_prompt
        traits = (await call(client, "get_user_traits", min_stage="candidate"))["traits"]
        assert [t["content"] for t in traits] == ["Bakes bread on weekends"]


@pytest.mark.anyio
async def test_sampling_two_stage(settings_factory):
    from datetime import UTC, datetime, timedelta

    from tests.conftest import Clock

    clock = Clock(datetime(2026, 11, 22, 9, 0, tzinfo=UTC))
    callback, seen = sampler([answer(), {"questions": ["Does the user play guitar?"]}, answer()])
    async with connect(settings_factory(llm="sampling"), clock, sampling_callback=callback) as (client, _):
        await call(client, "remember", content="Plays guitar in a band")
        await call(client, "reflect")
        clock.now += timedelta(minutes=5)
        for text in ("Bought a new amplifier", "Band gig on Friday", "Wrote a new song"):
            await call(client, "remember", content=text, importance=10)
        out = await call(client, "reflect")
        assert out["trigger_type"] == "importance_accumulated" and out["status"] == "completed"
        assert len(seen) == 3 and "Plays guitar" in seen[2].messages[0].content.text


@pytest.mark.anyio
async def test_auto_without_sampling_client_hands_the_calling_model_a_task(settings_factory, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    async with connect(settings_factory(llm="auto")) as (client, _):
        await call(client, "remember", content="Likes chess")
        out = await call(client, "reflect")
        assert out["llm"] == "host" and out["status"] == "needs_model" and out["task_id"]
