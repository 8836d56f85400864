"""`recall`: find what engrain knows that bears on a question (docs/SPEC.md §6)."""

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field, StrictInt

from engrain.reading import inputs
from engrain.services.recall.results import RecallResult
from engrain.services.recall.search import RecallRequest, RecallSearch
from engrain.services.traits.reflection.due import ReflectionDue
from engrain.tools.common import Caller, Notice, structured, tool_errors, with_note

DESCRIPTION = (
    "Search the user's long-term memory by meaning and keywords (start a conversation with get_profile, the "
    "standing picture). Call it before answering anything that "
    "depends on who the user is, what they like, what they did or plan, or how they work. Returns one line "
    "per memory, best first: [said D · happened P, and plan / overdue plan / habit / trait when it is one] «its "
    "whole words» (a short id that forget, link, review_trait and "
    "remember's supersedes accept). Memories linked to the best ones follow. explain=true adds each score's terms. "
    "When the result ends with 'Reflection due', call `reflect` when the conversation allows. "
    "A question that gathers (a list, a count, 'what kinds of…', everything about a topic, a summary) gets pieces "
    "spread over the days told (a day's further pieces rank lower), long ones by their passages that match; "
    "gather=true/false overrides that reading of the question. "
    "said D is the day the user said it: read 'yesterday' or 'last month' in the words from that day. happened P "
    "is when it happened, already resolved and only as precise as the user was: a day (2022-12-05), a week (week "
    "of 2022-11-28), a month (2022-12), a season (summer 2022), a year (2022) or a span (a..b); never shift it again."
)


def register(
    server: MCPServer, recall_service: RecallSearch, due: ReflectionDue, caller: Caller, notice: Notice
) -> None:
    """`notice`: the line the first recall of a local session carries about where the person's memories are."""

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
            list[Literal["fact", "episodic", "procedural", "trait", "digest"]] | None,
            Field(description="Only these kinds (a digest: a summary of what the user told about one thing)."),
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
        gather: Annotated[
            bool | None,
            Field(
                description="Gather pieces from the whole history (a list, a count, a summary): one per day told "
                "first. Unset: read from the question."
            ),
        ] = None,
        explain: Annotated[
            bool, Field(description="Add each hit's score and its terms (for debugging ranking).")
        ] = False,
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
            gather=gather,
        )
        result = await recall_service.recall(user, request)
        text = recall_service.text_of(result, explain, max_tokens)
        text = with_note(text, await notice())
        return structured(with_note(text, await due.note(user)), result)
