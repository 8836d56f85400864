"""The MCP App (io.modelcontextprotocol/ui): the user's traits with endorse / dismiss / reword, and their
profile, as a `ui://` view that clients which render apps (VS Code, Cursor, ChatGPT) show beside
`get_user_traits` and the profile. The view calls `review_trait`, `get_user_traits` and reads
`engrain://profile` through the host; a client without apps gets the same tools' plain text."""

from __future__ import annotations

from importlib.resources import files

from mcp.server.apps import Apps

from engrain.tools.common import PROFILE_APP_URI


def profile_app() -> Apps:
    """The Apps extension with the profile view registered (pass it to the server's `extensions`)."""
    apps = Apps()
    apps.add_html_resource(
        PROFILE_APP_URI,
        files("engrain.resources").joinpath("apps/profile.html").read_text(encoding="utf-8"),
        name="profile-app",
        title="What engrain knows about you",
        description="An interactive view of the user's traits (endorse, dismiss, reword) and profile.",
        prefers_border=True,
    )
    return apps
