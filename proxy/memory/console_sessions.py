"""A person's sign-in to the console, as the store keeps it: whose key, acting for whom, until when.

The browser holds a random cookie; the store holds only its SHA-256 (``id``), so reading the store never yields a
cookie that works. The memproxy key itself is never kept: only its id, which the console checks against the key
ring on every request, so a revoked key's sign-ins end as soon as every process has heard of the revocation. Records
live beside the keys (the files store's data dir, or PostgreSQL), so every replica sharing the store knows them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

SESSION_ID_CHARS = 64  # sha256 hex


def session_id(cookie: str) -> str:
    """What the store knows a sign-in by: the cookie's hash, never the cookie."""
    return hashlib.sha256(cookie.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    id: str  # session_id(cookie)
    key_id: str | None  # the memproxy key that signed in (auth.mode: keys); None: open mode on loopback
    user: str | None  # whom it acts for where it may choose (a service's end user, open mode's user); None: the key's
    workspace: str
    created: float
    expires: float

    def live(self, now: float) -> bool:
        return now < self.expires

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key_id": self.key_id,
            "user": self.user,
            "workspace": self.workspace,
            "created": self.created,
            "expires": self.expires,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ConsoleSession:
        ident, key_id, user, workspace = (obj.get(name) for name in ("id", "key_id", "user", "workspace"))
        created, expires = obj.get("created"), obj.get("expires")
        if not isinstance(ident, str) or len(ident) != SESSION_ID_CHARS or not isinstance(workspace, str):
            raise ValueError("a console session needs an id and a workspace")
        if not (key_id is None or isinstance(key_id, str)) or not (user is None or isinstance(user, str)):
            raise ValueError("a console session's key id and user are strings or null")
        if not isinstance(created, int | float) or not isinstance(expires, int | float):
            raise ValueError("a console session's times are numbers")
        return cls(ident, key_id, user, workspace, float(created), float(expires))


class ConsoleSessionStore(Protocol):
    """Sign-ins shared by every process of the store. Every method may raise :class:`StoreUnavailable`."""

    async def get(self, ident: str) -> ConsoleSession | None:
        """The sign-in with this id, expired or not (the caller decides), or None."""
        ...

    async def put(self, session: ConsoleSession) -> None:
        """Create or replace it, durably; expired sign-ins of anyone may be removed meanwhile."""
        ...

    async def delete(self, ident: str) -> None:
        """Gone for good (sign-out, an expired or revoked sign-in); nothing when it was not there."""
        ...

    async def aclose(self) -> None: ...
