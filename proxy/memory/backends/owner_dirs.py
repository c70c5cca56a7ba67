"""Where each owner lives in the files store, and the real names of each owner directory.

Directories are named by hashes of the user and workspace (any header value is then a safe, case-distinct name),
so the names themselves are recorded beside the data: ``owner.json`` (``{"user": ..., "workspace": ...}``) in
the owner's directory, written once (temp file, fsync, rename, directory fsync) by whichever files backend first
writes there or first finds the directory without one (an owner written before names were recorded, met again by
any request). The census (:mod:`.census_files`) and ``memproxy store copy`` read it back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import orjson

from ..store import Owner
from .durable import fsync_dir

NAMES_FILE = "owner.json"
HELD_DIR = "held"  # one empty file per owner directory that may hold something waiting for review
# The files store has no schema to migrate: every record is a JSON line or file read leniently, a field added later
# read with its default from older records. Its layout has a version all the same, for the store health:
# files-1 named owner directories by hashes only; files-2 records their names too (owner.json). A files-1 store
# is read as it is, each owner named when it is next used (or by the census, from the store's other records).
FILES_LAYOUT = "files-2"


def owner_dir(owner: Owner) -> Path:
    """Hashed names: any header value is a safe, case-distinct directory name."""
    if owner.user is None:
        return Path("global")
    user = Path("users") / digest(owner.user)
    return user / "user" if owner.workspace is None else user / "workspaces" / digest(owner.workspace)


def digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:32]


def owner_directories(root: Path) -> Iterator[Path]:
    """Every user's directory (user-wide and per workspace) under ``root``, relative to it; global left out."""
    try:
        users = [entry.name for entry in os.scandir(root / "users") if entry.is_dir()]
    except FileNotFoundError:
        return
    for user in sorted(users):
        base = Path("users") / user
        if os.path.isdir(root / base / "user"):
            yield base / "user"
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            for entry in sorted(os.scandir(root / base / "workspaces"), key=lambda e: e.name):
                if entry.is_dir():
                    yield base / "workspaces" / entry.name


def read_names(root: Path, directory: Path) -> Owner | None:
    """The owner recorded in ``directory`` (relative to ``root``); None when none is, or it does not name it."""
    try:
        obj = orjson.loads((root / directory / NAMES_FILE).read_bytes())
    except (FileNotFoundError, NotADirectoryError, orjson.JSONDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    user, workspace = obj.get("user"), obj.get("workspace")
    if not isinstance(user, str) or not (workspace is None or isinstance(workspace, str)):
        return None
    owner = Owner(user, workspace)
    return owner if owner_dir(owner) == directory else None  # a copied or edited file names another directory


def write_names(root: Path, owner: Owner) -> None:
    """Record ``owner``'s names in its directory (which exists), durably; a crash leaves the old state or this."""
    directory = root / owner_dir(owner)
    temp = directory / f"{NAMES_FILE}.tmp-{os.getpid()}-{threading.get_ident()}"
    try:
        with open(temp, "wb") as handle:
            handle.write(orjson.dumps({"user": owner.user, "workspace": owner.workspace}))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, directory / NAMES_FILE)
        fsync_dir(directory)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
        raise


def mark_held(root: Path, directory: Path | str) -> None:
    """Note that ``directory`` (relative to ``root``) holds a memory or an episode waiting for review; by its
    writer, under its lock. The census counts what waits for review over the marked directories alone, and
    unmarks one found holding none (under the writers' locks, so never one a writer is marking)."""
    path = root / HELD_DIR / held_marker(directory)
    if not os.path.exists(path):
        path.parent.mkdir(exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))


def held_marker(directory: Path | str) -> str:
    """``global``, ``<user>.user`` or ``<user>.<workspace>`` (the hashes of the directory's names)."""
    parts = str(directory).split(os.sep)
    return "global" if parts == ["global"] else f"{parts[1]}.{parts[-1]}"


def held_marked(root: Path) -> list[str]:
    """The directories (relative to ``root``) marked as holding something waiting for review."""
    try:
        names = os.listdir(root / HELD_DIR)
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        user, _, place = name.partition(".")
        if name == "global":
            found.append("global")
        elif place == "user":
            found.append(f"users/{user}/user")
        elif place and "." not in place:
            found.append(f"users/{user}/workspaces/{place}")
    return found


class OwnerNames:
    """Records each owner's names once per process: after the first time, a set lookup (no system call)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._noted: set[Owner] = set()

    def note(self, owner: Owner) -> None:
        """In a thread: record the owner's names if its directory exists and holds none yet."""
        if owner.user is None or owner in self._noted:
            return
        directory = self.root / owner_dir(owner)
        if not os.path.exists(directory / NAMES_FILE):
            if not os.path.isdir(directory):
                return  # nothing written there yet: the first write records them
            write_names(self.root, owner)
        self._noted.add(owner)
