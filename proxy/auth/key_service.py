"""Managing memproxy keys: one service for the CLI (``memproxy keys``), the API (``/memory/keys``) and the console.

Who may call it is the caller's business (admins only, on the API and the console: :mod:`proxy.admin`); this says
what a key is and keeps the process's :class:`~.keys.KeyRing` current, so a key created or revoked here works or
stops at once in this process, and within a second in every other one sharing the store (their rings poll).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidRequest
from ..memory.keys import KeyRecord, KeyStore
from ..memory.records import format_ts
from .keys import KeyRing, create_key


class KeyNotFound(InvalidRequest):
    status = 404
    code = "key_not_found"


@dataclass(frozen=True, slots=True)
class NewKey:
    record: KeyRecord
    key: str  # shown once: only its hash is stored


def key_json(record: KeyRecord) -> dict[str, Any]:
    """A key as an admin sees it: never the key, never its hash."""
    return {
        "id": record.id,
        "user": record.user,
        "kind": record.kind,
        "created": format_ts(record.created),
        "revoked": None if record.revoked is None else format_ts(record.revoked),
        "active": record.active,
    }


class KeyService:
    def __init__(self, store: KeyStore, ring: KeyRing | None = None) -> None:
        self.store = store
        self.ring = ring  # auth.mode keys: the process's ring, refreshed after every change made here

    async def list(self) -> list[KeyRecord]:
        """Every key, revoked ones included, oldest first."""
        return sorted(await self.store.keys(), key=lambda record: (record.created, record.id))

    async def get(self, key_id: str) -> KeyRecord | None:
        return next((record for record in await self.store.keys() if record.id == key_id), None)

    async def create(self, user: str, kind: str = "personal") -> NewKey:
        """A new key for ``user`` (kind ``personal``, ``service`` or ``admin``); a bad user or kind is a 400."""
        if not isinstance(user, str):
            raise InvalidRequest("a key's user must be a string", param="user")
        if not isinstance(kind, str):
            raise InvalidRequest("a key's kind must be a string", param="kind")
        record, key = await create_key(self.store, user, kind)
        await self._refresh()
        return NewKey(record, key)

    async def revoke(self, key_id: str) -> KeyRecord:
        """Revoke a key (revoking it again changes nothing); an unknown id is a 404."""
        record = await self.store.revoke(key_id, time.time())
        if record is None:
            raise KeyNotFound(f"no key {key_id!r}", param="id")
        await self._refresh()
        return record

    async def _refresh(self) -> None:
        if self.ring is not None:
            await self.ring.refresh()

    async def aclose(self) -> None:
        await self.store.aclose()
