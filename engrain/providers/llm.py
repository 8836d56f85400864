"""LLM providers for reflection and conversation ingestion (docs/SPEC.md §7).

Every provider answers one prompt with text; callers demand JSON in the prompt and
parse it with `extract_json`. The `sampling` provider has no `complete`: the client's
model is reached through MCP sampling resolvers in the tools (see tools/reflect.py),
because a server can only ask the client while one of its requests is being served.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import anyio

from engrain.errors import EngrainError
from engrain.providers.urls import split_base_url

log = logging.getLogger(__name__)

DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


T = TypeVar("T")


class Ask(Protocol):
    """Ask a model one prompt; the answer comes back as JSON that `validate` turned into its shape."""

    async def __call__(self, prompt: Prompt, validate: Callable[[Any], T]) -> T: ...


class LLMError(EngrainError):
    """The model could not be reached or gave no usable answer."""


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str
    max_tokens: int = 2000


class LLM(Protocol):
    name: str

    async def complete(self, prompt: Prompt) -> str: ...


class AnthropicLLM:
    """Claude through the official SDK (`ANTHROPIC_API_KEY`; `ANTHROPIC_BASE_URL` is honoured too)."""

    def __init__(
        self,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        import anthropic

        self.model = model
        self.name = f"anthropic:{model}"
        self._client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=1)

    async def complete(self, prompt: Prompt) -> str:
        import anthropic

        try:
            message = await self._client.messages.create(
                model=self.model,
                max_tokens=prompt.max_tokens,
                system=prompt.system,
                messages=[{"role": "user", "content": prompt.user}],
            )
        except anthropic.APIError as exc:
            raise LLMError(f"anthropic: {exc}") from exc
        return "".join(block.text for block in message.content if isinstance(block, anthropic.types.TextBlock))


class OpenAICompatibleLLM:
    """Any /chat/completions server: OpenAI, Ollama, vLLM, LM Studio."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        import httpx

        self.model = model
        self.name = f"openai-compatible:{model}"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)

    async def complete(self, prompt: Prompt) -> str:
        import httpx

        body = {
            "model": self.model,
            "max_tokens": prompt.max_tokens,
            "messages": [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
        }
        try:
            resp = await self._client.post("/chat/completions", json=body)
            resp.raise_for_status()
            return resp.json()["choices"][0]["message"]["content"] or ""
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
            raise LLMError(f"openai-compatible: {exc}") from exc


MAX_ANSWER_CHARS = 200_000  # a model's answer to one prompt or task; a reflection's is a few kilobytes


def extract_json(text: str) -> Any:
    """The JSON value in a model's answer: bare, inside a ``` fence, or the outermost {...} in prose.

    Linear in the answer: the fences are found by splitting on them (a pattern that searched for them
    backtracked quadratically: "```json" and 60,000 spaces held the event loop for seconds), and each candidate
    is parsed once. Raises ValueError when there is none, when the answer is longer than MAX_ANSWER_CHARS,
    or when its JSON is nested deeper than Python's parser goes."""
    if len(text) > MAX_ANSWER_CHARS:
        raise ValueError(f"the answer is {len(text):,} characters; the limit is {MAX_ANSWER_CHARS:,}")
    candidates = [text.strip()]
    for fenced in text.split("```")[1::2]:  # what stands between a fence and the next
        body = fenced.lstrip()
        candidates.append(body[4:] if body[:4].lower() == "json" else body)
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except RecursionError:
            raise ValueError("the answer's JSON is nested too deeply") from None
        except ValueError:
            continue
    raise ValueError(f"no JSON object in the model's answer ({text[:80]!r}…)")


async def complete_json(llm: LLM, prompt: Prompt, validate: Callable[[Any], T] = lambda value: value) -> T:
    """Ask for JSON of a shape `validate` accepts; when the answer is no JSON, or `validate` refuses it
    (a ValueError saying what is wrong), ask once more, telling the model what was wrong. Parsing runs in a
    worker thread: it is linear in the answer, but an answer may be long, and the event loop serves others."""
    answer = await llm.complete(prompt)
    try:
        value = await anyio.to_thread.run_sync(extract_json, answer)
    except ValueError:
        problem = "was not valid JSON"
    else:
        try:
            return await anyio.to_thread.run_sync(validate, value)
        except ValueError as exc:
            problem = f"was not of the shape asked for ({exc})"
    log.info("%s: the answer %s; retrying once", llm.name, problem.split(" (")[0])
    retry = Prompt(
        prompt.system,
        prompt.user + f"\n\nYour previous answer {problem}. Answer again with one "
        "JSON object of the shape asked for, no prose.",
        prompt.max_tokens,
    )
    again = await llm.complete(retry)
    return await anyio.to_thread.run_sync(lambda: validate(extract_json(again)))


@dataclass(frozen=True)
class LLMChoice:
    """What ENGRAIN_LLM resolved to: a direct provider, the client's model (MCP sampling), the calling
    model through tool round trips (host tasks), or nothing."""

    kind: str  # "direct" | "sampling" | "auto" (sampling when the client can, else host) | "host" | "none"
    llm: LLM | None = None

    @property
    def name(self) -> str:
        return self.llm.name if self.llm else self.kind

    @property
    def needs_client(self) -> bool:
        """The model is reached through the connected client: unreachable without a client request."""
        return self.kind in ("sampling", "auto", "host")

    def route(self, client_samples: bool) -> str:
        """The route one request takes, in the order of `auto`: a direct provider, else sampling when the
        client supports it, else the calling model through a host task; `sampling` set explicitly with
        a client that cannot sample has no route ("none")."""
        if self.kind == "direct":
            return "direct"
        if self.kind in ("sampling", "auto") and client_samples:
            return "sampling"
        return "host" if self.kind in ("auto", "host") else "none"

    def direct_ask(self) -> Ask | None:
        """Validated answers from the configured provider; None when there is no direct provider."""
        llm = self.llm
        if self.kind != "direct" or llm is None:
            return None

        async def ask(prompt: Prompt, validate: Callable[[Any], T]) -> T:
            return await complete_json(llm, prompt, validate)

        return ask


def parse_llm_spec(spec: str) -> tuple[str, str | None, str | None]:
    """ENGRAIN_LLM as (kind, base URL, model), without building anything: `auto` | `none` | `sampling` |
    `host` | `anthropic[:model]` | `openai-compatible:<base_url>[:model]`. ValueError names what it takes."""
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    if spec in ("auto", "none", "sampling", "host"):
        return spec, None, None
    if kind == "anthropic":
        return kind, None, rest or None
    if kind == "openai-compatible" and (parts := split_base_url(rest)):
        return kind, parts[0], parts[1]
    raise ValueError(
        f"ENGRAIN_LLM={spec!r} is not understood; use auto, none, sampling, host, anthropic[:model] "
        "or openai-compatible:<base_url>[:model]"
    )


def choose(
    spec: str, api_key: str | None = None, timeout: float = 60.0, base_url: str | None = None, model: str | None = None
) -> LLMChoice:
    """Resolve ENGRAIN_LLM (parse_llm_spec). `auto`, in order: anthropic when ANTHROPIC_API_KEY is set; the
    openai-compatible server of ENGRAIN_LLM_BASE_URL when one is configured; the client's model through
    sampling when the client supports it; else the calling model itself through host tasks."""
    kind, spec_url, spec_model = parse_llm_spec(spec)
    if kind == "auto":
        if os.environ.get("ANTHROPIC_API_KEY"):
            return LLMChoice("direct", AnthropicLLM(timeout=timeout))
        if base_url:
            key = api_key or os.environ.get("OPENAI_API_KEY")
            return LLMChoice(
                "direct", OpenAICompatibleLLM(base_url, model or DEFAULT_OPENAI_MODEL, key, timeout=timeout)
            )
        return LLMChoice("auto")
    if kind in ("none", "sampling", "host"):
        return LLMChoice(kind)
    if kind == "anthropic":
        return LLMChoice("direct", AnthropicLLM(spec_model or DEFAULT_ANTHROPIC_MODEL, timeout=timeout))
    assert spec_url is not None
    key = api_key or os.environ.get("OPENAI_API_KEY")
    return LLMChoice("direct", OpenAICompatibleLLM(spec_url, spec_model or DEFAULT_OPENAI_MODEL, key, timeout=timeout))
