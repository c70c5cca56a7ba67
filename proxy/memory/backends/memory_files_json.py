"""The embedded backend for memory files: one JSON document per owner, beside the owner's memories.

``<root>/<owner_dir(owner)>/memory_files.json`` holds ``{"files": [...], "proposals": [...]}``. Every change
rewrites it whole under the owner's ``memory_files.lock`` (an exclusive ``flock``: processes sharing the data dir
take turns): a temp file, fsynced, renamed into place, then the directory fsynced, so a change is durable before
it returns and a crash leaves the old document or the new one, never half of either. A directory holds little
(the service caps files, their size and proposals), so a whole rewrite costs less than keeping a log. Readers take
the lock too, so they never read a document being replaced mid-rename on a filesystem that would let them. File
work runs in a thread; an ``OSError`` there is a :class:`StoreUnavailable`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson

from ...errors import StoreUnavailable
from ..file_paths import is_marker
from ..memory_files import FileConflict, FileProposal, MemoryFile
from ..store import Owner
from .durable import fsync_dir, locked
from .owner_dirs import OwnerNames, mark_held, owner_dir

log = logging.getLogger("proxy.memory")

T = TypeVar("T")
DOCUMENT = "memory_files.json"
LOCK = "memory_files.lock"
READ_CACHE = 16  # owners whose document, as last read, is kept while the file on disk is the same one


class _Document:
    """One owner's files and proposals, as read."""

    __slots__ = ("files", "proposals")

    def __init__(self, files: dict[str, MemoryFile], proposals: dict[str, FileProposal]) -> None:
        self.files = files
        self.proposals = proposals

    def count(self) -> int:
        return sum(1 for path in self.files if not is_marker(path)) + len(self.proposals)

    def to_bytes(self) -> bytes:
        return orjson.dumps(
            {
                "files": [f.to_json() for f in self.files.values()],
                "proposals": [p.to_json() for p in self.proposals.values()],
            }
        )


