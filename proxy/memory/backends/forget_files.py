"""forget-all marks in the files store: one append-only ``forgotten.jsonl``; readers poll its size and mtime.

A history append reads the owner's mark under its own lock (:meth:`FilesForgetting.before_now`), as PostgreSQL's
does in its transaction: forget-all marks first and deletes after, so a line another process was writing at that
moment either lands before the delete or sees the mark and is refused by its time.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

import orjson

from ..forgetting import OwnerKey
from .durable import append_lines, locked

log = logging.getLogger("proxy.memory")


class FilesForgetting:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.path = self.root / "forgotten.jsonl"
        self._read_as: tuple[object, dict[OwnerKey, float]] = (None, {})  # one tuple: threads swap it whole

    async def mark(self, user: str, workspace: str, before: float) -> None:
        line = orjson.dumps({"user": user, "workspace": workspace, "before": before}) + b"\n"
        await asyncio.to_thread(self._append, line)

    def _append(self, line: bytes) -> None:
        with locked(self.root / "forgotten.lock", mkdir=True):
            append_lines(self.path, line)

    async def marks(self) -> dict[OwnerKey, float]:
        return await asyncio.to_thread(self._read)

    def _read(self) -> dict[OwnerKey, float]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        marks: dict[OwnerKey, float] = {}
        for line in data.splitlines():
            try:
                entry = orjson.loads(line)
                owner, before = (str(entry["user"]), str(entry["workspace"])), float(entry["before"])
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                log.warning("skipping an unreadable line of %s", self.path)
                continue
            marks[owner] = max(before, marks.get(owner, 0.0))
        return marks

    async def version(self) -> object:
        return self._version()

    def _version(self) -> object:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns)

    def before_now(self, owner: OwnerKey) -> float:
        """The owner's mark as the file says it now (blocking: for a thread holding another store's lock); the file
        is read again only when it changed."""
        version = self._version()
        seen, marks = self._read_as
        if version is None:
            return 0.0
        if version != seen:
            marks = self._read()
            self._read_as = (version, marks)
        return marks.get(owner, 0.0)

    async def aclose(self) -> None:
        """Nothing held open."""
