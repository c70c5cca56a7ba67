"""The embedded backend for history: one ``history.jsonl`` per owner, beside its ``memories.jsonl``.

- An append takes the owner's exclusive ``flock`` (``history.lock``), catches up with lines other processes
  wrote, leaves out lines already kept (by key: a conversation re-sent after a restart adds nothing), writes
  the rest in one ``write`` and fsyncs. A torn last line a crash left is cut off first, never glued to a new one.
- Readers take no lock: they read the tail the file grew by since their last read (same inode), or all of it
  when it was replaced (a prune) or removed (forget-all). Only whole lines are read. A reader keeps the file it
  read open, so its inode number cannot be reused by a new file meanwhile (which would pass for the same file).
- A line said before its owner's latest forget-all (``forgotten.jsonl``, read under the lock) is not written: a
  process that learns of another's forget-all a moment late cannot bring back what it deleted.
- Pruning rewrites a file without its old lines (temp file, fsync, rename, directory fsync), under the lock.

File work runs in a thread, one at a time per owner in this process; an ``OSError`` is a
:class:`StoreUnavailable`. What an append writes (each line's key, its time as stored, its JSON) is worked out
before, on the event loop a slice at a time: in the thread, that Python work would hold the GIL against the loop,
which waits up to the interpreter's switch interval (5 ms) for it back after every system call it makes.

A line that does not parse is skipped (and logged once per file read, by path only: history holds what users said).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import orjson

from ...errors import StoreUnavailable
from ..history import HistoryIndex, HistoryLine, newest_within
from ..records import stamp
from ..store import Owner
from .durable import append_lines, fsync_dir, locked
from .forget_files import FilesForgetting
from .owner_dirs import OwnerNames, owner_dir

log = logging.getLogger("proxy.memory")

T = TypeVar("T")
FILE = "history.jsonl"
LOCK = "history.lock"
MAX_CACHED_OWNERS = 256
SLICE_S = 0.0005  # working out an append's lines yields to requests this often


class _OwnerHistory:
    def __init__(
        self, directory: Path, note: Callable[[], None] = lambda: None, forgotten: Callable[[], float] = lambda: 0.0
    ) -> None:
        self.directory = directory
        self.note = note  # records the owner's real names in its directory, once
        self.forgotten = forgotten  # the owner's latest forget-all mark, read under the lock
        self.path = directory / FILE
        self.lock_path = directory / LOCK
        self.index = HistoryIndex()
        self.inode: int | None = None
        self.handle: int | None = None  # the file `inode` names, held open
        self.offset = 0  # bytes of whole lines read
        self.mutex = threading.Lock()  # this process's threads, one at a time

    def catch_up(self) -> None:
        """Read what changed since the last read: the new tail of the same file, else the whole (new) file."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            self._reset(None, None)
            return
        st = os.fstat(fd)
        if st.st_ino == self.inode and st.st_size >= self.offset:
            os.close(fd)  # the very file we hold: it only grew
        else:
            self._reset(fd, st.st_ino)
        assert self.handle is not None
        if st.st_size > self.offset:
            data = os.pread(self.handle, st.st_size - self.offset, self.offset)
            end = data.rfind(b"\n") + 1  # a last line without its newline is being written, or was torn
            for line in _parse(self.path, data[:end]):
                self.index.add(line)
            self.offset += end

    def _reset(self, handle: int | None, inode: int | None) -> None:
        self.close()
        self.index, self.handle, self.inode, self.offset = HistoryIndex(), handle, inode, 0

    def close(self) -> None:
        if self.handle is not None:
            os.close(self.handle)
            self.handle = None

    def append(self, lines: Sequence[_Written]) -> int:
        if not lines:
            return 0
        self.directory.mkdir(parents=True, exist_ok=True)
        self.note()
        with locked(self.lock_path):
            self.catch_up()
            before = self.forgotten()
            fresh: dict[str, _Written] = {}
            for written in lines:
                if written.line.ts < before:
                    continue
                if written.key not in self.index and written.key not in fresh:
                    fresh[written.key] = written
            if not fresh:
                return 0
            data = b"".join(written.data for written in fresh.values())
            if append_lines(self.path, data) == self.offset and self.handle is not None:
                # Right after what we had read, in the file we hold: no need to read them back.
                for key, written in fresh.items():
                    self.index.add(written.line, key)
                self.offset += len(data)
            else:
                self.catch_up()  # a new file, or a torn tail cut: read back as any reader would
            return len(fresh)

    def forget(self) -> int:
        with locked(self.lock_path, mkdir=True):
            self.catch_up()
            gone = len(self.index)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
                fsync_dir(self.directory)
            self._reset(None, None)
            return gone

    def prune(self, before: float) -> int:
        if not self.path.exists():
            return 0
        with locked(self.lock_path):
            self.catch_up()
            kept = [line for line in self.index.lines if line.ts >= before]
            return self._rewrite(kept)

    def trim(self, max_chars: int) -> int:
        if not self.path.exists():
            return 0
        with locked(self.lock_path):
            self.catch_up()
            return self._rewrite(self.index.lines[newest_within(self.index.lines, max_chars) :])

    def _rewrite(self, kept: list[HistoryLine]) -> int:
        """The file with only ``kept`` (under the lock, caught up); returns how many lines went."""
        gone = len(self.index) - len(kept)
        if not gone:
            return 0
        for stale in self.directory.glob(f"{FILE}.tmp-*"):  # left by a crash; we hold the lock
            stale.unlink(missing_ok=True)
        temp = self.directory / f"{FILE}.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            with open(temp, "wb") as handle:
                handle.write(b"".join(orjson.dumps(line.to_json()) + b"\n" for line in kept))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
            fsync_dir(self.directory)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            raise
        self.catch_up()
        return gone


