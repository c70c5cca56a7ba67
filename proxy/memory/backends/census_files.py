""":class:`~proxy.memory.census.Census` over a files store: counts per owner directory, re-read only when changed.

- Owners are the directories under ``users/`` named by their ``owner.json`` (:mod:`.owner_dirs`). A directory
  without one (written before names were recorded) is named, when possible, from what else the store holds:
  an episode in it (episodes carry their user and workspace), or the names of jobs, keys and other owners
  (``default`` always tried); the names found are then recorded. One named by nothing stays *unnamed*.
- Each directory's counts are kept with the stamps of the files they were read from, and read again only when
  those changed (:mod:`.owner_counts`).
- What waits for review is counted over the directories marked in ``held/`` alone (:func:`.owner_dirs.mark_held`:
  a writer of a held memory, episode or memory file proposal marks its directory under its lock). A process's first
  count marks every directory holding one (a store written before marks, a mark a crash lost); a count that finds a
  marked directory holding none unmarks it under the writers' locks. Only an admin's or a service's count reads
  marks: a user's reads their own directories.
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
from pathlib import Path
from typing import TypeVar

import orjson

from ...errors import StoreUnavailable
from ..census import Held, Schema, Tally, UserScope
from ..store import GLOBAL, Owner
from .durable import locked
from .memory_files_json import LOCK as FILES_LOCK
from .owner_counts import Counted, count_episodes, count_files, count_memories, count_owner
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
RENAME_EVERY_S = 10.0  # unnamed directories are tried against the store's names at most this often
DEFAULT_WORKSPACE = "default"
GLOBAL_DIR = str(owner_dir(GLOBAL))


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
        self._counted: dict[str, Counted] = {}
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
        return (await self._held(scope))[0]

    async def held_by_owner(self, scope: UserScope) -> dict[Owner, Held]:
        return (await self._held(scope))[1]

    async def _held(self, scope: UserScope) -> tuple[Held, dict[Owner, Held]]:
        def work() -> tuple[Held, dict[Owner, Held]]:
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

    def _held_in(
        self, directories: list[str], scope: UserScope, *, unmark: bool = False
    ) -> tuple[Held, dict[Owner, Held]]:
        """What waits for review in ``directories`` for users in ``scope``, in all and by named owner; ``unmark``:
        directories found holding none lose their mark (they are the marked ones)."""
        summed = Held()
        by_owner: dict[Owner, Held] = {}
        for directory, owner in self._directories(directories).items():
            counted = self._count(directory, history=False)
            waiting = Held(counted.memories[1], counted.episodes[1], counted.proposals)
            if unmark and not waiting.total:
                self._unmark(directory)
            elif scope.everyone or (owner is not None and scope.covers(owner.user)):
                summed = Held(*(a + b for a, b in zip(_held(summed), _held(waiting), strict=True)))
                if owner is not None and waiting.total:
                    by_owner[owner] = waiting
        return summed, by_owner

    def _sweep(self) -> None:
        """Once per process: mark every directory holding something waiting for review (a store written before
        marks were kept, or one a crash lost a mark of), so that later counts need read the marked ones only."""
        for directory in [*self._all_directories(), GLOBAL_DIR]:
            counted = self._count(directory, history=False)
            if counted.memories[1] or counted.episodes[1] or counted.proposals:
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
        with locked(base / "memories.lock"), locked(base / "episodes.lock"), locked(base / FILES_LOCK):
            if (
                not count_memories(f"{base}/memories.jsonl")[1]
                and not count_episodes(f"{base}/episodes")[1]
                and not count_files(f"{base}/memory_files.json")[1]
            ):
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

    def _count(self, directory: str, *, history: bool = True) -> Counted:
        counted = self._counted.get(directory)
        if counted is None:
            counted = self._counted[directory] = Counted()
        return count_owner(f"{self._base}/{directory}", counted, history=history)


def _held(held: Held) -> tuple[int, int, int]:
    return held.memories, held.episodes, held.files


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
