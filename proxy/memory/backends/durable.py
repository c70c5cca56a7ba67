"""Small durable-file tools for the files backend: an exclusive lock, a directory fsync, the id counter."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


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


class IdCounter:
    """Ids from one counter for the whole data dir, bumped under a lock and fsynced before an id is used."""

    WIDTH = 20  # fixed width: the counter is overwritten in place, one small write that cannot tear

    def __init__(self, root: Path) -> None:
        self.root = root

    def next(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / "ids"
        with locked(self.root / "ids.lock"):
            created = not path.exists()
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                number = int(os.pread(fd, self.WIDTH + 1, 0).strip() or 1)
                os.pwrite(fd, f"{number + 1:>{self.WIDTH}}\n".encode(), 0)
                os.fsync(fd)
            finally:
                os.close(fd)
            if created:
                fsync_dir(self.root)
        return f"m-{number}"
