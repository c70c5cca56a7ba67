"""Memory files: an owner's ``/memories`` directory, which Anthropic's memory tool reads and writes.

Each file is a record (:class:`MemoryFile`) under its key (``/memories/notes.md``, :mod:`.file_paths`), with a
version bumped by every write, when it was made and changed, the session and the way in that last wrote it, and
where its text came from (a proposal a person approved keeps the untrusted sources it was written under). A change
that must wait for a person (written by a session that took in untrusted content, or a text the scanner suspects)
is a :class:`FileProposal` instead: the file's new text, or its deletion, beside the file as it stands, until a
person approves it (it is then written) or rejects it.

:class:`MemoryFileStore` is the storage contract; the backends are ``backends/memory_files_json.py`` and
``backends/pg_memory_files.py``. A commit is all or nothing and durable before it returns; it names the version
it expects each file at (None: no file), so two writers of one owner never lose each other's change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .file_paths import PathError, is_marker, resolve
from .provenance import TRUSTED, Provenance
from .records import format_ts, parse_ts
from .store import Owner

ORIGINS = ("tool", "api", "import")  # the memory tool, a person through the API or the console, an import


class FileConflict(Exception):
    """A file is not at the version a commit expected: another writer changed it meanwhile."""


@dataclass(frozen=True, slots=True)
class MemoryFile:
    path: str  # its key; a directory's marker (the directory's key and a slash, no text) keeps an empty directory
    text: str
    version: int
    created_at: float
    updated_at: float
    origin: str = "tool"
    session: str | None = None
    key_id: str | None = None  # auth.mode keys: the memproxy key behind the last write
    provenance: Provenance = TRUSTED  # an approved proposal's: untrusted, its sources, user_approved

    @property
    def size(self) -> int:
        return len(self.text.encode())

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "text": self.text,
            "version": self.version,
            "created_at": format_ts(self.created_at),
            "updated_at": format_ts(self.updated_at),
            "origin": self.origin,
            "session": self.session,
            "key_id": self.key_id,
            "provenance": self.provenance.to_json(),
        }

    def listed(self) -> dict[str, Any]:
        """What a listing shows of it: everything but the text."""
        shown = self.to_json()
        del shown["text"]
        return shown | {"size": self.size, "lines": self.text.count("\n") + (not self.text.endswith("\n"))}

    @classmethod
    def from_json(cls, obj: Any) -> MemoryFile:
        """A stored file; ValueError for anything malformed (messages never quote the text)."""
        if not isinstance(obj, Mapping):
            raise ValueError("a memory file must be a JSON object")
        path, text, version = obj.get("path"), obj.get("text"), obj.get("version")
        if not isinstance(text, str) or not isinstance(version, int) or isinstance(version, bool):
            raise ValueError("text must be a string and version an integer")
        origin, session, key_id = obj.get("origin", "tool"), obj.get("session"), obj.get("key_id")
        if origin not in ORIGINS or not all(value is None or isinstance(value, str) for value in (session, key_id)):
            raise ValueError("origin, session or key_id is not what a memory file holds")
        return cls(
            _key(path),
            text,
            version,
            parse_ts(obj.get("created_at")),
            parse_ts(obj.get("updated_at")),
            origin,
            session,
            key_id,
            Provenance.from_json(obj.get("provenance", TRUSTED.to_json())),
        )


@dataclass(frozen=True, slots=True)
class FileProposal:
    """A change to one file waiting for a person: its new text, or None to delete it."""

    id: str  # fp-<16 hex>: one per session and path (a session's later change to the path replaces it)
    path: str
    text: str | None
    created_at: float
    session: str | None
    provenance: Provenance  # untrusted and its sources, or the scanner's reason
    base: int | None = None  # the file's version when first proposed; None: there was no file
    origin: str = "tool"
    key_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "text": self.text,
            "created_at": format_ts(self.created_at),
            "session": self.session,
            "provenance": self.provenance.to_json(),
            "reason": self.provenance.reason,
            "base": self.base,
            "origin": self.origin,
            "key_id": self.key_id,
        }

    @classmethod
    def from_json(cls, obj: Any) -> FileProposal:
        if not isinstance(obj, Mapping):
            raise ValueError("a file proposal must be a JSON object")
        ident, text, session, base = obj.get("id"), obj.get("text"), obj.get("session"), obj.get("base")
        reason, origin, key_id = obj.get("reason"), obj.get("origin", "tool"), obj.get("key_id")
        if not isinstance(ident, str) or not ident.startswith("fp-"):
            raise ValueError("id must look like fp-<hex>")
        if not all(value is None or isinstance(value, str) for value in (text, session, reason, key_id)):
            raise ValueError("text, session, reason and key_id must be strings")
        if base is not None and (not isinstance(base, int) or isinstance(base, bool)):
            raise ValueError("base must be an integer")
        if origin not in ORIGINS:
            raise ValueError("origin is not what a memory file holds")
        provenance = Provenance.from_json(obj.get("provenance"))
        if reason is not None:
            provenance = provenance.flagged(reason)
        return cls(
            ident, _key(obj.get("path")), text, parse_ts(obj.get("created_at")), session, provenance, base, origin,
            key_id,
        )  # fmt: skip


def _key(path: Any) -> str:
    """A stored path must be a key as :func:`resolve` makes them (or a directory's marker, the key and a slash): a
    record edited on disk cannot escape either."""
    if not isinstance(path, str):
        raise ValueError("path must be a string")
    key = path[:-1] if is_marker(path) else path
    try:
        resolved = resolve(key)
    except PathError as exc:
        raise ValueError(str(exc)) from None
    if resolved.key != key or resolved.is_root:
        raise ValueError("path is not a file's key under /memories")
    return path


class MemoryFileStore(Protocol):
    """Async storage of memory files and proposals per owner. Every method may raise
    :class:`~proxy.errors.StoreUnavailable`."""

    async def files(self, owner: Owner) -> list[MemoryFile]:
        """Every file of the owner (in no particular order)."""
        ...

    async def commit(
        self, owner: Owner, changes: Mapping[str, MemoryFile | None], expect: Mapping[str, int | None]
    ) -> None:
        """Write each file (None: delete it) in one durable, all-or-nothing write; each key of ``expect`` must be at
        that version (None: absent) first, else :class:`FileConflict` and nothing is written."""
        ...

    async def proposals(self, owner: Owner) -> list[FileProposal]:
        """Every proposal of the owner, oldest first."""
        ...

    async def propose(self, owner: Owner, proposals: Sequence[FileProposal]) -> None:
        """Store proposals durably, each replacing any under its id."""
        ...

    async def settle(
        self,
        owner: Owner,
        proposal_id: str,
        changes: Mapping[str, MemoryFile | None] | None = None,
        expect: Mapping[str, int | None] | None = None,
    ) -> FileProposal | None:
        """Remove a proposal and, in the same durable write, make ``changes`` (its approval) with ``expect`` checked
        as :meth:`commit` checks it; None when the proposal is not there (nothing written)."""
        ...

    async def count(self, owner: Owner) -> int:
        """Files and proposals of the owner (directory markers not counted)."""
        ...

    async def forget(self, owner: Owner) -> int:
        """Delete every file, marker and proposal of the owner; returns how many files and proposals there were."""
        ...

    async def aclose(self) -> None: ...
