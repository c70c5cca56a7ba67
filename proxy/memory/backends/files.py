"""The embedded backend: one ``memories.jsonl`` per owner, safe for several processes on one data dir.

- An append is one line, written in full and fsynced before it is acknowledged; a torn last line left by
  a crash is cut off (under the lock) before anything else is written, never glued to a new line.
- A new version of a memory (superseded, used) is appended too; the last line with an id wins.
- Deletes, prunes and compaction rewrite the file to a temp file and rename it over the original.
- Past versions live beside it in ``versions.jsonl`` (:mod:`.version_files`), written first in the same
  locked write: a change is one lock, an append there and one here.
- Writers take an exclusive ``flock`` on ``memories.lock``; readers take none. A reader keeps the file
  it read open: its inode number cannot be reused while it is open, so (inode, size, mtime) of the path
  tell "unchanged", "grew" (read the new tail) and "replaced" (read it all) apart exactly.
- Ids ``m-<n>`` come from one counter for the whole data dir, fsynced before an id is used, so an id
  is never handed out twice, even after deletes, restarts or crashes (a crash only leaves a gap).

A line that does not parse (hand-edited, written by a bug, a bad id) is skipped, never fatal: it is
logged and counted (``on_unreadable``) once per process, however often the file is read again. The
next rewrite (a delete, a prune, a compaction) leaves it out, as it was left out of every read.

File work runs in a thread. The in-process index is only changed on the event loop, under the owner's
lock, so ranking never sees it half-updated. At most ``MAX_CACHED_OWNERS`` owners are kept (one open
file each); the least recently used is dropped and read again when next needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

import orjson

from ...errors import StoreUnavailable
from ..ranking import MemoryIndex
from ..records import Embedding, Memory, MemoryDraft
from ..revisions import Revision, check_expected, deleted, revised, superseded
from ..store import Owner, prune_order
from ..versions import Actor, kept_archive
from .durable import IdCounter, append_lines, cut_torn_tail, fsync_dir, locked
from .owner_dirs import OwnerNames, mark_held, owner_dir
from .version_files import Archive, ArchiveRead

__all__ = ["FilesStore", "owner_dir"]  # the other files backends take owner_dir from here

log = logging.getLogger("proxy.memory")

T = TypeVar("T")
MAX_CACHED_OWNERS = 256
MAX_UNREADABLE_NOTED = 10_000  # distinct unreadable lines remembered, so each is reported once
_Stamp = tuple[int, int, int]  # inode, size, mtime_ns


@dataclass(slots=True)
class _Read:
    """What a thread found in (or did to) an owner's file, to be applied on the event loop.

    Either a whole new index built in the thread (the file was replaced, or read for the first time),
    with the open file it came from, or changes to the current index: memories to put, ids to drop.
    """

    stamp: _Stamp | None
    offset: int
    lines: int
    index: MemoryIndex | None = None
    new_file: bool = False  # the path holds another file now (or none): hold `handle` instead
    handle: int | None = None
    put: list[Memory] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Plan:
    """A write's outcome: its result, and either lines to append or the file's whole new contents; before them,
    past versions to archive, and the memories whose versions go (pruned), or all of them (``forget``)."""

    result: object
    append: list[Memory] = field(default_factory=list)
    rewrite: list[Memory] | None = None
    archive: list[Memory] = field(default_factory=list)
    purge: Collection[str] = ()
    forget: bool = False


_Planner = Callable[[dict[str, Memory], ArchiveRead], _Plan]


class _Unreadable:
    """Reports each unreadable line once per process. A file is read again in full after its owner leaves the
    cache or another tool replaces it: a warning on every read would bury everything else in the log."""

    def __init__(self, on_unreadable: Callable[[], None] | None) -> None:
        self.on_unreadable = on_unreadable
        self._noted: dict[tuple[str, int, bytes], None] = {}  # (path, offset, digest), oldest first
        self._lock = threading.Lock()  # files are parsed in worker threads

    def report(self, path: Path, number: int, offset: int, line: bytes, exc: Exception) -> None:
        key = (str(path), offset, hashlib.blake2b(line, digest_size=16).digest())
        with self._lock:
            if key in self._noted:
                return
            self._noted[key] = None
            if len(self._noted) > MAX_UNREADABLE_NOTED:
                del self._noted[next(iter(self._noted))]
        log.warning("%s: skipping unreadable line %d: %s", path, number, exc)
        if self.on_unreadable is not None:
            self.on_unreadable()


class _OwnerFile:
    def __init__(self, owner: Owner, directory: Path, unreadable: _Unreadable, names: OwnerNames) -> None:
        self.owner = owner
        self.directory = directory
        self.unreadable = unreadable
        self.names = names  # records the owner's real names in its directory, once
        self.path = directory / "memories.jsonl"
        self.name = str(self.path)  # what the freshness check stats: a str, not a Path converted on every call
        self.lock_path = directory / "memories.lock"
        self.archive = Archive(directory, unreadable.report)
        self.index = MemoryIndex()
        self.stamp: _Stamp | None = None
        self.handle: int | None = None  # the file `stamp` describes, held open
        self.offset = 0  # bytes of whole lines read
        self.lines = 0
        self.lock = asyncio.Lock()
        self.refreshing: asyncio.Future[None] | None = None

    def fresh(self) -> bool:
        """Checked on every request: a file that was not there is looked for without a stat (raising and catching
        FileNotFoundError cost twice the syscall, and most callers have no user-wide or global memories)."""
        if self.stamp is None:
            return not os.access(self.name, os.F_OK)
        try:
            st = os.stat(self.name)
        except FileNotFoundError:
            return False
        return (st.st_ino, st.st_size, st.st_mtime_ns) == self.stamp and st.st_size == self.offset

    @property
    def busy(self) -> bool:
        return self.lock.locked() or self.refreshing is not None

    def close(self) -> None:
        if self.handle is not None:
            os.close(self.handle)
            self.handle = None

    # -- in a thread ----------------------------------------------------------------------------------------

    def read(self) -> _Read:
        """What changed since the last read: the new tail when the file we hold only grew, else all of it."""
        self.names.note(self.owner)
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return _Read(None, 0, 0, index=MemoryIndex(), new_file=True)
        try:
            st = os.fstat(fd)
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
            if self.handle is not None and self.stamp is not None and st.st_ino == self.stamp[0]:
                # The very file we hold open: it only ever grows past `offset` (a torn-tail cut stays beyond it).
                return self._parse(os.pread(self.handle, st.st_size - self.offset, self.offset), stamp, full=False)
            read = self._parse(os.pread(fd, st.st_size, 0), stamp, full=True)
            read.new_file, read.handle, fd = True, fd, -1
            return read
        finally:
            if fd >= 0:
                os.close(fd)

    def cut_torn_tail(self) -> None:
        """A last line without its newline, once writers are done, is a crash's leftover: cut it off."""
        with locked(self.lock_path), contextlib.suppress(FileNotFoundError):
            fd = os.open(self.path, os.O_RDWR)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    cut_torn_tail(fd, size)
            finally:
                os.close(fd)

    def _parse(self, data: bytes, stamp: _Stamp, *, full: bool) -> _Read:
        end = data.rfind(b"\n") + 1  # a last line without its newline is being written, or was torn by a crash
        first = 1 if full else self.lines + 1
        base = 0 if full else self.offset
        memories = []
        lines = data[:end].split(b"\n")[:-1]
        start = base
        for number, line in enumerate(lines, first):
            if line.strip():
                try:
                    memories.append(Memory.from_json(orjson.loads(line)))
                except (ValueError, KeyError, TypeError, ArithmeticError) as exc:
                    self.unreadable.report(self.path, number, start, line, exc)
            start += len(line) + 1
        read = _Read(stamp, base + end, first - 1 + len(lines))
        if full:
            read.index = MemoryIndex({m.id: m for m in memories}.values())  # the last version of each id
        else:
            read.put = memories
        return read

    def append(self, memories: list[Memory]) -> None:
        data = _lines(memories)
        self.directory.mkdir(parents=True, exist_ok=True)
        append_lines(self.path, data)

    def rewrite(self, memories: Collection[Memory]) -> int:
        """Replace the file; returns a descriptor of the new one, for the caller to hold."""
        data = _lines(memories)
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob("memories.jsonl.tmp-*"):  # left by a crash; we hold the lock
            stale.unlink(missing_ok=True)
        temp = self.directory / f"memories.jsonl.tmp-{os.getpid()}-{threading.get_ident()}"
        fd = -1
        try:
            with open(temp, "w+b") as handle:  # readable too: its descriptor is kept for reading
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                fd = os.dup(handle.fileno())
            os.replace(temp, self.path)
            fsync_dir(self.directory)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)  # a full disk must not keep its temp file too
            raise
        return fd


