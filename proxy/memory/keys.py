"""memproxy keys as the store keeps them: who a key stands for and what it may do, never the key itself.

A key is stored as its SHA-256 hash (keys are 32 random characters: a fast hash is what API-key services
use; a slow one would cost every request). Revoking keeps the record, so ``keys list`` shows it revoked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

KINDS = ("personal", "service", "admin")


@dataclass(frozen=True, slots=True)
class KeyRecord:
    id: str  # k-<hex>: what `keys list` shows and `keys revoke` takes
    user: str
    kind: str  # personal | service | admin
    hash: str  # sha256 hex of the key
    created: float
    revoked: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "user": self.user,
            "kind": self.kind,
            "hash": self.hash,
            "created": self.created,
            "revoked": self.revoked,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> KeyRecord:
        key_id, user, kind, digest = (obj.get(name) for name in ("id", "user", "kind", "hash"))
        if not (isinstance(key_id, str) and isinstance(user, str) and isinstance(digest, str)) or kind not in KINDS:
            raise ValueError("a key record needs id, user, kind and hash")
        created, revoked = obj.get("created"), obj.get("revoked")
        if not isinstance(created, int | float) or not (revoked is None or isinstance(revoked, int | float)):
            raise ValueError("a key record's times must be numbers")
        return cls(key_id, user, str(kind), digest, float(created), revoked)


class KeyStore(Protocol):
    """Where keys live: beside the memories, so every process and replica sharing the store sees them."""

    async def keys(self) -> list[KeyRecord]:
        """Every key ever created, revoked ones included."""
        ...

    async def version(self) -> object:
        """Changes whenever a key is added or revoked; cheap, so processes can poll it."""
        ...

    async def add(self, record: KeyRecord) -> None: ...

    async def revoke(self, key_id: str, when: float) -> KeyRecord | None:
        """The revoked key, or None when there is no such key."""
        ...

    async def aclose(self) -> None: ...
