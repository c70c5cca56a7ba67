""":class:`~proxy.memory.census.Census` over a files store: counts per owner directory, re-read only when changed.

- Owners are the directories under ``users/`` named by their ``owner.json`` (:mod:`.owner_dirs`). A directory
  without one (written before names were recorded) is named, when possible, from what else the store holds:
  an episode in it (episodes carry their user and workspace), or the names of jobs, keys and other owners
  (``default`` always tried); the names found are then recorded. One named by nothing stays *unnamed*.
- Each directory's counts are kept with the stamps of what they were read from: ``memories.jsonl`` (inode, size,
  mtime), the ``episodes`` directory (inode, mtime) and ``history.jsonl``, whose new lines are counted from where
  the last count stopped while it only grows. A stamp read within ``RACY_S`` of its mtime is not trusted (a
  change in the same tick would not move it): that part is read again next time.
- What waits for review is counted over the directories marked in ``held/`` alone (:func:`.owner_dirs.mark_held`:
  a writer of a held memory or episode marks its directory under its lock). A process's first count marks every
  directory holding one (a store written before marks, a mark a crash lost); a count that finds a marked directory
  holding none unmarks it under the writers' locks. Only an admin's or a service's count reads marks: a user's
  reads their own directories.
- Nothing here touches the stores' own caches: the chat path's owners stay cached as they were.

Work runs in a thread, one census at a time per process (a lock): an ``OSError`` is a :class:`StoreUnavailable`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import orjson

from ...errors import StoreUnavailable
from ..census import Held, Schema, Tally, UserScope
from ..store import GLOBAL, Owner
from .durable import locked
from .owner_dirs import (
    FILES_LAYOUT,
    HELD_DIR,
    digest,
    held_marked,
    held_marker,
    mark_held,
    owner_dir,
    read_names,
    write_names,
)

log = logging.getLogger("proxy.memory")

T = TypeVar("T")
RACY_S = 0.05
RENAME_EVERY_S = 10.0  # unnamed directories are tried against the store's names at most this often
DEFAULT_WORKSPACE = "default"
GLOBAL_DIR = str(owner_dir(GLOBAL))
_Stamp = tuple[int, int, int]


@dataclass(slots=True)
class _Counted:
    """One directory's counts, each with the stamp it was read at (None: read it again)."""

    memories_stamp: _Stamp | None = None
    memories: tuple[int, int, int, int] = (0, 0, 0, 0)  # live, held, pinned, superseded
    episodes_stamp: _Stamp | None = None
    episodes: tuple[int, int] = (0, 0)  # all, held
    history_inode: int | None = None
    history_offset: int = 0
    history: int = 0
    details_stamp: _Stamp | None = None
    details: int = 0

    def tally(self) -> Tally:
        live, held, pinned, superseded = self.memories
        episodes, waiting = self.episodes
        return Tally(live, held, pinned, superseded, episodes, waiting, self.history, self.details)


