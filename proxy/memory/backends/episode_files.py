"""The embedded backend for episodes: one JSON file per episode, beside the owner's memories.

- ``<root>/<owner_dir(owner)>/episodes/<id>.json``. A write is a temp file, fsynced, renamed over the
  episode's file, then the directory fsynced: durable before ``put`` returns, and a crash leaves the old
  file or the new one (at worst a stray temp file, which readers skip and the next writer removes).
- Readers take no lock: they list the directory and read every ``*.json``. A file that does not parse is
  skipped and logged by its path only: episodes hold the user's text, which is never logged.
- Whether a cached index is current is told by the directory's (inode, mtime): every create, rename and
  unlink in it moves the mtime, whichever process made it. But an mtime has a granularity, so a change in
  the same tick as the one we saw would leave it as it was. As git does for its index ("racy git"), a
  stamp read less than ``RACY_S`` after its mtime is not trusted: ``cached()`` says None, ``view()`` reads
  again.
- Writers of one owner take an exclusive ``flock`` on ``episodes.lock`` and hold it until the directory's
  new mtime is ``RACY_S`` old (a ``put`` takes that much longer): any later write then moves the mtime, so
  a process's index after its own write is current and trusted at once, with no re-read.

File work runs in a thread; an ``OSError`` there is a :class:`StoreUnavailable`. At most
``MAX_CACHED_OWNERS`` owners are cached; the least recently used is dropped and read again when needed.
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
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import orjson

from ...errors import StoreUnavailable
from ..episodes import EPISODE_ID, Episode, EpisodeIndex
from ..store import Owner
from .durable import fsync_dir, locked
from .owner_dirs import OwnerNames, mark_held, owner_dir

log = logging.getLogger("proxy.memory")

T = TypeVar("T")
MAX_CACHED_OWNERS = 256
RACY_S = 0.05  # well past any modern file system's timestamp tick
_Stamp = tuple[int, int]  # the directory's inode, mtime_ns


@dataclass(frozen=True, slots=True)
class _Snapshot:
    index: EpisodeIndex
    stamp: _Stamp | None  # None: there is no directory (no episodes)
    trusted: bool  # any later change to the directory is sure to move the stamp


class _OwnerEpisodes:
    def __init__(self, directory: Path, note: Callable[[], None]) -> None:
        self.directory = directory
        self.note = note  # records the owner's real names in its directory, once
        self.name = str(directory)
        self.lock_path = directory.parent / "episodes.lock"  # outside: taking it never touches our stamp
        self.snapshot: _Snapshot | None = None
        self.lock = asyncio.Lock()  # this process's reads and writes of the owner, applied in order
        self.refreshing: asyncio.Future[None] | None = None

    def fresh(self) -> bool:
        snapshot = self.snapshot
        if snapshot is None or not snapshot.trusted:
            return False
        if snapshot.stamp is None:  # no episodes: looked for without a stat that raises (checked on every request)
            return not os.access(self.name, os.F_OK)
        try:
            return _stamp(self.name) == snapshot.stamp
        except OSError:
            return False

    @property
    def busy(self) -> bool:
        return self.lock.locked() or self.refreshing is not None

    # -- in a thread ----------------------------------------------------------------------------------------

    def read(self) -> _Snapshot:
        """Every episode on disk. The stamp is taken first: a change during the listing moves it past ours."""
        stamp = _stamp(self.directory)
        seen = time.time()
        episodes = []
        if stamp is not None:
            self.note()
            for path in _listing(self.directory):
                episode = _load(path)
                if episode is not None:
                    episodes.append(episode)
        return _Snapshot(EpisodeIndex(episodes), stamp, stamp is None or not _racy(stamp, seen))

    def write(
        self,
        known: _Snapshot | None,
        change: Callable[[], bool],
        edit: Callable[[EpisodeIndex], EpisodeIndex],
        *,
        create: bool,
    ) -> tuple[bool, _Snapshot | None]:
        """Run ``change`` (True: it changed something) under the writers' lock; returns it and the index after."""
        if create:
            _make_dirs(self.directory)
            self.note()
        elif _stamp(self.directory) is None:
            return False, known  # nothing there to change
        with locked(self.lock_path):
            for stale in self.directory.glob("*.json.tmp-*"):  # a crashed writer's; we hold the lock
                stale.unlink(missing_ok=True)
            before = _stamp(self.directory)
            if known is not None and known.trusted and known.stamp == before:
                current = known.index  # nothing changed since we read it
            else:
                current = self.read().index  # exact: no writer can run meanwhile
            changed = change()
            after = _stamp(self.directory)
            if after is not None:
                # Outlast the timestamp tick before letting other writers in: their changes then move the stamp.
                time.sleep(min(max(after[1] / 1e9 + RACY_S - time.time(), 0.0), RACY_S))
            trusted = after is None or not _racy(after, time.time())
            return changed, _Snapshot(edit(current) if changed else current, after, trusted)


