"""Who is signed in to the page: one-time login tokens, session cookies and their CSRF tokens.

`engrain ui` prints a URL that carries a login token. Opening it exchanges the token (once, within
LOGIN_TTL) for a session cookie and redirects to a URL without it, so the token never stays in the address
bar, the history or a Referer. Over HTTP a user signs in with their bearer token instead, and the session
keeps the token's digest: it lasts only as long as the token stands for that user (signin.SignIn.session).
Each session has its own CSRF token, which every form posts back. A user has at most
MAX_SESSIONS_PER_USER sessions (their oldest goes first): nobody else's sign-ins can end one of theirs.
Sessions live in this process only: restarting the page signs everyone out, which is what a local tool
should do.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

COOKIE = "engrain_session"
LOGIN_TTL = 600.0  # seconds a one-time login URL stays valid
SESSION_TTL = 12 * 3600.0  # seconds a session lasts without use
MAX_SESSIONS_PER_USER = 20  # a user's oldest session goes first beyond this


@dataclass
class Session:
    user: str
    csrf: str
    expires: float
    credential: bytes | None = None  # the digest of the bearer token it was opened with (over HTTP)


class Sessions:
    """The page's sessions and pending login tokens, in memory. `clock` is monotonic seconds (tests pass their own)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._logins: dict[str, tuple[str, float]] = {}  # token → (user, expires)
        self._sessions: dict[str, Session] = {}

    def login_token(self, user: str) -> str:
        """A token that signs `user` in once, within LOGIN_TTL."""
        token = secrets.token_urlsafe(32)
        self._logins[token] = (user, self.clock() + LOGIN_TTL)
        return token

    def redeem(self, token: str) -> str | None:
        """A new session id for a valid login token (which is used up), else None."""
        found = self._logins.pop(token, None)
        if found is None or found[1] < self.clock():
            return None
        return self.open(found[0])

    def open(self, user: str, credential: bytes | None = None) -> str:
        """A new session for `user` (opened with the token whose digest is `credential`, if any); its id goes in
        the cookie. Expired sessions go, and this user's oldest beyond MAX_SESSIONS_PER_USER."""
        now = self.clock()
        for sid in [sid for sid, s in self._sessions.items() if s.expires < now]:
            del self._sessions[sid]
        theirs = [sid for sid, s in self._sessions.items() if s.user == user]  # oldest first (insertion order)
        for sid in theirs[: max(0, len(theirs) - MAX_SESSIONS_PER_USER + 1)]:
            del self._sessions[sid]
        sid = secrets.token_urlsafe(32)
        self._sessions[sid] = Session(user, secrets.token_urlsafe(24), now + SESSION_TTL, credential)
        return sid

    def get(self, sid: str | None) -> Session | None:
        """The live session of a cookie value (its lifetime renewed), else None."""
        session = self._sessions.get(sid) if sid else None
        if session is None:
            return None
        now = self.clock()
        if session.expires < now:
            del self._sessions[sid or ""]
            return None
        session.expires = now + SESSION_TTL
        return session

    def close(self, sid: str | None) -> None:
        if sid:
            self._sessions.pop(sid, None)


def same_token(given: str | None, expected: str) -> bool:
    """Compare secrets in constant time."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())
