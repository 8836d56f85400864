"""Whose memory a local session speaks for when nobody names a user: one person per machine.

A local install (stdio, the CLI, the page) serves one person, so every client on the machine must share one
memory unless the person names another user. Older engrains defaulted to the OS user name in some places and
to `me` in others (mcp.json), which gave one person two memories; the default is now `me` everywhere. A home
whose memories were all made under the OS user name by an older default keeps using that name (nothing
vanishes), and says so; a home that holds both is told how to join them (`engrain merge-users`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from engrain.config import os_user
from engrain.errors import InvalidInput
from engrain.reading import inputs
from engrain.storage import stats as stats_repo
from engrain.storage import users as users_repo

if TYPE_CHECKING:
    from engrain.services.runtime import Runtime

DEFAULT_USER = "me"
Source = Literal["named", "default", "older default"]


@dataclass(frozen=True)
class LocalUser:
    """The chosen name, how it was chosen, and the home's other users with their live memories."""

    name: str
    source: Source
    others: Mapping[str, int] = field(default_factory=dict[str, int])
    holds: int = 0  # the chosen user's live memories

    def notice(self) -> str | None:
        """The one line a person (status) or the model (the first recall) needs, or None."""
        if self.source == "older default":
            return (
                f"memories on this machine are under {self.name!r}, the OS user name an older engrain used by "
                f"default; every client without ENGRAIN_USER keeps using it"
            )
        if not self.others:
            return None
        named = ", ".join(f"{user!r} ({n})" for user, n in self.others.items())
        join = " ".join(f"`engrain merge-users {user} {self.name}`" for user in self.others)
        if self.holds:
            return f"this machine also holds memories of {named}, made under another name; to join them: {join}"
        how = "set ENGRAIN_USER to that name, or" if self.source == "named" else "set ENGRAIN_USER, or"
        return f"no memories for {self.name!r} yet, but this machine holds memories of {named}: {how} {join}"


def choose(named: str | None, system_user: str, holding: Mapping[str, int]) -> LocalUser:
    """The local user, a pure decision over what the home holds (`holding`: live memories by user).

    A named user is used as named. Unnamed: `me`, unless `me` holds nothing while the OS user's name holds
    memories (an older default made them): then that name, so that nothing the person told disappears."""
    if named:
        name, source = named, "named"
    elif not holding.get(DEFAULT_USER) and holding.get(system_user):
        name, source = system_user, "older default"
    else:
        name, source = DEFAULT_USER, "default"
    others = {user: n for user, n in holding.items() if user != name}
    return LocalUser(name, source, others, holding.get(name, 0))


class LocalUsers:
    """The local user of this process, chosen once the database answers (`ENGRAIN_USER` needs no database, but
    its notice does), and the notice the first recall carries."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self._chosen: LocalUser | None = None
        self._lock = asyncio.Lock()
        self._told = False

    async def resolve(self, named: str | None = None) -> LocalUser:
        """`named` (--user) wins over ENGRAIN_USER, which wins over the default; the default is read once."""
        named = named or self.rt.settings.user or None
        if self._chosen is not None and (named is None or named == self._chosen.name):
            return self._chosen
        async with self._lock:
            db = await self.rt.database()
            async with db.sessions() as s:
                holding = await stats_repo.users_holding(s, self.rt.clock())
            system_user = os_user()
            if self.rt.settings.database_url is not None:  # a shared database: name no one but this machine's
                holding = {u: n for u, n in holding.items() if u in (DEFAULT_USER, system_user, named)}
            chosen = choose(named, system_user, holding)
            if named is None or named == self.rt.settings.user:
                self._chosen = chosen
            return chosen

    async def name(self) -> str:
        """The stdio caller's user: ENGRAIN_USER when set (no database needed), else the chosen default."""
        return self.rt.settings.user or (await self.resolve()).name

    async def first_notice(self) -> str | None:
        """The notice, once per process: the first recall tells the model where the person's memories are."""
        if self._told:
            return None
        self._told = True
        return (await self.resolve()).notice()

    async def merge(self, source: str, target: str) -> dict[str, int]:
        """Move every row of `source` under `target` in one transaction (storage/users.py); the rows copied per
        table. Refused when the two are one name or the source holds nothing, so a typo changes nothing."""
        source = inputs.text_field("source", source, inputs.MAX_USER_CHARS)
        target = inputs.text_field("target", target, inputs.MAX_USER_CHARS)
        if source == target:
            raise InvalidInput("target", "is the source itself; name two users")
        db = await self.rt.database()
        async with db.engine.connect() as conn, conn.begin():
            if not await users_repo.holds_rows(conn, source):
                raise InvalidInput("source", f"user {source!r} holds nothing on this database")
            copied = await users_repo.merge(conn, source, target)
        self._chosen = None  # the default may have been the source's name
        return copied
