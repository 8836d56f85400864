"""`remember`: store a memory about the user (docs/SPEC.md §5)."""

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from engrain.reading import inputs
from engrain.reading.speakers import Role
from engrain.services.memories.requests import RememberRequest
from engrain.services.memories.results import RememberManyResult, RememberResult
from engrain.services.memories.writing import MAX_BATCH, MemoryWriter
from engrain.services.traits.reflection.due import ReflectionDue
from engrain.text.quoting import inline
from engrain.tools.common import (
    Caller,
    may_replace_lines,
    plural,
    redaction_line,
    structured,
    tool_errors,
    with_note,
    words_only_line,
)

DESCRIPTION = (
    "Store something worth knowing about the user for later sessions. Call it when the user states something "
    "durable about themselves: a fact, a preference, a decision, an event, a plan or a workflow, as one "
    "self-contained statement in their terms; not small talk, one-off requests or secrets. Dates in the text "
    "('yesterday', 'next Friday') are resolved; plans become intentions; 'A → B → C' becomes a procedure. "
    "Repeating a memory is harmless (duplicates are detected). When a fact changed (a new address, a new job), "
    "pass `supersedes` with the old memory's id (the short id recall shows is enough); for something that holds "
    "one value at a time (a phone, a gym), `key` lets a later value replace it without an id. When the result says "
    "it may replace an older memory and it does, call remember again with the same words and `supersedes`. What "
    "the user asks you to do with a text, quotes, reports of others or stories replace no fact. When the result ends "
    "with 'Reflection due', call `reflect` when the conversation allows."
)
MANY_DESCRIPTION = (
    f"Store many memories in one call (up to {MAX_BATCH:,}), e.g. when importing the user's notes or chat "
    "history: far faster than one `remember` each. Each item takes the arguments of `remember` but "
    "`supersedes`. Exact repeats (of stored memories or within the batch) are reported as duplicates; unlike "
    "`remember`, near-duplicates are not merged. All or nothing: an invalid item stores none. The result names "
    "items that may replace an older memory: if one does, call remember with its words and `supersedes`."
)
# The arguments `remember` and each `remember_many` item share, described once.
Kind = Literal["fact", "episodic", "procedural"]
CONTENT = f"The memory, one self-contained statement (≤ {inputs.MAX_CONTENT_CHARS:,} characters)."
KIND = "Inferred when omitted."
IMPORTANCE = "1–10; default 5."
EVENT_TIME = (
    "When it happened or will happen, only as precise as the user was: a day (ISO), 2022-12 (a month), 2022-W48 "
    "(a week), 2022 (a year), 2022-12-03..2022-12-05 (a span), or a phrase like 'last Tuesday' or 'last summer' "
    "read from said_at. Your reading wins over engrain's; leave it out rather than guess a day."
)
CATEGORY = "e.g. work, location, skill, preference, workflow."
TAGS = f"Up to {inputs.MAX_TAGS} short labels."
NAMESPACE = "Project/app scope; default 'default'."
PINNED = "Pinned memories never decay."
KEY = (
    "Only when it states the one current value of something that holds one value at a time: whose · what, "
    "e.g. 'user · phone', 'user · gym', 'Mei · due date'. A later memory with the same key and another value "
    "replaces this one (kept as history). Leave it out for anything else; engrain reads common cases itself."
)
ROLE = (
    "For a turn of a chat: who said it. 'assistant' keeps what the assistant said as a reply — found when the "
    "user asks what you said, suggested or wrote, never read as the user's own fact or plan. Read from a leading "
    "'Assistant:' or 'User:' when omitted."
)
SAID_AT = (
    "When the user said it, if not now (ISO or a phrase like '2023-05-08' or 'last March'): for imported "
    "history. Relative dates in the text are read against it."
)