class FilesEpisodes:
    """:class:`~proxy.memory.episodes.EpisodeStore` on the local file system."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._owners: OrderedDict[Owner, _OwnerEpisodes] = OrderedDict()
        self._tasks: set[asyncio.Future[Any]] = set()
        self._names = OwnerNames(self.root)

    async def put(self, owner: Owner, episode: Episode) -> None:
        _check_owner(owner)
        if Owner(episode.user, episode.workspace) != owner:
            raise ValueError("an episode is stored under its own user and workspace")
        if not EPISODE_ID.fullmatch(episode.id):
            raise ValueError("an episode id must look like e-<16 hex digits>")
        entry = self._entry(owner)
        data = orjson.dumps(episode.to_json())

        def change() -> bool:  # under the owner's writers' lock
            _write_file(entry.directory, episode.id, data)
            if episode.provenance.held:
                mark_held(self.root, owner_dir(owner))  # the census unmarks under this lock too
            return True

        await self._write(entry, change, lambda index: EpisodeIndex([*index, episode]), create=True)

    async def delete(self, owner: Owner, episode_id: str) -> bool:
        _check_owner(owner)
        if not EPISODE_ID.fullmatch(episode_id):
            return False  # never a file name we wrote
        entry = self._entry(owner)
        path = entry.directory / f"{episode_id}.json"

        def change() -> bool:
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            fsync_dir(entry.directory)
            return True

        def edit(index: EpisodeIndex) -> EpisodeIndex:
            return EpisodeIndex(episode for episode in index if episode.id != episode_id)

        return await self._write(entry, change, edit, create=False)

    async def view(self, owner: Owner) -> EpisodeIndex:
        _check_owner(owner)
        entry = self._entry(owner)
        if not entry.fresh():
            if entry.refreshing is None:
                entry.refreshing = self._start(self._refresh(entry))
            # Shielded: a caller that stops waiting leaves the read to finish for the next one.
            await asyncio.shield(entry.refreshing)
        assert entry.snapshot is not None
        return entry.snapshot.index

    def cached(self, owner: Owner) -> EpisodeIndex | None:
        _check_owner(owner)
        entry = self._owners.get(owner)
        if entry is None or entry.snapshot is None or not entry.fresh():
            return None
        self._owners.move_to_end(owner)
        return entry.snapshot.index

    async def aclose(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._owners.clear()

    # -- internals ------------------------------------------------------------------------------------------

    def _entry(self, owner: Owner) -> _OwnerEpisodes:
        entry = self._owners.get(owner)
        if entry is None:
            directory = self.root / owner_dir(owner) / "episodes"
            entry = self._owners[owner] = _OwnerEpisodes(directory, functools.partial(self._names.note, owner))
            for old in list(self._owners)[: max(0, len(self._owners) - MAX_CACHED_OWNERS)]:
                if not self._owners[old].busy:
                    del self._owners[old]
        else:
            self._owners.move_to_end(owner)
        return entry

    def _start(self, work: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        """Run ``work`` as a task of its own, which ``aclose`` waits for."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _refresh(self, entry: _OwnerEpisodes) -> None:
        try:
            async with entry.lock:
                if not entry.fresh():
                    entry.snapshot = await _in_thread(entry.read)
        finally:
            entry.refreshing = None

    async def _write(
        self,
        entry: _OwnerEpisodes,
        change: Callable[[], bool],
        edit: Callable[[EpisodeIndex], EpisodeIndex],
        *,
        create: bool,
    ) -> bool:
        """Shielded: a caller going away never leaves a write done on disk but not in the cache."""

        async def run() -> bool:
            async with entry.lock:
                work = functools.partial(entry.write, entry.snapshot, change, edit, create=create)
                changed, entry.snapshot = await _in_thread(work)
                return changed

        return await asyncio.shield(self._start(run()))


def _check_owner(owner: Owner) -> None:
    if owner.user is None or owner.workspace is None:
        raise ValueError("episodes belong to a user in a workspace, never user-wide or global")


def _racy(stamp: _Stamp, seen: float) -> bool:
    """Read too soon after the change it shows: another change in the same tick would not have moved it."""
    return seen - stamp[1] / 1e9 < RACY_S


def _stamp(directory: Path | str) -> _Stamp | None:
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def _listing(directory: Path) -> list[Path]:
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    return [directory / name for name in sorted(names) if name.endswith(".json")]


def _load(path: Path) -> Episode | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None  # deleted since the listing, which moved the stamp too
    try:
        episode = Episode.from_json(orjson.loads(data))
        if episode.id != path.stem:
            raise ValueError("its id is not its file name")  # a delete by id would leave it behind
    except (ValueError, TypeError, KeyError) as exc:
        log.warning("%s: skipping an unreadable episode: %s", path, exc)
        return None
    return episode


def _write_file(directory: Path, episode_id: str, data: bytes) -> None:
    temp = directory / f"{episode_id}.json.tmp-{os.getpid()}-{threading.get_ident()}"
    try:
        with open(temp, "wb", opener=functools.partial(os.open, mode=0o600)) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, directory / f"{episode_id}.json")
        fsync_dir(directory)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
        raise


def _make_dirs(directory: Path) -> None:
    """Create the directory and its missing parents, fsyncing each parent: a new directory survives a crash too."""
    missing = []
    path = directory
    while not path.exists():
        missing.append(path)
        path = path.parent
    for path in reversed(missing):
        path.mkdir(exist_ok=True)
        fsync_dir(path.parent)


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the episode store failed: {exc.strerror or exc}") from exc
