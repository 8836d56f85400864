"""A scripted LLM provider (the edge of the outside world) and helpers to read the prompts it gets."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from engrain.providers.llm import Prompt

Reply = str | dict | Callable[[Prompt], Any]


class ScriptedLLM:
    """Answers prompts from a script, in order, and records every prompt."""

    name = "scripted"

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.prompts: list[Prompt] = []

    def then(self, *replies: Reply) -> ScriptedLLM:
        self.replies += replies
        return self

    async def complete(self, prompt: Prompt) -> str:
        self.prompts.append(prompt)
        if not self.replies:
            raise AssertionError(f"unexpected LLM call: {prompt.user[:200]}")
        reply = self.replies.pop(0)
        if callable(reply):
            reply = reply(prompt)
        return reply if isinstance(reply, str) else json.dumps(reply)


def alias(prompt: Prompt | str, fragment: str) -> str:
    """The [m3]/[t1]/[e2] alias the prompt (or a host task's text) gives to the line containing `fragment`."""
    for line in (prompt if isinstance(prompt, str) else prompt.user).splitlines():
        m = re.match(r"\[(\w+)\]", line)
        if m and fragment in line:
            return m.group(1)
    raise AssertionError(f"{fragment!r} is not in the prompt")


def answer(**parts: Any) -> dict[str, Any]:
    """A main reflection answer with every key present."""
    keys = ("new_trends", "new_behaviors", "reinforcements", "contradictions", "upgrades", "links")
    return {k: parts.get(k, []) for k in (*keys, *parts)}
