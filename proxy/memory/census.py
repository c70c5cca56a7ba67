"""What the store holds, owner by owner: the counts an admin sees, and what waits for review. No I/O here.

A :class:`Census` answers without building any owner's index (the chat path's caches stay as they are): the files
backend keeps per-owner counts keyed by the files' stamps and re-reads only what changed; PostgreSQL counts in
SQL, the held ones through partial indexes. Whose counts a caller may see is a :class:`UserScope`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Protocol

from .store import Owner


@dataclass(frozen=True, slots=True)
class Tally:
    """One owner's (a user in a workspace, or user-wide: ``workspace`` None) counts."""

    memories: int = 0  # live and not held: what blocks and searches may show
    held: int = 0  # live, written by an untrusted session, waiting for a person's approval
    pinned: int = 0  # live pinned facts, held ones not counted
    superseded: int = 0  # earlier wordings kept beside the memories that replaced them
    episodes: int = 0  # every episode, held ones included
    held_episodes: int = 0  # untrusted episodes not approved yet
    history: int = 0  # conversation lines kept
    details: int = 0  # offloaded tool outputs
    files: int = 0  # memory files (Anthropic's memory tool) and the changes to them waiting for approval

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Tally)))

    @property
    def empty(self) -> bool:
        return self == Tally()

    def to_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(Tally)}


def total(tallies: Iterable[Tally]) -> Tally:
    summed = Tally()
    for tally in tallies:
        summed += tally
    return summed


@dataclass(frozen=True, slots=True)
class UserScope:
    """Whose data a caller may count: everyone (an admin), named users, and users under a prefix (a service key's
    end users, ``svc:<key id>:``)."""

    everyone: bool = False
    users: frozenset[str] = frozenset()
    prefix: str | None = None

    def covers(self, user: str | None) -> bool:
        if user is None:  # global memories: an admin's to review
            return self.everyone
        return self.everyone or user in self.users or (self.prefix is not None and user.startswith(self.prefix))


EVERYONE = UserScope(everyone=True)


@dataclass(frozen=True, slots=True)
class Held:
    """What waits for a person's review: held memories, untrusted episodes not approved yet, and changes to memory
    files held as proposals. One shape for both counts: the census's over a scope of users (``GET /memory/held``, an
    admin's navigation) and a caller's own (:meth:`MemoryService.held_count` with
    :meth:`FileService.held_count`, everyone else's navigation)."""

    memories: int = 0
    episodes: int = 0
    files: int = 0  # file proposals (Anthropic's memory tool's writes from untrusted sessions)

    @property
    def total(self) -> int:
        return self.memories + self.episodes + self.files

    def to_json(self) -> dict[str, int]:
        return {"memories": self.memories, "episodes": self.episodes, "files": self.files, "total": self.total}


@dataclass(frozen=True, slots=True)
class Schema:
    """Which layout a store is in: PostgreSQL's migrations applied, or the files store's layout."""

    backend: str  # files | postgres
    version: str  # the newest migration applied, or the files layout (files-<n>)
    expected: str  # what this memproxy writes
    applied: tuple[str, ...] = ()  # PostgreSQL: every migration applied, in order

    @property
    def current(self) -> bool:
        return self.version == self.expected

    def to_json(self) -> dict[str, object]:
        return {
            "backend": self.backend,
            "version": self.version,
            "expected": self.expected,
            "current": self.current,
            "applied": list(self.applied),
        }


class Census(Protocol):
    """Counts over every owner of a store. Every method may raise :class:`StoreUnavailable`."""

    async def tallies(self) -> dict[Owner, Tally]:
        """Every named owner with anything stored (memories, episodes, history, details, files: an empty tally is left
        out);
        ``GLOBAL`` too when it holds memories."""
        ...

    async def workspaces(self, user: str) -> set[str | None]:
        """The workspaces the user has anything stored in (None: their user-wide memories), shared session state
        included."""
        ...

    async def held(self, scope: UserScope) -> Held:
        """How many memories and episodes of the users in ``scope`` wait for review; fast (the console's every
        page asks)."""
        ...

    async def held_by_owner(self, scope: UserScope) -> dict[Owner, Held]:
        """The same, owner by owner (``GLOBAL`` for an admin's scope), only owners with something waiting; as fast
        (an admin's review queue says where else something waits)."""
        ...

    async def unnamed(self) -> list[str]:
        """Owners whose names the store does not know (a files store's directories written before names were
        recorded, and named by nothing else in it); their data is counted nowhere else."""
        ...

    async def schema(self) -> Schema: ...

    async def aclose(self) -> None: ...