class FilesCensus:
    """Directories are kept as ``str`` paths relative to the root (``users/<user>/workspaces/<workspace>``): a
    count of what waits for review touches hundreds of them, and ``Path`` objects cost it most of its time."""

    def __init__(self, root: str | Path, *, users: Collection[str] = (), workspaces: Collection[str] = ()) -> None:
        """``users`` and ``workspaces``: more names to try on unnamed directories (``store copy --user``)."""
        self.root = Path(root)
        self._base = str(self.root)
        self.extra_users = set(users)
        self.extra_workspaces = set(workspaces)
        self._names: dict[str, Owner] = {GLOBAL_DIR: GLOBAL}
        self._renamed_at = -RENAME_EVERY_S  # when unnamed directories were last tried
        self._counted: dict[str, _Counted] = {}
        self._swept = False  # every directory holding something held is marked (see _sweep)
        self._lock = threading.Lock()

    async def tallies(self) -> dict[Owner, Tally]:
        def work() -> dict[Owner, Tally]:
            named = self._directories(self._all_directories())
            found = {}
            for directory, owner in named.items():
                tally = self._count(directory).tally()
                if owner is not None and not tally.empty:
                    found[owner] = tally
            shared = self._count(GLOBAL_DIR, history=False).tally()
            if not shared.empty:
                found[GLOBAL] = shared
            return found

        return await _in_thread(self._locked(work))

    async def workspaces(self, user: str) -> set[str | None]:
        def work() -> set[str | None]:
            named = self._directories(self._user_directories(user))
            return {
                owner.workspace
                for directory, owner in named.items()
                if owner is not None and owner.user == user and not self._count(directory).tally().empty
            }

        return await _in_thread(self._locked(work))

    async def held(self, scope: UserScope) -> Held:
        def work() -> Held:
            if not scope.everyone and scope.prefix is None:  # named users: just their directories
                return self._held_in([d for user in sorted(scope.users) for d in self._user_directories(user)], scope)
            if not self._swept:
                self._sweep()
            return self._held_in(held_marked(self.root), scope, unmark=True)

        return await _in_thread(self._locked(work))

    async def unnamed(self) -> list[str]:
        def work() -> list[str]:
            named = self._directories(self._all_directories())
            return [directory for directory, owner in named.items() if owner is None]

        return await _in_thread(self._locked(work))

    def directories(self) -> dict[Path, Owner | None]:
        """Every user's directory (relative to the root) and its owner, None when unnamed (``store copy``, in a
        thread)."""
        with self._lock:
            self._renamed_at = -RENAME_EVERY_S  # a copy tries every name it has
            return {Path(d): owner for d, owner in self._directories(self._all_directories()).items()}

    async def schema(self) -> Schema:
        return Schema("files", FILES_LAYOUT, FILES_LAYOUT)

    async def aclose(self) -> None:
        """Nothing held open."""

    # -- in a thread ----------------------------------------------------------------------------------------

    def _locked(self, work: Callable[[], T]) -> Callable[[], T]:
        def run() -> T:
            with self._lock:
                return work()

        return run

    def _all_directories(self) -> list[str]:
        """As :func:`.owner_directories`, in ``str``s."""
        found = []
        try:
            users = [entry.name for entry in os.scandir(f"{self._base}/users") if entry.is_dir()]
        except FileNotFoundError:
            return []
        for user in sorted(users):
            base = f"users/{user}"
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                for entry in os.scandir(f"{self._base}/{base}"):
                    if entry.name == "user" and entry.is_dir():
                        found.append(f"{base}/user")
                    elif entry.name == "workspaces" and entry.is_dir():
                        found += sorted(f"{base}/workspaces/{e.name}" for e in os.scandir(entry.path) if e.is_dir())
        return found

    def _user_directories(self, user: str) -> list[str]:
        base = f"users/{digest(user)}"
        found = [f"{base}/user"] if os.path.isdir(f"{self._base}/{base}/user") else []
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            found += [
                f"{base}/workspaces/{e.name}" for e in os.scandir(f"{self._base}/{base}/workspaces") if e.is_dir()
            ]
        return found

    def _held_in(self, directories: list[str], scope: UserScope, *, unmark: bool = False) -> Held:
        """What waits for review in ``directories`` for users in ``scope``; ``unmark``: directories found holding
        none lose their mark (they are the marked ones)."""
        memories = episodes = 0
        for directory, owner in self._directories(directories).items():
            counted = self._count(directory, history=False)
            waiting_memories, waiting_episodes = counted.memories[1], counted.episodes[1]
            if unmark and not waiting_memories and not waiting_episodes:
                self._unmark(directory)
            elif scope.everyone or (owner is not None and scope.covers(owner.user)):
                memories, episodes = memories + waiting_memories, episodes + waiting_episodes
        return Held(memories, episodes)

    def _sweep(self) -> None:
        """Once per process: mark every directory holding something waiting for review (a store written before
        marks were kept, or one a crash lost a mark of), so that later counts need read the marked ones only."""
        for directory in [*self._all_directories(), GLOBAL_DIR]:
            counted = self._count(directory, history=False)
            if counted.memories[1] or counted.episodes[1]:
                mark_held(self.root, directory)
        self._swept = True

    def _unmark(self, directory: str) -> None:
        """Under the owner's writers' locks (a writer marks under its own), so that a mark is never removed while a
        held memory or episode is being written beside it."""
        base = self.root / directory
        marker = self.root / HELD_DIR / held_marker(directory)
        if not base.is_dir():
            marker.unlink(missing_ok=True)
            return
        with locked(base / "memories.lock"), locked(base / "episodes.lock"):
            if not _count_memories(f"{base}/memories.jsonl")[1] and not _count_episodes(f"{base}/episodes")[1]:
                marker.unlink(missing_ok=True)

    def _directories(self, directories: Iterable[str]) -> dict[str, Owner | None]:
        named: dict[str, Owner | None] = {}
        for directory in directories:
            owner = self._names.get(directory)
            if owner is None:
                owner = read_names(self.root, Path(directory))
                if owner is not None:
                    self._names[directory] = owner
            named[directory] = owner
        unnamed = [directory for directory, owner in named.items() if owner is None]
        if unnamed and time.monotonic() - self._renamed_at >= RENAME_EVERY_S:
            self._renamed_at = time.monotonic()
            named.update(self._rename(unnamed))
        return named

    def _rename(self, unnamed: list[str]) -> dict[str, Owner]:
        """Names for directories written before names were recorded, from what the rest of the store says."""
        users, workspaces = self._known_names()
        by_user = {digest(name): name for name in users}
        by_workspace = {digest(name): name for name in workspaces}
        found: dict[str, Owner] = {}
        for directory in unnamed:
            owner = _named_by_episode(f"{self._base}/{directory}/episodes")
            if owner is None or str(owner_dir(owner)) != directory:
                parts = directory.split("/")  # users/<user>/user or users/<user>/workspaces/<workspace>
                user = by_user.get(parts[1])
                if user is None:
                    continue
                if parts[2] == "user":
                    owner = Owner(user, None)
                elif parts[3] in by_workspace:
                    owner = Owner(user, by_workspace[parts[3]])
                else:
                    continue
            found[directory] = self._names[directory] = owner
            try:
                write_names(self.root, owner)
            except OSError as exc:  # a read-only store: named for this process only
                log.warning("could not record the names of %s: %s", directory, exc.strerror or exc)
        return found

    def _known_names(self) -> tuple[set[str], set[str]]:
        users = {o.user for o in self._names.values() if o.user is not None} | self.extra_users
        workspaces = {o.workspace for o in self._names.values() if o.workspace is not None} | self.extra_workspaces
        workspaces.add(DEFAULT_WORKSPACE)
        with contextlib.suppress(FileNotFoundError):
            for entry in os.scandir(self.root / "jobs"):
                if entry.name.endswith(".json"):
                    with contextlib.suppress(OSError, ValueError):
                        job = orjson.loads(Path(entry.path).read_bytes())
                        if isinstance(job, dict) and isinstance(job.get("user"), str):
                            users.add(job["user"])
                            if isinstance(job.get("workspace"), str):
                                workspaces.add(job["workspace"])
        with contextlib.suppress(FileNotFoundError):
            for line in (self.root / "keys.jsonl").read_bytes().splitlines():
                with contextlib.suppress(ValueError):
                    event = orjson.loads(line)
                    if isinstance(event, dict) and isinstance(event.get("user"), str):
                        users.add(event["user"])
        return users, workspaces

    def _count(self, directory: str, *, history: bool = True) -> _Counted:
        counted = self._counted.get(directory)
        if counted is None:
            counted = self._counted[directory] = _Counted()
        base = f"{self._base}/{directory}"
        now = time.time()
        path = f"{base}/memories.jsonl"
        stamp = _stamp(path)
        if stamp is None or stamp != counted.memories_stamp:
            counted.memories = _count_memories(path) if stamp is not None else (0, 0, 0, 0)
            counted.memories_stamp = stamp if stamp is not None and not _racy(stamp, now) else None
        path = f"{base}/episodes"
        stamp = _stamp(path)
        if stamp is None or stamp != counted.episodes_stamp:
            counted.episodes = _count_episodes(path) if stamp is not None else (0, 0)
            counted.episodes_stamp = stamp if stamp is not None and not _racy(stamp, now) else None
        if history:
            _count_history(f"{base}/history.jsonl", counted)
            path = f"{base}/details"
            stamp = _stamp(path)
            if stamp is None or stamp != counted.details_stamp:
                counted.details = _count_details(path) if stamp is not None else 0
                counted.details_stamp = stamp if stamp is not None and not _racy(stamp, now) else None
        return counted


