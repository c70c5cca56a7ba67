"""memproxy keys in the files store: one append-only ``keys.jsonl`` of created and revoked events.

Appends are fsynced under the store's lock before they are acknowledged; readers poll the file's size
and mtime (:meth:`FilesKeys.version`), so a revocation reaches every process on the machine quickly.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import orjson

from ..keys import KeyRecord
from .durable import fsync_dir, locked

log = logging.getLogger("proxy.memory")


class FilesKeys:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.path = self.root / "keys.jsonl"

    async def keys(self) -> list[KeyRecord]:
        return await asyncio.to_thread(self._read)

    async def version(self) -> object:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns)

    async def add(self, record: KeyRecord) -> None:
        await asyncio.to_thread(self._append, {"event": "created", **record.to_json()})

    async def revoke(self, key_id: str, when: float) -> KeyRecord | None:
        found = [key for key in await self.keys() if key.id == key_id]
        if not found:
            return None
        if found[0].revoked is None:
            await asyncio.to_thread(self._append, {"event": "revoked", "id": key_id, "revoked": when})
        return KeyRecord(**{**found[0].to_json(), "revoked": found[0].revoked or when})

    async def aclose(self) -> None:
        """Nothing held open."""

    def _append(self, event: dict[str, object]) -> None:
        with locked(self.root / "keys.lock", mkdir=True):
            created = not self.path.exists()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, orjson.dumps(event) + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            if created:
                fsync_dir(self.root)

    def _read(self) -> list[KeyRecord]:
        try:
            lines = self.path.read_bytes().splitlines()
        except FileNotFoundError:
            return []
        records: dict[str, KeyRecord] = {}
        for number, line in enumerate(lines, 1):
            try:
                event = orjson.loads(line)
                if event.get("event") == "revoked" and event.get("id") in records:
                    record = records[event["id"]]
                    records[record.id] = KeyRecord(**{**record.to_json(), "revoked": float(event["revoked"])})
                elif event.get("event") == "created":
                    record = KeyRecord.from_json(event)
                    records[record.id] = record
            except (orjson.JSONDecodeError, ValueError, TypeError, AttributeError, KeyError):
                log.warning("skipping unreadable line %d of %s", number, self.path)
        return list(records.values())
