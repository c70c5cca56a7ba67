"""Upstream object bindings in the files store: one append-only ``objects.jsonl``, read incrementally.

Every process on the machine appends under ``objects.lock`` (fsynced) and follows the file from the offset it has
read, so a binding one process wrote is known to the others at their next look. Pruning rewrites the file whole (a
new inode, atomically renamed): a reader that sees the inode change reads it again from the start.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import orjson

from ..objects import UpstreamObject
from .durable import append_lines, fsync_dir, locked

log = logging.getLogger("proxy.memory")


class FilesObjects:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.path = self.root / "objects.jsonl"
        self._lock = self.root / "objects.lock"
        self._known: dict[str, tuple[str, float]] = {}  # id -> (user, created), as of _offset in _inode
        self._inode: int | None = None
        self._offset = 0
        self._guard = threading.Lock()  # one thread follows the file at a time

    async def bind(self, objects: Sequence[UpstreamObject]) -> None:
        if objects:
            await asyncio.to_thread(self._bind, objects)

    async def owners(self, ids: Sequence[str], since: float) -> dict[str, str]:
        return await asyncio.to_thread(self._owners, ids, since)

    async def prune(self, before: float, per_user: int) -> int:
        return await asyncio.to_thread(self._prune, before, per_user)

    async def everything(self) -> list[UpstreamObject]:
        """Every binding in the file (``memproxy store copy``)."""
        return await asyncio.to_thread(self._everything)

    async def aclose(self) -> None:
        """Nothing held open."""

    def _everything(self) -> list[UpstreamObject]:
        with self._guard:
            self._follow()
            return [UpstreamObject(ident, user, created) for ident, (user, created) in self._known.items()]

    def _bind(self, objects: Sequence[UpstreamObject]) -> None:
        with locked(self._lock, mkdir=True), self._guard:
            self._follow()
            fresh: dict[str, UpstreamObject] = {}
            for item in objects:
                if item.id not in self._known and item.id not in fresh:
                    fresh[item.id] = item
            if not fresh:
                return
            data = b"".join(orjson.dumps({"id": o.id, "user": o.user, "created": o.created}) + b"\n"
                            for o in fresh.values())  # fmt: skip
            append_lines(self.path, data)
            self._follow()

    def _owners(self, ids: Sequence[str], since: float) -> dict[str, str]:
        with self._guard:
            self._follow()
            found = {}
            for ident in ids:
                known = self._known.get(ident)
                if known is not None and known[1] >= since:
                    found[ident] = known[0]
            return found

    def _follow(self) -> None:
        """Read what was appended since the last look (all of it again after a rewrite)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            self._known, self._inode, self._offset = {}, None, 0
            return
        try:
            stat = os.fstat(fd)
            if stat.st_ino != self._inode or stat.st_size < self._offset:
                self._known, self._inode, self._offset = {}, stat.st_ino, 0
            if stat.st_size == self._offset:
                return
            data = os.pread(fd, stat.st_size - self._offset, self._offset)
        finally:
            os.close(fd)
        whole = data.rfind(b"\n") + 1  # a line still being written is read next time
        for line in data[:whole].splitlines():
            try:
                entry = orjson.loads(line)
                ident, user, created = entry["id"], entry["user"], float(entry["created"])
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                log.warning("skipping an unreadable line of %s", self.path)
                continue
            if isinstance(ident, str) and isinstance(user, str):
                self._known.setdefault(ident, (user, created))
        self._offset += whole

    def _prune(self, before: float, per_user: int) -> int:
        with locked(self._lock, mkdir=True), self._guard:
            self._follow()
            by_user: dict[str, list[tuple[float, str]]] = {}
            for ident, (user, created) in self._known.items():
                if created >= before:
                    by_user.setdefault(user, []).append((created, ident))
            kept: list[tuple[str, str, float]] = []
            for user, owned in by_user.items():
                owned.sort(reverse=True)
                kept.extend((ident, user, created) for created, ident in owned[:per_user])
            dropped = len(self._known) - len(kept)
            if dropped == 0:
                return 0
            kept.sort(key=lambda entry: entry[2])
            temp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
            with open(temp, "wb") as out:
                for ident, user, created in kept:
                    out.write(orjson.dumps({"id": ident, "user": user, "created": created}) + b"\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self.path)
            fsync_dir(self.root)
            self._follow()
            return dropped