class MemoryItem(BaseModel):
    """One memory of a `remember_many` call."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key is refused with its name, never dropped

    content: str = Field(description=CONTENT)
    kind: Kind | None = Field(default=None, description=KIND)
    importance: StrictInt | None = Field(default=None, description=IMPORTANCE)
    event_time: str | None = Field(default=None, description=EVENT_TIME)
    category: str | None = Field(default=None, description=CATEGORY)
    tags: list[str] | None = Field(default=None, description=TAGS)
    namespace: str | None = Field(default=None, description=NAMESPACE)
    pinned: bool = Field(default=False, description=PINNED)
    said_at: str | None = Field(default=None, description=SAID_AT)
    key: str | None = Field(default=None, description=KEY)
    role: Role | None = Field(default=None, description=ROLE)


def register(server: MCPServer, memories: MemoryWriter, due: ReflectionDue, caller: Caller) -> None:
    @server.tool(
        name="remember",
        title="Remember",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def remember(
        user: Annotated[str, Resolve(caller)],
        content: Annotated[str, Field(description=CONTENT)],
        kind: Annotated[Kind | None, Field(description=KIND)] = None,
        importance: Annotated[StrictInt | None, Field(description=IMPORTANCE)] = None,
        event_time: Annotated[str | None, Field(description=EVENT_TIME)] = None,
        category: Annotated[str | None, Field(description=CATEGORY)] = None,
        tags: Annotated[list[str] | None, Field(description=TAGS)] = None,
        namespace: Annotated[str | None, Field(description=NAMESPACE)] = None,
        pinned: Annotated[bool, Field(description=PINNED)] = False,
        supersedes: Annotated[
            str | None, Field(description="Id of a memory this one replaces (it ends; recall keeps it as history).")
        ] = None,
        said_at: Annotated[str | None, Field(description=SAID_AT)] = None,
        key: Annotated[str | None, Field(description=KEY)] = None,
        role: Annotated[Role | None, Field(description=ROLE)] = None,
    ) -> Annotated[CallToolResult, RememberResult]:
        request = RememberRequest(
            content=content,
            kind=kind,
            importance=importance,
            event_time=event_time,
            category=category,
            tags=tags,
            namespace=namespace,
            pinned=pinned,
            supersedes=supersedes,
            said_at=said_at,
            key=key,
            role=role,
        )
        result = await memories.remember(user, request)
        when = f", happened {result.happened}" if result.happened else ""
        replaced = f", replaces {inputs.short_id(result.superseded)}" if result.superseded else ""
        keyed = f", key {result.key}" if result.key else ""
        summary = (
            f"{result.status}: {inputs.short_id(result.id)} ({result.kind}, {result.temporality}{when}{keyed}"
            f"{replaced})"
            f" — «{inline(result.content or content, 80)}»{redaction_line(result.redacted)}"
            f"{words_only_line(result.words_only)}"
        )
        if (maybe := result.may_replace) is not None:
            short = inputs.short_id(maybe.id)
            summary += (
                f"\nIt may replace {short} «{inline(maybe.content, 120)}»: if it does, call remember again with the "
                f'same words and supersedes="{short}"; otherwise nothing to do (reflect will also ask).'
            )
        stored = result.status == "created"
        return structured(
            with_note(
                summary, await due.note(user, stored=int(stored), importance=result.importance, told=[result.told_at])
            ),
            result,
        )

    @server.tool(
        name="remember_many",
        title="Remember many",
        description=MANY_DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def remember_many(
        user: Annotated[str, Resolve(caller)],
        items: Annotated[list[MemoryItem], Field(description="The memories, in order.")],
    ) -> Annotated[CallToolResult, RememberManyResult]:
        results = await memories.remember_many(user, [RememberRequest(**item.model_dump()) for item in items])
        result = RememberManyResult.of(results)
        summary = f"{plural(result.created, 'memory')} stored, {plural(result.duplicates, 'duplicate')} recognised"
        summary += redaction_line(result.redacted) + words_only_line(result.words_only)
        summary += may_replace_lines(
            [
                (r.id, r.content or item.content, r.may_replace.id, r.may_replace.content)
                for r, item in zip(result.results, items, strict=True)
                if r.may_replace is not None
            ]
        )
        created = [r for r in result.results if r.status == "created"]
        importance = sum(r.importance for r in created)
        note = await due.note(user, stored=result.created, importance=importance, told=[r.told_at for r in created])
        return structured(with_note(summary, note), result)
