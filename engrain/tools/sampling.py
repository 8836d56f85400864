"""Reaching the connected client's model through MCP sampling (docs/SPEC.md §7 `sampling` provider).

The SDK's resolver mechanism asks the client before a tool body runs; a resolver returns a
`Sample` for a prompt, or None when there is nothing to ask. The body hands the answers' text to its
domain service, which pairs them with the prompts (services/prompting/routes.SampledAnswers).
"""

from __future__ import annotations

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent

from engrain.providers.llm import Prompt


def client_samples(ctx: Context) -> bool:
    """Did the client declare the sampling capability?"""
    caps = ctx.client_capabilities
    return bool(caps is not None and caps.sampling is not None)


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
