"""The files backend's archive of past versions: ``versions.jsonl`` beside an owner's ``memories.jsonl``.

The current version of a memory is its line in ``memories.jsonl``; a change first appends the version it
replaces (and a delete its tombstone) here, fsynced, then writes the memories file, both under the owner's
writers' lock: a crash in between leaves an archived copy of the current version or a tombstone newer than
it, which :func:`~proxy.memory.versions.history` leaves out. Readers of memories never open this file, so a
chat request pays nothing for it.

A prune or a forget rewrites it without the memories that went (temp file, fsync, rename); it is compacted to
what histories can still show (:func:`~proxy.memory.versions.kept_archive`) once it has doubled since its last
compaction, so it stays bounded by ``MAX_VERSIONS`` per memory and ``KEPT_DELETED`` deleted memories.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

import orjson

from ..records import Memory
from ..revisions import archived
from ..versions import history, kept_archive, restorable
from .durable import append_lines, fsync_dir

FILE = "versions.jsonl"
COMPACT_BYTES = 64 * 1024  # no compaction below this size

Unreadable = Callable[[Path, int, int, bytes, Exception], None]  # (path, line number, offset, line, error)


class Archive:
    """One owner's archive. Every method runs in a worker thread, under the owner's writers' lock."""

    def __init__(self, directory: Path, unreadable: Unreadable) -> None:
        self.directory = directory
        self.path = directory / FILE
        self.unreadable = unreadable
        self.floor = 0  # its size after the last compaction this process made: it compacts again past twice that

    def read(self) -> ArchiveRead:
        return ArchiveRead(self)

    def append(self, memories: Iterable[Memory], present: Mapping[str, int]) -> None:
        """Archive versions; compact when the file has doubled (``present``: what each memory's version is once
        the write this belongs to is done)."""
        data = _lines(memories)
        if not data:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        offset = append_lines(self.path, data)
        if offset + len(data) > max(COMPACT_BYTES, 2 * self.floor):
            self.rewrite(kept_archive(ArchiveRead(self).memories(), present))

    def rewrite(self, memories: Collection[Memory]) -> None:
        """Replace the archive (nothing left: remove it)."""
        if not memories:
            self.remove()
            return
        data = _lines(memories)
        temp = self.directory / f"{FILE}.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            with open(temp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
            fsync_dir(self.directory)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            raise
        self.floor = len(data)

    def remove(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            return
        fsync_dir(self.directory)
        self.floor = 0


class ArchiveRead:
    """The archive as one write (or history read) finds it: read at most once, and only when asked."""

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self._raw: bytes | None = None
        self._memories: list[Memory] | None = None

    def raw(self) -> bytes:
        if self._raw is None:
            try:
                self._raw = self.archive.path.read_bytes()
            except FileNotFoundError:
                self._raw = b""
        return self._raw

    def mentions(self, ids: Collection[str]) -> bool:
        """Whether any of ``ids`` has a version here (lines start with their id: no parsing needed to tell)."""
        raw = self.raw()
        return bool(raw) and any(b'{"id":' + orjson.dumps(memory_id) + b"," in raw for memory_id in ids)

    def memories(self) -> list[Memory]:
        """Every readable archived version, in the order written (a torn last line left by a crash is not one)."""
        if self._memories is None:
            raw = self.raw()
            lines = raw[: raw.rfind(b"\n") + 1].split(b"\n")[:-1]
            found, offset = [], 0
            for number, line in enumerate(lines, 1):
                if line.strip():
                    try:
                        found.append(Memory.from_json(orjson.loads(line)))
                    except (ValueError, KeyError, TypeError, ArithmeticError) as exc:
                        self.archive.unreadable(self.archive.path, number, offset, line, exc)
                offset += len(line) + 1
            self._memories = found
        return self._memories

    def history(self, memory_id: str, current: Mapping[str, Memory]) -> list[Memory]:
        """``memory_id``'s versions, newest first, as :func:`~proxy.memory.versions.history` settles them; a deleted
        memory's only while it is among the owner's newest ``KEPT_DELETED`` deletes."""
        if memory_id in current:
            return history([m for m in self.memories() if m.id == memory_id], current[memory_id])
        if not self.mentions([memory_id]):
            return []
        by_id: dict[str, list[Memory]] = {}
        for memory in self.memories():
            if memory.id not in current:
                by_id.setdefault(memory.id, []).append(memory)
        settled = {memory_id: history(versions, None) for memory_id, versions in by_id.items()}
        kept = restorable({i: versions[0].changed_at for i, versions in settled.items() if versions})
        return settled.get(memory_id, []) if memory_id in kept else []

    def without(self, ids: Collection[str], added: Iterable[Memory] = ()) -> list[Memory]:
        gone = set(ids)
        return [m for m in [*self.memories(), *added] if m.id not in gone]


def _lines(memories: Iterable[Memory]) -> bytes:
    """Each version as a line that reads back (a line we could not read must never be written)."""
    lines = []
    for memory in memories:
        line = archived(memory)
        Memory.from_json(line)  # ValueError: nothing is written
        lines.append(orjson.dumps(line) + b"\n")
    return b"".join(lines)
