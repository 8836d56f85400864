"""`ModelRoutes`: which route a request's prompts take, and the `Route` that answers them.

The order is that of ENGRAIN_LLM=auto: a direct provider, else the client's model when the client can
sample, else the calling model through a host task. ENGRAIN_LLM=sampling with a client that cannot
sample has no route; the result then says why no model looked at the memories.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict, TypeVar

import anyio

from engrain.errors import EngrainError
from engrain.providers.llm import Ask, LLMChoice, LLMError, Prompt, extract_json

T = TypeVar("T")
RouteKind = Literal["direct", "sampling", "host", "none"]
NO_SAMPLING = (
    "ENGRAIN_LLM=sampling, but this client declared no sampling capability: no model looked at the new "
    "memories, which stay pending"
)


class RouteNames(TypedDict):
    client_samples: str
    client_does_not_sample: str


class RoutesDescription(TypedDict):
    provider: str  # the direct provider's name, else ENGRAIN_LLM's kind
    mode: str
    route: RouteNames


class SampledAnswers:
    """The client's answers, gathered by the tool's resolvers before the body ran, handed out to the
    prompts the domain asks in the body. A prompt nobody asked (the memories changed in between) fails
    as a model failure, so the domain keeps its code-only results."""

    def __init__(self, pairs: Iterable[tuple[Prompt, str | None]]) -> None:
        self._by_prompt = {prompt.user: text for prompt, text in pairs if text is not None}

    async def __call__(self, prompt: Prompt, validate: Callable[[Any], T]) -> T:
        text = self._by_prompt.get(prompt.user)
        if text is None:
            raise LLMError("sampling: the client's model was not asked this prompt (the memories changed meanwhile)")
        return await anyio.to_thread.run_sync(lambda: validate(extract_json(text)))  # off the loop: it may be long


@dataclass(frozen=True)
class Route:
    """The route of one request. `ask` answers a prompt on the direct and sampling routes (None on the
    host route, where the domain hands out a task, and when there is no model); `name` is what results
    record as their model; `missing` says why a configured model cannot answer here."""

    kind: RouteKind
    name: str
    ask: Ask | None = None
    missing: str | None = None

    def sampled(self, pairs: Iterable[tuple[Prompt, str | None]]) -> Route:
        """This route with the client's sampled answers to its prompts (a no-op off the sampling route)."""
        return replace(self, ask=SampledAnswers(pairs)) if self.kind == "sampling" else self

    async def answer(self, prompt: Prompt, validate: Callable[[Any], T]) -> T | None:
        """The model's validated answer, or None when this route has no model or it failed: the caller
        falls back to its rules rather than lose the user's words."""
        if self.ask is None:
            return None
        try:
            return await self.ask(prompt, validate)
        except (EngrainError, ValueError):
            return None


class ModelRoutes:
    """The one place that turns ENGRAIN_LLM and what the client declared into a route."""

    def __init__(self, choice: LLMChoice) -> None:
        self.choice = choice

    def samples(self, client_samples: bool) -> bool:
        """Are this request's prompts asked of the client's model (its resolvers do the asking)?"""
        return self.choice.route(client_samples) == "sampling"

    def for_request(self, client_samples: bool) -> Route:
        """The route of a client's request; on the sampling route, add the answers with `Route.sampled`."""
        kind = self.choice.route(client_samples)
        if kind == "direct":
            return Route("direct", self.choice.name, self.choice.direct_ask())
        if kind == "sampling":
            return Route("sampling", "sampling", SampledAnswers(()))
        if kind == "host":
            return Route("host", "host")
        return Route("none", "none", missing=NO_SAMPLING if self.choice.kind == "sampling" else None)

    @property
    def has_own_model(self) -> bool:
        """Does the server hold a model that answers with no client (the scheduler's work)?"""
        return self.choice.direct_ask() is not None

    def without_client(self) -> Route:
        """The route of work no client waits for (the scheduler's digest): the direct provider or none."""
        ask = self.choice.direct_ask()
        return Route("direct", self.choice.name, ask) if ask is not None else Route("none", self.choice.name)

    def describe(self) -> RoutesDescription:
        """The configured model and the route a client takes with and without sampling (the status report)."""
        return RoutesDescription(
            provider=self.choice.name,
            mode=self.choice.kind,
            route=RouteNames(client_samples=self.choice.route(True), client_does_not_sample=self.choice.route(False)),
        )
