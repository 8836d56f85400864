"""Reaching the connected client's model through MCP sampling (docs/SPEC.md §7 `sampling` provider).

The SDK's resolver mechanism asks the client before a tool body runs; a resolver returns a
`Sample` for a prompt, or None when there is nothing to ask. The tool body then looks each
answer up by the prompt it was given for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent

from engrain.providers.llm import LLMChoice, LLMError, Prompt, extract_json

T = TypeVar("T")


def client_samples(ctx: Context) -> bool:
    """Did the client declare the sampling capability?"""
    caps = ctx.client_capabilities
    return bool(caps is not None and caps.sampling is not None)


def sampling_active(llm: LLMChoice, ctx: Context) -> bool:
    """This request reaches the model through sampling (ENGRAIN_LLM sampling or auto without a direct
    provider, and a client that can sample)."""
    return llm.route(client_samples(ctx)) == "sampling"


def to_sample(prompt: Prompt | None) -> Sample | None:
    if prompt is None:
        return None
    message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt.user))
    return Sample([message], max_tokens=prompt.max_tokens, system_prompt=prompt.system)


def result_text(result: CreateMessageResult | None) -> str | None:
    if result is None:
        return None
    content = result.content
    blocks = content if isinstance(content, list) else [content]
    return "".join(b.text for b in blocks if isinstance(b, TextContent))


def parsed(result: CreateMessageResult | None) -> Any:
    """The sampled answer as JSON, or None when there was no sample or no JSON in it."""
    text = result_text(result)
    if text is None:
        return None
    try:
        return extract_json(text)
    except ValueError:
        return None


class SampledAnswers:
    """Answers gathered by resolvers, handed out to the prompts the service asks in the body."""

    def __init__(self, pairs: list[tuple[Prompt | None, CreateMessageResult | None]]) -> None:
        self._by_prompt = {p.user: r for p, r in pairs if p is not None and r is not None}

    async def __call__(self, prompt: Prompt, validate: Callable[[Any], T]) -> T:
        result = self._by_prompt.get(prompt.user)
        if result is None:
            raise LLMError("sampling: the client's model was not asked this prompt (the memories changed meanwhile)")
        return validate(extract_json(result_text(result) or ""))