class FilesHistory:
    """:class:`~proxy.memory.history.HistoryStore` on the local file system."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._owners: OrderedDict[Owner, _OwnerHistory] = OrderedDict()
        self._names = OwnerNames(self.root)
        self._forgetting = FilesForgetting(self.root)

    async def append(self, owner: Owner, lines: Sequence[HistoryLine]) -> int:
        entry = self._entry(owner)
        written = await _written(lines)
        return await _in_thread(entry, lambda: entry.append(written))

    async def view(self, owner: Owner) -> HistoryIndex:
        entry = self._entry(owner)

        def read() -> HistoryIndex:
            entry.catch_up()
            return entry.index

        return await _in_thread(entry, read)

    async def count(self, owner: Owner) -> int:
        return len(await self.view(owner))

    async def forget(self, owner: Owner) -> int:
        entry = self._entry(owner)
        return await _in_thread(entry, entry.forget)

    async def prune(self, before: float) -> int:
        gone = 0
        for path in await asyncio.to_thread(lambda: sorted(self.root.glob(f"users/*/workspaces/*/{FILE}"))):
            entry, cached = self._by_dir(path.parent)

            def work(e: _OwnerHistory = entry, keep: bool = cached) -> int:
                try:
                    return e.prune(before)
                finally:
                    if not keep:
                        e.close()

            gone += await _in_thread(entry, work)
        return gone

    async def trim(self, owner: Owner, max_chars: int) -> int:
        entry = self._entry(owner)
        return await _in_thread(entry, lambda: entry.trim(max_chars))

    async def aclose(self) -> None:
        for entry in self._owners.values():
            with entry.mutex:
                entry.close()
        self._owners.clear()

    def _entry(self, owner: Owner) -> _OwnerHistory:
        if owner.user is None or owner.workspace is None:
            raise ValueError("history belongs to a user in a workspace")
        entry = self._owners.get(owner)
        if entry is None:
            note = functools.partial(self._names.note, owner)
            forgotten = functools.partial(self._forgetting.before_now, (owner.user, owner.workspace))
            entry = self._owners[owner] = _OwnerHistory(self.root / owner_dir(owner), note, forgotten)
            for oldest in list(self._owners)[: max(0, len(self._owners) - MAX_CACHED_OWNERS)]:
                gone = self._owners[oldest]
                if gone.mutex.acquire(blocking=False):  # one a thread is reading stays till a later eviction
                    try:
                        gone.close()
                        del self._owners[oldest]
                    finally:
                        gone.mutex.release()
        else:
            self._owners.move_to_end(owner)
        return entry

    def _by_dir(self, directory: Path) -> tuple[_OwnerHistory, bool]:
        """The owner's entry and whether it is cached (one this process has not met is pruned, then closed)."""
        for entry in self._owners.values():
            if entry.directory == directory:
                return entry, True
        return _OwnerHistory(directory), False


@dataclass(frozen=True, slots=True)
class _Written:
    """A line as an append writes it: its key, the line as it reads back (its time to the millisecond), its JSON."""

    key: str
    line: HistoryLine
    data: bytes


async def _written(lines: Sequence[HistoryLine]) -> list[_Written]:
    """Each line as it is written, worked out on the event loop a slice at a time (lines said at one moment, a
    request's, share one time's text)."""
    written: list[_Written] = []
    times: dict[float, tuple[str, float]] = {}
    slice_ends = time.perf_counter() + SLICE_S
    for line in lines:
        stamped = times.get(line.ts)
        if stamped is None:
            stamped = times[line.ts] = stamp(line.ts)
        text, ts = stamped
        data = orjson.dumps(line.to_json(text)) + b"\n"
        written.append(_Written(line.key, line if ts == line.ts else replace(line, ts=ts), data))
        if time.perf_counter() >= slice_ends:
            await asyncio.sleep(0)  # requests go on between slices
            slice_ends = time.perf_counter() + SLICE_S
    return written


def _parse(path: Path, data: bytes) -> list[HistoryLine]:
    lines = []
    bad = 0
    for raw in data.split(b"\n"):
        if raw.strip():
            try:
                lines.append(HistoryLine.from_json(orjson.loads(raw)))
            except (ValueError, TypeError, KeyError, ArithmeticError):
                bad += 1
    if bad:
        log.warning("%s: skipped %d unreadable history lines", path, bad)
    return lines


async def _in_thread(entry: _OwnerHistory, work: Callable[[], T]) -> T:
    def run() -> T:
        with entry.mutex:
            return work()

    try:
        return await asyncio.to_thread(run)
    except OSError as exc:
        raise StoreUnavailable(f"the history store failed: {exc.strerror or exc}") from exc
