"""Issuing memproxy keys and knowing them fast: a per-process ring of key hashes, refreshed from the store.

Authentication is a dict lookup of the presented key's hash, never a store read per request. A poller
re-reads the store when its version changes (every ``REFRESH_S``), so a revocation made by any process
or replica sharing the store takes effect everywhere within a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import string
import time

from ..errors import InvalidRequest
from ..memory.keys import KINDS, KeyRecord, KeyStore

log = logging.getLogger("proxy.auth")

KEY_PREFIX = "mp-"
KEY_ALPHABET = string.ascii_letters + string.digits
KEY_CHARS = 32
REFRESH_S = 0.25  # a version check (a stat, or one primary-key read): a revocation has most of its second to spare
RESERVED_USER_PREFIXES = ("key-", "svc:")  # names memproxy derives itself: token hashes, service end users


def new_key() -> str:
    return KEY_PREFIX + "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_CHARS))


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()


def looks_like_key(value: str) -> bool:
    return value.startswith(KEY_PREFIX) and len(value) == len(KEY_PREFIX) + KEY_CHARS


async def create_key(store: KeyStore, user: str, kind: str) -> tuple[KeyRecord, str]:
    """A new key for ``user``: its record (stored, hashed) and the key itself, shown once."""
    if kind not in KINDS:
        raise InvalidRequest(f"a key's kind is one of {', '.join(KINDS)}", param="kind")
    user = user.strip()
    if not user or len(user) > 200 or not user.isprintable():
        raise InvalidRequest("a key's user must be 1-200 printable characters", param="user")
    if user.startswith(RESERVED_USER_PREFIXES):
        raise InvalidRequest(f"user names may not start with {' or '.join(RESERVED_USER_PREFIXES)}", param="user")
    key = new_key()
    record = KeyRecord("k-" + secrets.token_hex(6), user, kind, hash_key(key), time.time())
    await store.add(record)
    return record, key


class KeyRing:
    """The active keys by hash, as of the store's latest version."""

    def __init__(self, store: KeyStore) -> None:
        self.store = store
        self._by_hash: dict[str, KeyRecord] = {}
        self._by_id: dict[str, KeyRecord] = {}
        self._version: object = object()  # matches nothing: the first refresh always reads
        self._task: asyncio.Task[None] | None = None

    def lookup(self, key: str) -> KeyRecord | None:
        return self._by_hash.get(hash_key(key))

    def active(self, key_id: str) -> KeyRecord | None:
        """The key with this id while it is active, with no store read (a service key's own user; the console checks
        its sign-ins' keys on every request)."""
        return self._by_id.get(key_id)

    async def refresh(self) -> None:
        version = await self.store.version()
        if version == self._version:
            return
        keys = await self.store.keys()
        active = [key for key in keys if key.active]
        self._by_hash, self._by_id = {key.hash: key for key in active}, {key.id: key for key in active}
        self._version = version

    async def start(self) -> None:
        await self.refresh()
        self._task = asyncio.create_task(self._poll(), name="memproxy-keyring")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            try:
                await self.refresh()
            except Exception:  # noqa: BLE001 - a store hiccup keeps the last known keys; the next poll retries
                log.warning("could not refresh memproxy keys", exc_info=True)