class FilesMemoryFiles:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._names = OwnerNames(root)
        # A console page reads a document for its count and again for its content: the same file (every change
        # renames a new one into place, so its inode, size and time differ) is parsed once. Readers never mutate it.
        self._read_cache: OrderedDict[Path, tuple[tuple[int, int, int], _Document]] = OrderedDict()
        self._cache_lock = threading.Lock()  # reads run in threads

    def _directory(self, owner: Owner) -> Path:
        return self.root / owner_dir(owner)

    async def files(self, owner: Owner) -> list[MemoryFile]:
        document = await self._read(owner)
        return list(document.files.values())

    async def commit(
        self, owner: Owner, changes: Mapping[str, MemoryFile | None], expect: Mapping[str, int | None]
    ) -> None:
        def change(document: _Document) -> bool:
            _check(document, expect)
            _apply(document, changes)
            return True

        await self._write(owner, change)

    async def proposals(self, owner: Owner) -> list[FileProposal]:
        document = await self._read(owner)
        return sorted(document.proposals.values(), key=lambda p: (p.created_at, p.id))

    async def propose(self, owner: Owner, proposals: Sequence[FileProposal]) -> None:
        def change(document: _Document) -> bool:
            for proposal in proposals:
                document.proposals[proposal.id] = proposal
            return bool(proposals)

        await self._write(owner, change, held=True)

    async def settle(
        self,
        owner: Owner,
        proposal_id: str,
        changes: Mapping[str, MemoryFile | None] | None = None,
        expect: Mapping[str, int | None] | None = None,
    ) -> FileProposal | None:
        taken: list[FileProposal] = []

        def change(document: _Document) -> bool:
            if proposal_id not in document.proposals:
                return False
            _check(document, expect or {})
            taken.append(document.proposals.pop(proposal_id))
            _apply(document, changes or {})
            return True

        await self._write(owner, change)
        return taken[0] if taken else None

    async def count(self, owner: Owner) -> int:
        document = await self._read(owner)
        return document.count()

    async def forget(self, owner: Owner) -> int:
        directory = self._directory(owner)

        def remove() -> int:
            if not directory.is_dir():
                return 0
            with locked(directory / LOCK):
                document = _load(directory / DOCUMENT)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(directory / DOCUMENT)
                    fsync_dir(directory)
            return document.count()

        return await _in_thread(remove)

    async def aclose(self) -> None:
        return None

    async def _read(self, owner: Owner) -> _Document:
        directory = self._directory(owner)
        known = self._unchanged(directory)
        if known is not None:
            return known

        def read() -> _Document:
            try:
                found = os.stat(directory / DOCUMENT)
            except FileNotFoundError:
                return _Document({}, {})
            seen = (found.st_ino, found.st_size, found.st_mtime_ns)
            with self._cache_lock:
                cached = self._read_cache.get(directory)
                if cached is not None and cached[0] == seen:
                    self._read_cache.move_to_end(directory)
                    return cached[1]
            with locked(directory / LOCK):
                found = os.stat(directory / DOCUMENT)
                document = _load(directory / DOCUMENT)
            with self._cache_lock:
                self._read_cache[directory] = ((found.st_ino, found.st_size, found.st_mtime_ns), document)
                if len(self._read_cache) > READ_CACHE:
                    self._read_cache.popitem(last=False)
            return document

        return await _in_thread(read)

    def _unchanged(self, directory: Path) -> _Document | None:
        """The document without a thread, when there is none or it is the one read last: one ``stat`` on the event
        loop (as the memories' freshness check makes on every request). Every ``memory_search`` reads its caller's
        files, and the thread's round trip cost a memory hop more than the search through them."""
        try:
            found = os.stat(directory / DOCUMENT)
        except FileNotFoundError:
            return _Document({}, {})
        except OSError:
            return None  # the thread tries, and says what failed
        seen = (found.st_ino, found.st_size, found.st_mtime_ns)
        with self._cache_lock:
            cached = self._read_cache.get(directory)
            if cached is None or cached[0] != seen:
                return None
            self._read_cache.move_to_end(directory)
            return cached[1]

    async def _write(self, owner: Owner, change: Callable[[_Document], bool], *, held: bool = False) -> None:
        """``held``: the change holds something for review: the directory is marked for the census under the lock
        (which the census unmarks under too)."""
        directory = self._directory(owner)

        def write() -> None:
            with locked(directory / LOCK, mkdir=True):
                document = _load(directory / DOCUMENT)
                if change(document):
                    if held and document.proposals:
                        mark_held(self.root, owner_dir(owner))
                    _replace(directory, document.to_bytes())
            self._names.note(owner)

        await _in_thread(write)


def _check(document: _Document, expect: Mapping[str, int | None]) -> None:
    for path, version in expect.items():
        found = document.files.get(path)
        if (found.version if found is not None else None) != version:
            raise FileConflict(path)


def _apply(document: _Document, changes: Mapping[str, MemoryFile | None]) -> None:
    for path, file in changes.items():
        if file is None:
            document.files.pop(path, None)
        else:
            document.files[path] = file


def _load(path: Path) -> _Document:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return _Document({}, {})
    try:
        obj: Any = orjson.loads(data)
    except orjson.JSONDecodeError as exc:  # by path only: the document holds the user's text
        raise StoreUnavailable(f"the memory files of {path.parent} are unreadable: {exc}") from exc
    files: dict[str, MemoryFile] = {}
    proposals: dict[str, FileProposal] = {}
    for line in obj.get("files", ()) if isinstance(obj, dict) else ():
        try:
            file = MemoryFile.from_json(line)
        except ValueError as exc:
            log.warning("skipping an unreadable memory file in %s: %s", path, exc)
            continue
        files[file.path] = file
    for line in obj.get("proposals", ()) if isinstance(obj, dict) else ():
        try:
            proposal = FileProposal.from_json(line)
        except ValueError as exc:
            log.warning("skipping an unreadable memory file proposal in %s: %s", path, exc)
            continue
        proposals[proposal.id] = proposal
    return _Document(files, proposals)


def _replace(directory: Path, data: bytes) -> None:
    temp = directory / f"{DOCUMENT}.tmp-{os.getpid()}-{threading.get_ident()}"
    try:
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, directory / DOCUMENT)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    fsync_dir(directory)


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the memory file store failed: {exc.strerror or exc}") from exc
