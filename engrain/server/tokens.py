"""Bearer tokens of the HTTP and SSE transports (docs/SPEC.md §3): token → user_id, from ENGRAIN_TOKENS.

ENGRAIN_TOKENS is a path to a file, or the mapping itself. Either holds a JSON object
{"token": "user_id", …} or entries `token:user_id` (also `token=user_id` or
`token user_id`), separated by commas or new lines; `#` starts a comment in a file.
Which of the two a setting is, its form says (`_token_file`): the file system is never asked about a
value that may be the secrets themselves, and no message ever repeats the setting.
Tokens are kept only as SHA-256 digests, so the look-up does not compare secrets
character by character.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from pathlib import Path
from typing import Any, cast

from mcp.server.auth.provider import AccessToken

log = logging.getLogger(__name__)
MIN_TOKEN_CHARS = 16
_ENTRY = re.compile(r"^\s*(?P<token>[^\s:=]+)\s*[:=\s]\s*(?P<user>\S.*?)\s*$")


class TokenError(ValueError):
    """ENGRAIN_TOKENS is missing or malformed; the message says what to fix."""


def token_digest(token: str) -> bytes:
    """What a token is kept as: its SHA-256 digest."""
    return hashlib.sha256(token.strip().encode()).digest()


def parse_tokens(setting: str | None) -> dict[str, str]:
    """The token → user mapping of ENGRAIN_TOKENS (a file path or the mapping itself)."""
    if not setting or not setting.strip():
        raise TokenError("ENGRAIN_TOKENS is required over HTTP/SSE: a file or 'token:user_id,…'")
    path = _token_file(setting)
    text = (_read(path) if path else setting).strip()
    pairs: list[tuple[str, str]] = []
    if text.startswith("{"):
        try:
            raw: Any = json.loads(text, object_pairs_hook=lambda items: items)  # keeps a repeated key
        except json.JSONDecodeError as exc:
            raise TokenError(f"ENGRAIN_TOKENS: invalid JSON ({exc.msg} at line {exc.lineno})") from None
        entries = cast(list[tuple[Any, Any]], raw) if isinstance(raw, list) else None
        if entries is None or not all(isinstance(k, str) and isinstance(v, str) for k, v in entries):
            raise TokenError("ENGRAIN_TOKENS: the JSON must be an object of token → user_id strings")
        pairs = cast(list[tuple[str, str]], entries)
    else:
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
    _refuse_shared_tokens(pairs)
    for token, user in pairs:
        if len(token) < MIN_TOKEN_CHARS:
            raise TokenError(
                f"ENGRAIN_TOKENS: a token of user {user!r} has {len(token)} characters; "
                f"at least {MIN_TOKEN_CHARS} are required"
            )
        if not user.strip():
            raise TokenError("ENGRAIN_TOKENS: a token has an empty user_id")
    return dict(pairs)


def _refuse_shared_tokens(pairs: list[tuple[str, str]]) -> None:
    """One token names one user: a token given again for another user would silently hand the first
    user's memories to whoever holds it. Entries are named by position, never by the token's value."""
    first: dict[str, tuple[int, str]] = {}
    for n, (token, user) in enumerate(pairs, start=1):
        if token in first and first[token][1] != user:
            raise TokenError(
                f"ENGRAIN_TOKENS: entry {n} (user {user!r}) repeats the token of entry {first[token][0]} "
                f"(user {first[token][1]!r}); give each user a token of their own"
            )
        first.setdefault(token, (n, user))


# A path: absolute, from the home directory, relative with a dot, or a Windows drive.
_PATH = re.compile(r"^(?:[/~]|\.{1,2}[/\\]|[A-Za-z]:[/\\])")


def _token_file(setting: str | None) -> Path | None:
    """The file ENGRAIN_TOKENS names, if it names one; None when it holds the mapping itself. Told by the
    setting's form alone — JSON, several entries, one `token:user` entry, or a path — never by asking the
    file system (a mapping is no file name: a long one made `is_file()` fail with the whole setting in the
    error, every token of every user printed to the log)."""
    value = (setting or "").strip()
    if not value or value.startswith("{") or "\n" in value or "," in value:
        return None
    if _PATH.match(value) or _ENTRY.match(value) is None:
        return Path(value).expanduser()
    return None


def _read(path: Path) -> str:
    """The token file's text; an error names what is wrong with it, never its contents."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TokenError(
            "ENGRAIN_TOKENS names a file that does not exist (give the file's path, or the mapping itself)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise TokenError(f"ENGRAIN_TOKENS names a file that cannot be read ({reason})") from None


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, the one parser of every endpoint.
    RFC 7235 allows several spaces after the scheme; the token itself has none."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class StaticTokenVerifier:
    """The mcp SDK's TokenVerifier for the tokens of ENGRAIN_TOKENS: the token's user becomes the
    subject, which AppState.user() reads for every call. When ENGRAIN_TOKENS is a file, the file is
    read again when it changes (checked at most every RELOAD_SECONDS), so a token removed from it
    stops working within seconds, without a restart; a file that does not parse while it is being
    edited leaves the last good mapping in force until it does."""

    RELOAD_SECONDS = 1.0

    def __init__(self, tokens: dict[str, str], source: Path | None = None) -> None:
        self._users = self._digests(tokens)
        self._source = source
        self._stamp = self._stat() if source else None
        self._checked = time.monotonic()

    @staticmethod
    def _digests(tokens: dict[str, str]) -> dict[bytes, str]:
        return {token_digest(token): user for token, user in tokens.items()}

    @classmethod
    def from_setting(cls, setting: str | None) -> StaticTokenVerifier:
        return cls(parse_tokens(setting), _token_file(setting))

    def _stat(self) -> tuple[int, int] | None:
        try:
            info = self._source.stat() if self._source else None
        except OSError:  # gone, or unreadable, while it is being replaced
            return None
        return (info.st_mtime_ns, info.st_size) if info else None

    def _refresh(self) -> None:
        if self._source is None or time.monotonic() - self._checked < self.RELOAD_SECONDS:
            return
        self._checked = time.monotonic()
        stamp = self._stat()
        if stamp == self._stamp:
            return
        try:
            users = self._digests(parse_tokens(str(self._source)) if stamp else {})
        except TokenError as exc:
            log.warning("ENGRAIN_TOKENS file changed but does not parse (%s); keeping the previous tokens", exc)
            return
        self._users, self._stamp = users, stamp
        log.info("ENGRAIN_TOKENS reloaded: %d tokens", len(users))

    def user_of(self, token: str) -> str | None:
        self._refresh()
        return self._users.get(token_digest(token))

    def sign_in(self, token: str) -> tuple[str, bytes] | None:
        """The page's sign-in: the token's user and its digest, which the session keeps to check, at every
        request, that the token still stands for that user (it may be removed or given to another)."""
        digest = token_digest(token)
        self._refresh()
        user = self._users.get(digest)
        return (user, digest) if user is not None else None

    def user_of_digest(self, digest: bytes) -> str | None:
        self._refresh()
        return self._users.get(digest)

    async def verify_token(self, token: str) -> AccessToken | None:
        user = self.user_of(token)
        if user is None:
            return None
        return AccessToken(token=token.strip(), client_id=user, scopes=[], subject=user)
