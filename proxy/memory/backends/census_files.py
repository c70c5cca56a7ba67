""":class:`~proxy.memory.census.Census` over a files store: counts per owner directory, re-read only when changed.

- Owners are the directories under ``users/`` named by their ``owner.json`` (:mod:`.owner_dirs`). A directory
  without one (written before names were recorded) is named, when possible, from what else the store holds:
  an episode in it (episodes carry their user and workspace), or the names of jobs, keys and other owners
  (``default`` always tried); the names found are then recorded. One named by nothing stays *unnamed*.
- Each directory's counts are kept with the stamps of what they were read from: ``memories.jsonl`` (inode, size,
  mtime), the ``episodes`` directory (inode, mtime) and ``history.jsonl``, whose new lines are counted from where
  the last count stopped while it only grows. A stamp read within ``RACY_S`` of its mtime is not trusted (a
  change in the same tick would not move it): that part is read again next time.
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
from .owner_dirs import FILES_LAYOUT, digest, owner_dir, owner_directories, read_names, write_names

log = logging.getLogger("proxy.memory")

T = TypeVar("T")
RACY_S = 0.05
RENAME_EVERY_S = 10.0  # unnamed directories are tried against the store's names at most this often
DEFAULT_WORKSPACE = "default"
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

    def tally(self) -> Tally:
        live, held, pinned, superseded = self.memories
        return Tally(live, held, pinned, superseded, self.episodes[0], self.episodes[1], self.history)


class FilesCensus:
    def __init__(self, root: str | Path, *, users: Collection[str] = (), workspaces: Collection[str] = ()) -> None:
        """``users`` and ``workspaces``: more names to try on unnamed directories (``store copy --user``)."""
        self.root = Path(root)
        self.extra_users = set(users)
        self.extra_workspaces = set(workspaces)
        self._names: dict[Path, Owner] = {}
        self._unnamed: set[Path] = set()
        self._renamed_at = -RENAME_EVERY_S  # when unnamed directories were last tried
        self._counted: dict[Path, _Counted] = {}
        self._lock = threading.Lock()

    async def tallies(self) -> dict[Owner, Tally]:
        def work() -> dict[Owner, Tally]:
            named = self._directories(owner_directories(self.root))
            found = {owner: self._count(directory).tally() for directory, owner in named.items() if owner is not None}
            shared = self._count(owner_dir(GLOBAL), history=False).tally()
            if not shared.empty:
                found[GLOBAL] = shared
            return found

        return await _in_thread(self._locked(work))

    async def workspaces(self, user: str) -> set[str | None]:
        def work() -> set[str | None]:
            named = self._directories(self._user_directories(user))
            return {owner.workspace for owner in named.values() if owner is not None and owner.user == user}

        return await _in_thread(self._locked(work))

    async def held(self, scope: UserScope) -> Held:
        def work() -> Held:
            if scope.everyone or scope.prefix is not None:
                candidates = list(owner_directories(self.root))
            else:  # named users only: just their directories, however many others there are
                candidates = [d for user in sorted(scope.users) for d in self._user_directories(user)]
            named = self._directories(candidates)
            memories = episodes = 0
            for directory, owner in named.items():
                if owner is not None and scope.covers(owner.user):
                    counted = self._count(directory, history=False)
                    memories, episodes = memories + counted.memories[1], episodes + counted.episodes[1]
            if scope.everyone:  # global memories are an admin's to review
                memories += self._count(owner_dir(GLOBAL), history=False).memories[1]
            return Held(memories, episodes)

        return await _in_thread(self._locked(work))

    async def unnamed(self) -> list[str]:
        def work() -> list[str]:
            named = self._directories(owner_directories(self.root))
            return [str(directory) for directory, owner in named.items() if owner is None]

        return await _in_thread(self._locked(work))

    def directories(self) -> dict[Path, Owner | None]:
        """Every owner directory (relative to the root) and its owner, None when unnamed (``store copy``, in a
        thread)."""
        with self._lock:
            self._renamed_at = -RENAME_EVERY_S  # a copy tries every name it has
            return self._directories(owner_directories(self.root))

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

    def _user_directories(self, user: str) -> list[Path]:
        base = Path("users") / digest(user)
        found = [base / "user"] if os.path.isdir(self.root / base / "user") else []
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            found += [base / "workspaces" / e.name for e in os.scandir(self.root / base / "workspaces") if e.is_dir()]
        return found

    def _directories(self, directories: Iterable[Path]) -> dict[Path, Owner | None]:
        named: dict[Path, Owner | None] = {}
        for directory in directories:
            owner = self._names.get(directory)
            if owner is None:
                owner = read_names(self.root, directory)
                if owner is not None:
                    self._names[directory] = owner
                    self._unnamed.discard(directory)
                else:
                    self._unnamed.add(directory)
            named[directory] = owner
        unnamed = [directory for directory, owner in named.items() if owner is None]
        if unnamed and time.monotonic() - self._renamed_at >= RENAME_EVERY_S:
            self._renamed_at = time.monotonic()
            for directory, owner in self._rename(unnamed).items():
                named[directory] = owner
        return named

    def _rename(self, unnamed: list[Path]) -> dict[Path, Owner]:
        """Names for directories written before names were recorded, from what the rest of the store says."""
        users, workspaces = self._known_names()
        by_user = {digest(name): name for name in users}
        by_workspace = {digest(name): name for name in workspaces}
        found: dict[Path, Owner] = {}
        for directory in unnamed:
            owner = _named_by_episode(self.root / directory / "episodes")
            if owner is None or owner_dir(owner) != directory:
                parts = directory.parts  # users/<user>/user or users/<user>/workspaces/<workspace>
                user = by_user.get(parts[1])
                if user is None:
                    continue
                if parts[2] == "user":
                    owner = Owner(user, None)
                elif parts[3] in by_workspace:
                    owner = Owner(user, by_workspace[parts[3]])
                else:
                    continue
            found[directory] = owner
            self._names[directory] = owner
            self._unnamed.discard(directory)
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

    def _count(self, directory: Path, *, history: bool = True) -> _Counted:
        counted = self._counted.setdefault(directory, _Counted())
        base = self.root / directory
        now = time.time()
        stamp = _stamp(base / "memories.jsonl")
        if stamp is None or stamp != counted.memories_stamp:
            counted.memories = _count_memories(base / "memories.jsonl") if stamp is not None else (0, 0, 0, 0)
            counted.memories_stamp = stamp if stamp is not None and not _racy(stamp, now) else None
        stamp = _stamp(base / "episodes")
        if stamp is None or stamp != counted.episodes_stamp:
            counted.episodes = _count_episodes(base / "episodes") if stamp is not None else (0, 0)
            counted.episodes_stamp = stamp if stamp is not None and not _racy(stamp, now) else None
        if history:
            _count_history(base / "history.jsonl", counted)
        return counted


def _stamp(path: Path) -> _Stamp | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _racy(stamp: _Stamp, now: float) -> bool:
    return now - stamp[2] / 1e9 < RACY_S


def _count_memories(path: Path) -> tuple[int, int, int, int]:
    """Live, held, pinned and superseded memories, the last line of each id winning (as the store reads it)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
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


def _count_episodes(directory: Path) -> tuple[int, int]:
    count = held = 0
    try:
        names = [name for name in os.listdir(directory) if name.endswith(".json")]
    except (FileNotFoundError, NotADirectoryError):
        return 0, 0
    for name in names:
        try:
            obj = orjson.loads((directory / name).read_bytes())
        except (FileNotFoundError, orjson.JSONDecodeError):
            continue
        provenance = obj.get("provenance") if isinstance(obj, dict) else None
        if not isinstance(provenance, dict):
            continue
        count += 1
        held += provenance.get("untrusted") is True and provenance.get("user_approved") is not True
    return count, held


def _count_history(path: Path, counted: _Counted) -> None:
    """Lines of the history file: only the tail it grew by since the last count, while it is the same file."""
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


def _named_by_episode(directory: Path) -> Owner | None:
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for name in sorted(os.listdir(directory)):
            if name.endswith(".json"):
                with contextlib.suppress(OSError, ValueError):
                    obj = orjson.loads((directory / name).read_bytes())
                    if isinstance(obj.get("user"), str) and isinstance(obj.get("workspace"), str):
                        return Owner(obj["user"], obj["workspace"])
    return None


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the store census failed: {exc.strerror or exc}") from exc
