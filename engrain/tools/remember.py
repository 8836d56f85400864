"""`remember`: store a memory about the user (docs/SPEC.md §5)."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from engrain.server.state import AppState
from engrain.services import inputs
from engrain.services.memories import RememberResult
from engrain.tools.common import shorten, structured, tool_errors

DESCRIPTION = (
    "Store something worth knowing about the user for later sessions: a fact, a preference, an event, "
    "a plan or a workflow. Dates in the text ('yesterday', 'next Friday') are resolved; plans become "
    "intentions; 'A → B → C' becomes a procedure. Repeating a memory is harmless (duplicates are detected). "
    "Use `supersedes` when a fact changed (e.g. a new address)."
)


def register(server: MCPServer, app: AppState) -> None:
    @server.tool(
        name="remember",
        title="Remember",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def remember(
        content: Annotated[
            str,
            Field(description=f"The memory, one self-contained statement (≤ {inputs.MAX_CONTENT_CHARS:,} characters)."),
        ],
        kind: Annotated[
            Literal["fact", "episodic", "procedural"] | None, Field(description="Inferred when omitted.")
        ] = None,
        importance: Annotated[int | None, Field(description="1–10; default 5.")] = None,
        event_time: Annotated[
            str | None, Field(description="When it happened or will happen: ISO date or a phrase like 'last Tuesday'.")
        ] = None,
        category: Annotated[str | None, Field(description="e.g. work, location, skill, preference, workflow.")] = None,
        tags: Annotated[list[str] | None, Field(description=f"Up to {inputs.MAX_TAGS} short labels.")] = None,
        namespace: Annotated[str | None, Field(description="Project/app scope; default 'default'.")] = None,
        pinned: Annotated[bool, Field(description="Pinned memories never decay.")] = False,
        supersedes: Annotated[str | None, Field(description="Id of a memory this one replaces.")] = None,
    ) -> Annotated[CallToolResult, RememberResult]:
        result = await app.memories.remember(
            app.user(),
            content,
            kind=kind,
            importance=importance,
            event_time=event_time,
            category=category,
            tags=tags,
            namespace=namespace,
            pinned=pinned,
            supersedes=supersedes,
        )
        when = f", event {result.event_time.date().isoformat()}" if result.event_time else ""
        summary = f"{result.status}: {result.id} ({result.kind}, {result.temporality}{when}) — {shorten(content)}"
        return structured(summary, result)
