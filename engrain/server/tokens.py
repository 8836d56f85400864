"""Bearer tokens of the HTTP and SSE transports (SPEC §3): token → user_id, from ENGRAIN_TOKENS.

ENGRAIN_TOKENS is a path to a file, or the mapping itself. Either holds a JSON object
{"token": "user_id", …} or entries `token:user_id` (also `token=user_id` or
`token user_id`), separated by commas or new lines; `#` starts a comment in a file.
Tokens are kept only as SHA-256 digests, so the look-up does not compare secrets
character by character.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from mcp.server.auth.provider import AccessToken

MIN_TOKEN_CHARS = 16
_ENTRY = re.compile(r"^\s*(?P<token>[^\s:=]+)\s*[:=\s]\s*(?P<user>\S.*?)\s*$")


class TokenError(ValueError):
    """ENGRAIN_TOKENS is missing or malformed; the message says what to fix."""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def parse_tokens(setting: str | None) -> dict[str, str]:
    """The token → user mapping of ENGRAIN_TOKENS (a file path or the mapping itself)."""
    if not setting or not setting.strip():
        raise TokenError("ENGRAIN_TOKENS is required over HTTP/SSE: a file or 'token:user_id,…'")
    text = setting
    path = Path(setting).expanduser()
    if "\n" not in setting and len(setting) < 4096 and path.is_file():
        text = path.read_text()
    text = text.strip()
    if text.startswith("{"):
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TokenError(f"ENGRAIN_TOKENS: invalid JSON ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
            raise TokenError("ENGRAIN_TOKENS: the JSON must be an object of token → user_id strings")
        pairs = list(raw.items())
    else:
        pairs = []
        for n, line in enumerate(re.split(r"[\n,]", text), start=1):
            line = line.split("#", 1)[0]
            if not line.strip():
                continue
            m = _ENTRY.match(line)
            if m is None:
                raise TokenError(f"ENGRAIN_TOKENS entry {n}: expected 'token:user_id'")
            pairs.append((m["token"], m["user"]))
    if not pairs:
        raise TokenError("ENGRAIN_TOKENS holds no token")
    for token, user in pairs:
        if len(token) < MIN_TOKEN_CHARS:
            raise TokenError(f"ENGRAIN_TOKENS: a token of user {user!r} has {len(token)} characters; "
                             f"at least {MIN_TOKEN_CHARS} are required")
        if not user.strip():
            raise TokenError("ENGRAIN_TOKENS: a token has an empty user_id")
    return dict(pairs)


class StaticTokenVerifier:
    """The mcp SDK's TokenVerifier for a fixed set of tokens: the token's user becomes the subject,
    which AppState.user() reads for every call."""

    def __init__(self, tokens: dict[str, str]) -> None:
        self._users = {_digest(token): user for token, user in tokens.items()}

    @classmethod
    def from_setting(cls, setting: str | None) -> StaticTokenVerifier:
        return cls(parse_tokens(setting))

    def user_of(self, token: str) -> str | None:
        return self._users.get(_digest(token))

    async def verify_token(self, token: str) -> AccessToken | None:
        user = self.user_of(token)
        if user is None:
            return None
        return AccessToken(token=token, client_id=user, scopes=[], subject=user)
