"""forget-all marks in the files store: one append-only ``forgotten.jsonl``; readers poll its size and mtime."""

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
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns)

    async def aclose(self) -> None:
        """Nothing held open."""
