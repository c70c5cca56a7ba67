"""The embedded backend for details: one JSON file per detail, beside the owner's memories.

``<root>/<owner_dir(owner)>/details/<id>.json``. Ids are content-addressed, so a detail never changes once
written: a write is a temp file, fsynced, renamed into place, then the directory fsynced (durable before
``put`` returns), and a file already there is left alone. Readers read one file by its id and take no
lock. File work runs in a thread; an ``OSError`` there is a :class:`StoreUnavailable`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import orjson

from ...errors import StoreUnavailable
from ..details import DETAIL_ID, Detail
from ..store import Owner
from .durable import fsync_dir
from .owner_dirs import OwnerNames, owner_dir

log = logging.getLogger("proxy.memory")

T = TypeVar("T")


class FilesDetails:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._names = OwnerNames(root)

    def _directory(self, owner: Owner) -> Path:
        return self.root / owner_dir(owner) / "details"

    async def put(self, owner: Owner, details: list[Detail]) -> None:
        directory = self._directory(owner)

        def write() -> None:
            _write_all(directory, details)
            self._names.note(owner)

        await _in_thread(write)

    async def get(self, owner: Owner, detail_id: str) -> Detail | None:
        if not DETAIL_ID.fullmatch(detail_id):
            return None
        path = self._directory(owner) / f"{detail_id}.json"
        data = await _in_thread(lambda: _read(path))
        if data is None:
            return None
        try:
            detail = Detail.from_json(orjson.loads(data))
        except (ValueError, orjson.JSONDecodeError) as exc:  # by path only: details hold the user's text
            log.warning("skipping an unreadable detail %s: %s", path, exc)
            return None
        return detail if detail.id == detail_id else None

    async def count(self, owner: Owner) -> int:
        directory = self._directory(owner)
        return await _in_thread(lambda: len(_names(directory)))

    async def forget(self, owner: Owner) -> int:
        directory = self._directory(owner)

        def remove() -> int:
            names = _names(directory)
            for name in names:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(directory / name)
            if names:
                fsync_dir(directory)
            return len(names)

        return await _in_thread(remove)

    async def aclose(self) -> None:
        return None


def _names(directory: Path) -> list[str]:
    try:
        return [name for name in os.listdir(directory) if name.endswith(".json")]
    except FileNotFoundError:
        return []


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _write_all(directory: Path, details: list[Detail]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    wrote = False
    for detail in details:
        path = directory / f"{detail.id}.json"
        if path.exists():
            continue
        temp = directory / f"{detail.id}.json.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            with open(temp, "wb") as handle:
                handle.write(orjson.dumps(detail.to_json()))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        wrote = True
    if wrote:
        fsync_dir(directory)


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the detail store failed: {exc.strerror or exc}") from exc