def _lines(memories: Collection[Memory]) -> bytes:
    """The memories as lines, each one checked to read back: a line we could not read must never be written."""
    lines = []
    for memory in memories:
        line = memory.to_json(stored=True)
        Memory.from_json(line)  # ValueError: nothing is written
        lines.append(orjson.dumps(line) + b"\n")
    return b"".join(lines)


class FilesStore:
    """:class:`~proxy.memory.store.MemoryStore` on the local file system."""

    def __init__(self, root: str | Path, *, on_unreadable: Callable[[], None] | None = None) -> None:
        """``on_unreadable`` is called once for each line that does not parse (a metric, say)."""
        self.root = Path(root)
        self._files: OrderedDict[Owner, _OwnerFile] = OrderedDict()
        self._ids = IdCounter(self.root)
        self._unreadable = _Unreadable(on_unreadable)
        self._names = OwnerNames(self.root)

    def cached(self, owner: Owner) -> MemoryIndex | None:
        file = self._files.get(owner)
        if file is None or not file.fresh():
            return None
        self._files.move_to_end(owner)
        return file.index

    async def view(self, owner: Owner) -> MemoryIndex:
        file = self._file(owner)
        if not file.fresh():
            if file.refreshing is None:
                file.refreshing = asyncio.ensure_future(self._refresh(file))
            # Shielded: a caller that stops waiting (deadline, disconnect) leaves the refresh to finish for the next.
            await asyncio.shield(file.refreshing)
        return file.index

    async def add(
        self, owner: Owner, draft: MemoryDraft, *, max_total: int, supersedes: Collection[str] = ()
    ) -> Memory:
        [memory] = await self._add(owner, [draft], max_total=max_total, supersedes=supersedes)
        return memory

    async def add_many(self, owner: Owner, drafts: Sequence[MemoryDraft], *, max_total: int) -> list[Memory]:
        return await self._add(owner, drafts, max_total=max_total) if drafts else []

    async def _add(
        self, owner: Owner, drafts: Sequence[MemoryDraft], *, max_total: int, supersedes: Collection[str] = ()
    ) -> list[Memory]:
        """One write for any number of new memories: one lock, one id bump, one append (or rewrite), one fsync."""

        def plan(current: dict[str, Memory], _: ArchiveRead) -> _Plan:
            now = time.time()
            ids = self._ids.take(len(drafts))
            memories = [draft.stored_as(memory_id, now) for draft, memory_id in zip(drafts, ids, strict=True)]
            # The new memory and its predecessors' new versions go in one write: never one without the other.
            newest = memories[-1]
            actor = newest.changed_by
            before = [current[old] for old in supersedes if old in current and current[old].live]
            retired = [superseded(memory, newest.id, actor, now) for memory in before]
            return _pruned(owner, current, memories, retired, before, max_total)

        memories = await self._write(owner, plan)
        assert isinstance(memories, list)
        return memories

    async def replace(self, owner: Owner, memories: Collection[Memory]) -> list[str]:
        def plan(current: dict[str, Memory], _: ArchiveRead) -> _Plan:
            kept = [m for m in memories if m.id in current]
            return _Plan([m.id for m in kept], append=kept)

        replaced = await self._write(owner, plan)
        assert isinstance(replaced, list)
        return replaced

    async def revise(
        self, owner: Owner, revisions: Sequence[Revision], *, max_total: int | None = None
    ) -> list[Memory]:
        def plan(current: dict[str, Memory], archive: ArchiveRead) -> _Plan:
            now = time.time()
            results: list[Memory] = []
            before: list[Memory] = []  # the versions the changed ones replace, archived
            changed: list[Memory] = []
            revived: list[Memory] = []  # deleted memories restored
            for revision in revisions:
                stored = current.get(revision.id)
                if stored is None and revision.change == "restored":  # a deleted memory, if its history is kept
                    versions = archive.history(revision.id, current)
                    if versions and versions[0].change == "deleted":
                        new = revised(versions[0], revision, now, force=True)
                        assert new is not None
                        revived.append(new)
                        results.append(new)
                        continue
                if stored is None:
                    return _Plan([])  # all or nothing
                new = revised(stored, revision, now)
                results.append(new or stored)
                if new is not None:
                    before.append(stored)
                    changed.append(new)
            if not revived:
                return _Plan(results, append=changed, archive=before)
            return _pruned(owner, current, revived, changed, before, max_total or len(current) + 1, result=results)

        revisions_made = await self._write(owner, plan)
        assert isinstance(revisions_made, list)
        return revisions_made

    async def history(self, owner: Owner, memory_id: str) -> list[Memory]:
        if not self._exists(owner):  # nothing was ever written: no directory made for a look
            return []

        def plan(current: dict[str, Memory], archive: ArchiveRead) -> _Plan:
            return _Plan(archive.history(memory_id, current))

        versions = await self._write(owner, plan)  # under the writers' lock: never half of a change
        assert isinstance(versions, list)
        return versions

    async def archived(self, owner: Owner) -> list[Memory]:
        """Every past version the owner's histories still show, in the order written (what ``store copy`` carries)."""
        if not self._exists(owner):
            return []

        def plan(current: dict[str, Memory], archive: ArchiveRead) -> _Plan:
            return _Plan(kept_archive(archive.memories(), {memory_id: m.version for memory_id, m in current.items()}))

        versions = await self._write(owner, plan)
        assert isinstance(versions, list)
        return versions

    async def count_uses(self, owner: Owner, uses: Mapping[str, tuple[int, float]]) -> None:
        def plan(current: dict[str, Memory], _: ArchiveRead) -> _Plan:
            used = [
                replace(current[memory_id], use_count=current[memory_id].use_count + times, last_used=last)
                for memory_id, (times, last) in uses.items()
                if memory_id in current
            ]
            return _Plan(None, append=used)

        await self._write(owner, plan)

    async def count_injected(self, owner: Owner, injected: Mapping[str, tuple[int, float]]) -> None:
        def plan(current: dict[str, Memory], _: ArchiveRead) -> _Plan:
            counted = [
                replace(memory, injected_count=memory.injected_count + times, last_injected=last)
                for memory_id, (times, last) in injected.items()
                if (memory := current.get(memory_id)) is not None
            ]
            return _Plan(None, append=counted)

        await self._write(owner, plan)

    async def set_embeddings(self, owner: Owner, embeddings: Mapping[str, Embedding]) -> None:
        def plan(current: dict[str, Memory], _: ArchiveRead) -> _Plan:
            embedded = [replace(current[i], embedding=e) for i, e in embeddings.items() if i in current]
            return _Plan(None, append=embedded)

        await self._write(owner, plan)

    async def delete(
        self,
        owner: Owner,
        ids: Collection[str],
        *,
        actor: Actor | None = None,
        expect: Mapping[str, Collection[int]] | None = None,
    ) -> list[str]:
        wanted = set(ids)
        by = actor or Actor.person()

        def plan(current: dict[str, Memory], _: ArchiveRead) -> _Plan:
            now = time.time()
            gone = [memory_id for memory_id in current if memory_id in wanted]
            for memory_id in gone:
                check_expected(current[memory_id], (expect or {}).get(memory_id))
            if not gone:
                return _Plan(gone)
            archive = [m for memory_id in gone for m in (current[memory_id], deleted(current[memory_id], by, now))]
            return _Plan(gone, rewrite=[m for m in current.values() if m.id not in wanted], archive=archive)

        gone = await self._write(owner, plan)
        assert isinstance(gone, list)
        return gone

    async def forget(self, owner: Owner) -> list[str]:
        if not self._exists(owner):
            return []

        def plan(current: dict[str, Memory], archive: ArchiveRead) -> _Plan:
            if not current and not archive.raw():
                return _Plan([])
            return _Plan(list(current), rewrite=[], forget=True)

        gone = await self._write(owner, plan)
        assert isinstance(gone, list)
        return gone

    async def aclose(self) -> None:
        pending = [f.refreshing for f in self._files.values() if f.refreshing is not None]
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        for file in self._files.values():
            file.close()
        self._files.clear()

    # -- internals ------------------------------------------------------------------------------------------

    def _exists(self, owner: Owner) -> bool:
        return (self.root / owner_dir(owner)).is_dir()

    def _file(self, owner: Owner) -> _OwnerFile:
        file = self._files.get(owner)
        if file is None:
            file = self._files[owner] = _OwnerFile(owner, self.root / owner_dir(owner), self._unreadable, self._names)
            self._evict()
        else:
            self._files.move_to_end(owner)
        return file

    def _evict(self) -> None:
        for owner in list(self._files)[: max(0, len(self._files) - MAX_CACHED_OWNERS)]:
            if not self._files[owner].busy:
                self._files.pop(owner).close()

    async def _refresh(self, file: _OwnerFile) -> None:
        try:
            async with file.lock:
                if file.fresh():
                    return
                read = await _in_thread(file.read)
                self._apply(file, read)
                if read.stamp is not None and read.offset < read.stamp[1]:
                    await _in_thread(file.cut_torn_tail)
        finally:
            file.refreshing = None

    async def _write(self, owner: Owner, plan: _Planner) -> object:
        """Run one write under the owner's locks: catch up with the file, plan, write, apply.

        The plan sees every memory (the last version of each). Shielded, so a caller going away never
        leaves a write half-applied.
        """
        file = self._file(owner)

        def work() -> tuple[_Read, _Plan]:
            with locked(file.lock_path, mkdir=True):
                read = file.read()
                try:  # a refused plan (a stale version) or a failed write closes what the read opened
                    held = read.index if read.index is not None else file.index  # what the loop will hold
                    current = {m.id: m for m in held}
                    current.update((m.id, m) for m in read.put)
                    archived = file.archive.read()
                    decided = plan(current, archived)
                    _archive(file.archive, archived, decided, current)  # before the memories: see version_files
                    rewrite = decided.rewrite
                    if rewrite is None and decided.append and read.lines > 2 * len(current) + 64:
                        rewrite = list({**current, **{m.id: m for m in decided.append}}.values())  # compact
                    if rewrite is not None:
                        fd = file.rewrite(rewrite)
                        if read.handle is not None:
                            os.close(read.handle)
                        final = {m.id: m for m in rewrite}
                        read.new_file, read.handle, read.lines = True, fd, len(rewrite)
                        read.put = [m for m in rewrite if held.get(m.id) is not m]
                        read.dropped = [m.id for m in held if m.id not in final]
                    elif decided.append:
                        file.append(decided.append)
                        read.put += decided.append
                        read.lines += len(decided.append)
                        if read.new_file and read.handle is None:
                            read.handle = os.open(file.path, os.O_RDONLY)  # the file we just created
                    else:
                        return read, decided
                    if any(m.held and m.live for m in (rewrite if rewrite is not None else decided.append)):
                        mark_held(self.root, owner_dir(owner))  # under the lock: the census unmarks under it too
                    # Our own write is the file's last change (we hold the lock): take its size as read.
                    st = os.fstat(read.handle if read.handle is not None else file.handle)  # type: ignore[arg-type]
                    read.stamp, read.offset = (st.st_ino, st.st_size, st.st_mtime_ns), st.st_size
                except BaseException:
                    if read.handle is not None:
                        os.close(read.handle)
                    raise
                if read.index is not None:  # not shared yet: finish it here, off the event loop
                    _change(read.index, read)
                return read, decided

        async def run() -> object:
            async with file.lock:
                read, decided = await _in_thread(work)
                self._apply(file, read)
                return decided.result

        return await asyncio.shield(asyncio.ensure_future(run()))

    @staticmethod
    def _apply(file: _OwnerFile, read: _Read) -> None:
        if read.index is not None:
            file.index = read.index
        else:
            _change(file.index, read)
        if read.new_file:
            file.close()
            file.handle = read.handle
        file.stamp, file.offset, file.lines = read.stamp, read.offset, read.lines


