"""Console sign-ins in the files store: one small JSON file each under ``console/``, named by the cookie's hash.

A read is one small file; a write goes to a temp file, is fsynced and renamed over, so a reader never sees half of
one and every process on the machine sees it at once. Creating a sign-in also sweeps out expired ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import orjson

from ...errors import StoreUnavailable
from ..console_sessions import SESSION_ID_CHARS, ConsoleSession
from .durable import fsync_dir

log = logging.getLogger("proxy.memory")

T = TypeVar("T")
DIRECTORY = "console"


class FilesConsoleSessions:
    def __init__(self, root: str | Path) -> None:
        self.directory = Path(root) / DIRECTORY

    async def get(self, ident: str) -> ConsoleSession | None:
        if not _valid(ident):
            return None
        return await _in_thread(lambda: self._read(ident))

    async def put(self, session: ConsoleSession) -> None:
        await _in_thread(lambda: self._write(session))

    async def delete(self, ident: str) -> None:
        if _valid(ident):
            await _in_thread(lambda: self._remove(ident))

    async def aclose(self) -> None:
        """Nothing held open."""

    def _read(self, ident: str) -> ConsoleSession | None:
        try:
            data = (self.directory / f"{ident}.json").read_bytes()
        except FileNotFoundError:
            return None
        try:
            return ConsoleSession.from_json(orjson.loads(data))
        except (orjson.JSONDecodeError, ValueError, AttributeError):
            log.warning("unreadable console session file %s.json: ignored", ident[:8])
            return None

    def _write(self, session: ConsoleSession) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._sweep(time.time())
        path = self.directory / f"{session.id}.json"
        temp = self.directory / f"{session.id}.json.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, orjson.dumps(session.to_json()))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        fsync_dir(self.directory)

    def _remove(self, ident: str) -> None:
        try:
            os.unlink(self.directory / f"{ident}.json")
        except FileNotFoundError:
            return
        fsync_dir(self.directory)

    def _sweep(self, now: float) -> None:
        """Expired sign-ins go when a new one comes: the directory holds live ones and a few stale ones at most."""
        for path in self.directory.glob("*.json"):
            with contextlib.suppress(OSError, ValueError, orjson.JSONDecodeError):
                if not ConsoleSession.from_json(orjson.loads(path.read_bytes())).live(now):
                    path.unlink()


def _valid(ident: str) -> bool:
    """A file name is made of it: only the hash's own characters."""
    return len(ident) == SESSION_ID_CHARS and all(c in "0123456789abcdef" for c in ident)


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the console session store failed: {exc.strerror or exc}") from exc
