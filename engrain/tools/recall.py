"""`recall`: find what engrain knows that bears on a question (docs/SPEC.md §6)."""

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field, StrictInt

from engrain.reading import inputs
from engrain.services.recall.results import RecallResult
from engrain.services.recall.search import RecallRequest, RecallSearch
from engrain.tools.common import Caller, plural, shorten, structured, tool_errors

DESCRIPTION = (
    "Search the user's long-term memory by meaning and keywords. Returns the best matches with a score "
    "breakdown, plus memories linked to them. Call it before answering anything that depends on who the "
    "user is, what they like, what they did or plan, or how they work."
)


def register(server: MCPServer, recall_service: RecallSearch, caller: Caller) -> None:
    @server.tool(
        name="recall",
        title="Recall",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    )
    @tool_errors
    async def recall(
        user: Annotated[str, Resolve(caller)],
        query: Annotated[str, Field(description=f"What to look for (≤ {inputs.MAX_QUERY_CHARS:,} characters).")],
        limit: Annotated[StrictInt, Field(description=f"Ranked results, 1–{inputs.MAX_LIMIT}.")] = 10,
        kinds: Annotated[
            list[Literal["fact", "episodic", "procedural", "trait"]] | None, Field(description="Only these kinds.")
        ] = None,
        namespace: Annotated[str | None, Field(description="Only this namespace.")] = None,
        since: Annotated[
            str | None, Field(description="Only memories dated on/after this (ISO or a phrase like 'last month').")
        ] = None,
        until: Annotated[str | None, Field(description="Only memories dated on/before this.")] = None,
        include_traits: Annotated[bool, Field(description="Include traits learned about the user.")] = True,
        include_links: Annotated[bool, Field(description="Append up to 3 memories linked to the hits.")] = True,
        max_tokens: Annotated[
            StrictInt | None,
            Field(description="Return only the best results that fit this many tokens (about 4 characters each)."),
        ] = None,
        as_of: Annotated[
            str | None,
            Field(
                description="Time travel: answer from what was known and valid at "
                "this moment (ISO or a phrase like 'last March')."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, RecallResult]:
        request = RecallRequest(
            query,
            limit=limit,
            kinds=kinds,
            namespace=namespace,
            since=since,
            until=until,
            include_traits=include_traits,
            include_links=include_links,
            max_tokens=max_tokens,
            as_of=as_of,
        )
        result = await recall_service.recall(user, request)
        when = f" as of {result.as_of.isoformat(timespec='seconds')}" if result.as_of else ""
        lines = [f"{plural(len(result.results), 'memory')} for {shorten(query, 60)!r}{when}:"]
        lines += [
            f"- [{hit.score:.3f}{' linked' if hit.source == 'linked' else ''}] {shorten(hit.content, 160)} ({hit.id})"
            for hit in result.results
        ]
        return structured("\n".join(lines), result)
