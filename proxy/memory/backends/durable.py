"""Small durable-file tools for the files backend: an exclusive lock, a directory fsync, the id counter, and
the removal of temp files crashed writers left behind."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

# Every temp file is `<name>.tmp-<pid>-<thread>`: its writer's process tells whether it may still be written.
_TEMP = re.compile(r".+\.tmp-([0-9]{1,20})-[0-9]+")
_STARTED = time.time()  # a temp file of this process's pid older than this was left by an earlier one


@contextlib.contextmanager
def locked(path: Path, *, mkdir: bool = False) -> Iterator[None]:
    if mkdir:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append_lines(path: Path, data: bytes) -> int:
    """Append whole JSON lines and fsync them (and the directory, for a new file); only under the writers' lock.

    A torn last line a crash left is cut first, and an error leaves no half line behind: every reader sees whole
    lines only. Returns the offset ``data`` was written at.
    """
    created = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            size = cut_torn_tail(fd, size)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except BaseException:
            os.ftruncate(fd, size)  # never leave half a line behind an error
            raise
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    return size


def cut_torn_tail(fd: int, size: int) -> int:
    """Drop the unterminated last line a crash left; returns the new size. Only under the writers' lock."""
    tail = os.pread(fd, min(size, 1 << 20), max(size - (1 << 20), 0))
    keep = size - len(tail) + tail.rfind(b"\n") + 1
    os.ftruncate(fd, keep)
    return keep


class IdCounter:
    """Ids from one counter for the whole data dir, bumped under a lock and fsynced before an id is used."""

    WIDTH = 20  # fixed width: the counter is overwritten in place, one small write that cannot tear

    def __init__(self, root: Path) -> None:
        self.root = root

    def next(self) -> str:
        return self.take(1)[0]

    def take(self, count: int) -> list[str]:
        """``count`` new ids in one bump of the counter (one fsync however many)."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / "ids"
        with locked(self.root / "ids.lock"):
            created = not path.exists()
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                number = int(os.pread(fd, self.WIDTH + 1, 0).strip() or 1)
                os.pwrite(fd, f"{number + count:>{self.WIDTH}}\n".encode(), 0)
                os.fsync(fd)
            finally:
                os.close(fd)
            if created:
                fsync_dir(self.root)
        return [f"m-{n}" for n in range(number, number + count)]


def left_by_a_crash(name: str, mtime: float) -> bool:
    """Whether the temp file ``name`` (modified at ``mtime``) has no writer left: its process is gone, or it
    carries this process's pid from before this process started (a restarted container reuses its pid).

    Processes sharing a data dir are on one host (they share ``flock``s), so a live pid is a live writer.
    """
    match = _TEMP.fullmatch(name)
    if match is None:
        return False
    return writer_gone(int(match.group(1)), mtime)


def writer_gone(pid: int, mtime: float) -> bool:
    """Whether the process ``pid``, which wrote a file at ``mtime``, is gone: no such process, or this one's pid
    from before this process started (a restarted container reuses its pid)."""
    if pid == os.getpid():
        return mtime < _STARTED
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return True
    except PermissionError:  # another user's live process
        return False
    return False


def remove_crash_leftovers(root: Path) -> int:
    """Remove every temp file under the data dir that crashed writers left (memories, episodes, jobs); returns
    how many. At start-up: each writer also removes its own on failure, and the old ones it meets."""
    removed = 0
    for directory, _, names in os.walk(root):
        for name in names:
            if ".tmp-" not in name:
                continue
            path = os.path.join(directory, name)
            with contextlib.suppress(FileNotFoundError):
                if left_by_a_crash(name, os.stat(path).st_mtime):
                    os.unlink(path)
                    removed += 1
    return removed
