"""One owner directory's counts in the files store, kept with the stamps of the files they were read from.

Read again only what changed: ``memories.jsonl`` and ``memory_files.json`` by (inode, size, mtime), the
``episodes`` and ``details`` directories by theirs (every create, rename and unlink moves a directory's mtime),
``history.jsonl`` from where the last count stopped while it only grows. A stamp read within ``RACY_S`` of its mtime
is not trusted (a change in the same tick would not move it): that part is read again next time. In a thread: this
is file work.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import orjson

from ..census import Tally

RACY_S = 0.05
Stamp = tuple[int, int, int]  # inode, size, mtime_ns


@dataclass(slots=True)
class Counted:
    """One directory's counts, each with the stamp it was read at (None: read it again)."""

    memories_stamp: Stamp | None = None
    memories: tuple[int, int, int, int] = (0, 0, 0, 0)  # live, held, pinned, superseded
    episodes_stamp: Stamp | None = None
    episodes: tuple[int, int] = (0, 0)  # all, held
    history_inode: int | None = None
    history_offset: int = 0
    history: int = 0
    details_stamp: Stamp | None = None
    details: int = 0
    files_stamp: Stamp | None = None
    files: int = 0  # memory files and proposals
    proposals: int = 0  # of which proposals: changes to memory files waiting for review

    def tally(self) -> Tally:
        live, held, pinned, superseded = self.memories
        episodes, waiting = self.episodes
        return Tally(live, held, pinned, superseded, episodes, waiting, self.history, self.details, self.files)


def count_owner(base: str, counted: Counted, *, history: bool = True) -> Counted:
    """``counted`` brought up to date with the directory ``base``; ``history``: the history and details too (the
    held count needs neither)."""
    now = time.time()
    path = f"{base}/memories.jsonl"
    found = stamp(path)
    if found is None or found != counted.memories_stamp:
        counted.memories = count_memories(path) if found is not None else (0, 0, 0, 0)
        counted.memories_stamp = found if found is not None and not racy(found, now) else None
    path = f"{base}/episodes"
    found = stamp(path)
    if found is None or found != counted.episodes_stamp:
        counted.episodes = count_episodes(path) if found is not None else (0, 0)
        counted.episodes_stamp = found if found is not None and not racy(found, now) else None
    path = f"{base}/memory_files.json"
    found = stamp(path)
    if found is None or found != counted.files_stamp:
        files, counted.proposals = count_files(path) if found is not None else (0, 0)
        counted.files = files + counted.proposals
        counted.files_stamp = found if found is not None and not racy(found, now) else None
    if history:
        count_history(f"{base}/history.jsonl", counted)
        path = f"{base}/details"
        found = stamp(path)
        if found is None or found != counted.details_stamp:
            counted.details = count_details(path) if found is not None else 0
            counted.details_stamp = found if found is not None and not racy(found, now) else None
    return counted


def stamp(path: str) -> Stamp | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def racy(stamp: Stamp, now: float) -> bool:
    return now - stamp[2] / 1e9 < RACY_S


def count_memories(path: str) -> tuple[int, int, int, int]:
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


def count_episodes(directory: str) -> tuple[int, int]:
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


def count_details(directory: str) -> int:
    try:
        return sum(1 for name in os.listdir(directory) if name.endswith(".json"))
    except (FileNotFoundError, NotADirectoryError):
        return 0


def count_files(path: str) -> tuple[int, int]:
    """Memory files and the proposals beside them (``memory_files.json``, replaced whole by every write)."""
    try:
        with open(path, "rb") as handle:
            obj = orjson.loads(handle.read())
    except (FileNotFoundError, NotADirectoryError, orjson.JSONDecodeError):
        return 0, 0
    if not isinstance(obj, dict):
        return 0, 0
    files, proposals = obj.get("files"), obj.get("proposals")
    listed = files if isinstance(files, list) else []
    found = [f for f in listed if isinstance(f, dict) and not str(f.get("path")).endswith("/")]  # not the markers
    return len(found), len(proposals) if isinstance(proposals, list) else 0


def count_history(path: str, counted: Counted) -> None:
    """Lines of the history file: only the tail it grew by since the last count, while it is the same file."""
    found = stamp(path)
    if found is not None and found[0] == counted.history_inode and found[1] == counted.history_offset:
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