def _pruned(
    owner: Owner,
    current: dict[str, Memory],
    added: list[Memory],
    retired: list[Memory],
    before: list[Memory],
    max_total: int,
    *,
    result: object = None,
) -> _Plan:
    """A write that adds memories (``added``; ``retired``: new versions of some there, ``before`` their old ones):
    appended, or past ``max_total`` the file rewritten without what is pruned, and their versions with them."""
    result = added if result is None else result
    excess = len(current) + len(added) - max_total
    if excess <= 0:
        return _Plan(result, append=[*added, *retired], archive=before)
    current = {**current, **{m.id: m for m in retired}}
    # What was there goes first (superseded memories, then the oldest live ones); what this write adds only
    # when it alone is past max_total (its oldest).
    pruned = [*sorted(current.values(), key=prune_order), *sorted(added, key=prune_order)][:excess]
    doomed = {m.id for m in pruned}
    log.info("pruned %d memories of %s past max_total=%d", len(doomed), owner.label, max_total)
    kept = [m for m in [*current.values(), *added] if m.id not in doomed]
    return _Plan(result, rewrite=kept, archive=before, purge=doomed)


def _archive(archive: Archive, read: ArchiveRead, decided: _Plan, current: Mapping[str, Memory]) -> None:
    """A write's versions, archived before its memories are written (in a worker thread, under the lock)."""
    if decided.forget:
        archive.remove()
        return
    purged = set(decided.purge)
    adding = [m for m in decided.archive if m.id not in purged]
    if purged and read.mentions(purged):
        archive.rewrite(read.without(purged, adding))
    elif adding:
        final = {m.id: m for m in decided.rewrite} if decided.rewrite is not None else {**current}
        final.update((m.id, m) for m in decided.append)
        archive.append(adding, {memory_id: m.version for memory_id, m in final.items()})


def _change(index: MemoryIndex, read: _Read) -> None:
    for memory_id in read.dropped:
        index.drop(memory_id)
    for memory in read.put:
        index.put(memory)
    read.put, read.dropped = [], []


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the memory store failed: {exc.strerror or exc}") from exc
