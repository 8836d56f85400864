"""`review_trait`: the user confirms, rejects or rewords what engrain believes about them."""

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Resolve
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from engrain.reading import inputs
from engrain.services.traits.results import ReviewResult
from engrain.services.traits.review import TraitReview
from engrain.tools.common import Caller, shorten, structured, tool_errors

DESCRIPTION = (
    "Record the user's verdict on a trait (ids from get_user_traits): 'endorse' when they confirm it (counts "
    "as strong evidence), 'dismiss' when it is wrong (it dissolves and is never inferred again), 'edit' with "
    "`content` when it needs other words (its evidence is kept). Only on the user's explicit say-so."
)


def register(server: MCPServer, trait_review: TraitReview, caller: Caller) -> None:
    @server.tool(
        name="review_trait",
        title="Review a trait",
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False),
    )
    @tool_errors
    async def review_trait(
        user: Annotated[str, Resolve(caller)],
        trait_id: Annotated[str, Field(description="The trait's id.")],
        action: Annotated[Literal["endorse", "dismiss", "edit"], Field(description="The user's verdict.")],
        content: Annotated[
            str | None, Field(description=f"edit only: the new wording (≤ {inputs.MAX_CONTENT_CHARS:,} characters).")
        ] = None,
    ) -> Annotated[CallToolResult, ReviewResult]:
        result = await trait_review.review(user, trait_id, action, content)
        done = {"endorse": "endorsed", "dismiss": "dismissed", "edit": "edited"}[result.action]
        return structured(
            f"{done}: {shorten(result.content, 100)} ({result.stage}, confidence {result.confidence:.2f}) {result.id}",
            result,
        )
