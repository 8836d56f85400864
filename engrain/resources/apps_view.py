"""The MCP App (io.modelcontextprotocol/ui): the user's traits with endorse / dismiss / reword, and their
profile, as a `ui://` view that clients which render apps (VS Code, Cursor, ChatGPT) show beside
`get_user_traits` and the profile. The view calls `review_trait`, `get_user_traits` and reads
`engrain://profile` through the host; a client without apps gets the same tools' plain text."""

from __future__ import annotations

import base64
import hashlib
import re
from importlib.resources import files

from mcp.server.apps import Apps, ResourceCsp

from engrain.tools.common import PROFILE_APP_URI


def _hash(block: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(block.encode()).digest()).decode() + "'"


def with_policy(html: str) -> str:
    """The view with its Content-Security-Policy filled in: its own inline script and style, by their hashes,
    and nothing else — no other script, no request to any server, no form, no frame (the host proxies every
    call). Hashes, not 'unsafe-inline': markup that got into the page could not run a script of its own."""
    scripts = [_hash(m) for m in re.findall(r"<script>(.*?)</script>", html, re.DOTALL)]
    styles = [_hash(m) for m in re.findall(r"<style>(.*?)</style>", html, re.DOTALL)]
    policy = (
        f"default-src 'none'; script-src {' '.join(scripts)}; style-src {' '.join(styles)}; img-src data:; "
        "connect-src 'none'; base-uri 'none'; form-action 'none'"
    )
    return html.replace("{{CSP}}", policy)


def profile_app() -> Apps:
    """The Apps extension with the profile view registered (pass it to the server's `extensions`). The resource
    declares that the view reaches no domain (`_meta.ui.csp`), and the page carries the same policy itself."""
    apps = Apps()
    apps.add_html_resource(
        PROFILE_APP_URI,
        with_policy(files("engrain.resources").joinpath("apps/profile.html").read_text(encoding="utf-8")),
        name="profile-app",
        title="What engrain knows about you",
        description="An interactive view of the user's traits (endorse, dismiss, reword) and profile.",
        csp=ResourceCsp(connect_domains=[], resource_domains=[], frame_domains=[], base_uri_domains=[]),
        prefers_border=True,
    )
    return apps