def _stamp(path: str) -> _Stamp | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _racy(stamp: _Stamp, now: float) -> bool:
    return now - stamp[2] / 1e9 < RACY_S


def _count_memories(path: str) -> tuple[int, int, int, int]:
    """Live, held, pinned and superseded memories, the last line of each id winning (as the store reads it)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return 0, 0, 0, 0
    last: dict[str, tuple[bool, bool, bool]] = {}  # id -> (live, held, pinned)
    for line in data[: data.rfind(b"\n") + 1].split(b"\n"):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
            continue
        waiting = obj.get("untrusted") is True and obj.get("user_approved") is not True
        last[obj["id"]] = (obj.get("superseded_by") is None, waiting, obj.get("pinned") is True)
    live = held = pinned = superseded = 0
    for is_live, is_held, is_pinned in last.values():
        if not is_live:
            superseded += 1
        elif is_held:
            held += 1
        else:
            live += 1
            pinned += is_pinned
    return live, held, pinned, superseded


def _count_episodes(directory: str) -> tuple[int, int]:
    count = held = 0
    try:
        names = [name for name in os.listdir(directory) if name.endswith(".json")]
    except (FileNotFoundError, NotADirectoryError):
        return 0, 0
    for name in names:
        try:
            with open(f"{directory}/{name}", "rb") as handle:
                obj = orjson.loads(handle.read())
        except (FileNotFoundError, orjson.JSONDecodeError):
            continue
        provenance = obj.get("provenance") if isinstance(obj, dict) else None
        if not isinstance(provenance, dict):
            continue
        count += 1
        held += provenance.get("untrusted") is True and provenance.get("user_approved") is not True
    return count, held


def _count_details(directory: str) -> int:
    try:
        return sum(1 for name in os.listdir(directory) if name.endswith(".json"))
    except (FileNotFoundError, NotADirectoryError):
        return 0


def _count_history(path: str, counted: _Counted) -> None:
    """Lines of the history file: only the tail it grew by since the last count, while it is the same file."""
    stamp = _stamp(path)
    if stamp is not None and stamp[0] == counted.history_inode and stamp[1] == counted.history_offset:
        return  # unchanged (a line being written is counted once whole: the size then moves past the offset)
    try:
        fd = os.open(path, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        counted.history_inode, counted.history_offset, counted.history = None, 0, 0
        return
    try:
        st = os.fstat(fd)
        if st.st_ino != counted.history_inode or st.st_size < counted.history_offset:
            counted.history_inode, counted.history_offset, counted.history = st.st_ino, 0, 0
        if st.st_size > counted.history_offset:
            data = os.pread(fd, st.st_size - counted.history_offset, counted.history_offset)
            end = data.rfind(b"\n") + 1  # a line being written is counted once it is whole
            counted.history += sum(1 for line in data[:end].split(b"\n")[:-1] if line.strip())
            counted.history_offset += end
    finally:
        os.close(fd)


def _named_by_episode(directory: str) -> Owner | None:
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for name in sorted(os.listdir(directory)):
            if name.endswith(".json"):
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    with open(f"{directory}/{name}", "rb") as handle:
                        obj = orjson.loads(handle.read())
                    if isinstance(obj.get("user"), str) and isinstance(obj.get("workspace"), str):
                        return Owner(obj["user"], obj["workspace"])
    return None


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the store census failed: {exc.strerror or exc}") from exc
