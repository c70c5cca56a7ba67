"""Paths of Anthropic's memory tool: what may name a file under ``/memories``, and the key each is stored under.

The store has no real directories, links or encodings: a file is a key, ``/memories/notes/todo.md``, and a
directory is any prefix of keys; a directory the memory tool made is also kept by a marker key (``/memories/notes/``,
empty), so that it stays, empty, when its last file goes, as a directory on a disk does.

A path the model sends is read as Anthropic's reference implementation reads it
(``anthropic.tools.memory.BetaLocalFilesystemMemoryTool``): it must start with ``/memories``; ``.`` and empty
components go; ``..`` climbs, and one that would climb out of ``/memories`` is refused with the reference's text.
Stricter than the reference, since what a path means must never depend on who reads it later: ``/memoriesX``
(which the reference reads as ``/memories/X``), backslashes, control characters, percent-encoded dots, slashes,
backslashes or percent signs (``%2e%2e%2f``, double encodings), components that Unicode folds into ``.`` or ``..``
(``．．``) or into a slash, and a leading ``~`` (a home directory to a shell) are all refused. Pure.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

ROOT = "/memories"
MAX_PATH_CHARS = 1024
MAX_NAME_CHARS = 255
_ENCODED = re.compile(r"%(?:2e|2f|5c|25|00)", re.IGNORECASE)  # . / \ % NUL: a name written to be decoded later
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PathError(ValueError):
    """The path names nothing the memory tool may touch; the message is the model's to read."""


@dataclass(frozen=True, slots=True)
class MemoryPath:
    given: str  # as the model wrote it: result texts quote it, as the reference's do
    parts: tuple[str, ...]  # the components under /memories; () for /memories itself

    @property
    def key(self) -> str:
        """The stored name: ``/memories`` and the components, one slash between each."""
        return "/".join((ROOT, *self.parts))

    @property
    def is_root(self) -> bool:
        return not self.parts

    @property
    def parent(self) -> str:
        return "/".join((ROOT, *self.parts[:-1]))


def resolve(path: object) -> MemoryPath:
    """``path`` as a key under ``/memories``, or :class:`PathError` saying why not."""
    if not isinstance(path, str):
        raise PathError(f"Path must be a string starting with /memories, got: {path!r}")
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise PathError(f"Path must start with /memories, got: {path}")
    escape = PathError(f"Path {path} would escape /memories directory")
    if len(path) > MAX_PATH_CHARS:
        raise PathError(f"Path {path[:80]}... is longer than {MAX_PATH_CHARS} characters")
    if "\\" in path or _CONTROL.search(path) or _ENCODED.search(path):
        raise escape
    parts: list[str] = []
    for part in path[len(ROOT) :].split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise escape
            parts.pop()
            continue
        folded = unicodedata.normalize("NFKC", part)
        if folded in (".", "..") or "/" in folded or "\\" in folded or part.startswith("~"):
            raise escape
        if len(part) > MAX_NAME_CHARS:
            raise PathError(f"Path {path} has a name longer than {MAX_NAME_CHARS} characters")
        parts.append(part)
    return MemoryPath(path, tuple(parts))


def marker(directory: str) -> str:
    """The key that keeps a directory (a key too) when no file is under it: ``/memories/notes/``."""
    return directory + "/"


def is_marker(key: str) -> bool:
    return key.endswith("/")


def under(key: str, directory: str) -> bool:
    """Whether the stored ``key`` lies inside ``directory`` (a key too), at any depth."""
    return key.startswith(directory + "/")
