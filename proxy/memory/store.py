"""The storage contract every backend meets, and who owns a memory.

A memory belongs to an :class:`Owner`: a (user, workspace) pair, the user across workspaces
(``scope: user``), or everyone (``scope: global``). Backends only ever see owners, never
requests, so isolation is decided in one place (:func:`owners_visible_to`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .ranking import MemoryIndex
from .records import Embedding, Memory, MemoryDraft
from .revisions import Revision
from .versions import Actor


@dataclass(frozen=True, slots=True)
class Owner:
    user: str | None  # None: global memories
    workspace: str | None  # None: the user's memories that follow them across workspaces

    @property
    def label(self) -> str:
        if self.user is None:
            return "global"
        return f"{self.user}/{self.workspace}" if self.workspace is not None else f"{self.user}/*"


GLOBAL = Owner(None, None)


def owner_for_scope(user: str, workspace: str, scope: str) -> Owner:
    if scope == "global":
        return GLOBAL
    if scope == "user":
        return Owner(user, None)
    return Owner(user, workspace)


def prune_order(memory: Memory) -> tuple[bool, float, int]:
    """Which memories a store past ``max_total`` removes first: superseded and held ones (so an untrusted
    session's writes never push trusted ones out), then the oldest. Every backend sorts by it."""
    return memory.live and not memory.held, memory.created, memory.number


def owners_visible_to(user: str, workspace: str) -> tuple[Owner, Owner, Owner]:
    """Whose memories a caller may read: their workspace's, their own user-wide ones, and global ones."""
    return Owner(user, workspace), Owner(user, None), GLOBAL


class MemoryStore(Protocol):
    """Async storage of memories per owner. Every method may raise :class:`StoreUnavailable`."""

    async def view(self, owner: Owner) -> MemoryIndex:
        """The owner's memories as of now. Read-only for callers; fast when nothing changed."""
        ...

    def cached(self, owner: Owner) -> MemoryIndex | None:
        """The owner's memories if they are known to be current without any waiting, else None (call ``view``)."""
        ...

    async def add(
        self, owner: Owner, draft: MemoryDraft, *, max_total: int, supersedes: Collection[str] = ()
    ) -> Memory:
        """Store a new memory under a fresh id, durably, first pruning the owner's oldest past ``max_total``.

        The live memories named in ``supersedes`` get ``superseded_by`` the new id in the same write.
        """
        ...

    async def add_many(self, owner: Owner, drafts: Sequence[MemoryDraft], *, max_total: int) -> list[Memory]:
        """Store new memories (an import) in one durable write, in order, under fresh ids.

        Then the owner's oldest (superseded first) past ``max_total`` are pruned, the new ones included: a
        batch larger than ``max_total`` keeps its newest.
        """
        ...

    async def replace(self, owner: Owner, memories: Collection[Memory]) -> list[str]:
        """Store existing memories as given, in one write, making no version (a fix-up that belongs to a change
        already recorded: an import's links); returns the ids still there. Changes go through ``revise``."""
        ...

    async def revise(
        self, owner: Owner, revisions: Sequence[Revision], *, max_total: int | None = None
    ) -> list[Memory]:
        """Make each revision a new version in one durable write, its previous version archived in the same write.

        All or nothing: a stale ``expect`` raises :class:`VersionMismatch`, and a memory that is not there (deleted
        meanwhile) makes the answer ``[]``; either way nothing is written. A ``restored`` revision of a deleted
        memory whose history is kept brings it back under its id (pruning past ``max_total`` as an add does). A
        revision that changes nothing a version holds is answered with the stored record, no version made.
        """
        ...

    async def history(self, owner: Owner, memory_id: str) -> list[Memory]:
        """The memory's versions, newest first (:func:`~proxy.memory.versions.history`): the current record, or
        the tombstone of a deleted one whose history is kept, then those before; [] when there is none."""
        ...

    async def count_uses(self, owner: Owner, uses: Mapping[str, tuple[int, float]]) -> None:
        """Add ``uses[id] = (times, last_used)`` to memories' use counts, on their current versions (never undoing
        a supersede or edit made meanwhile); ids no longer there are skipped."""
        ...

    async def count_injected(self, owner: Owner, injected: Mapping[str, tuple[int, float]]) -> None:
        """Add ``injected[id] = (sessions, last_injected)`` to memories' injection counts, as ``count_uses`` adds use
        counts: on their current versions, ids no longer there skipped. Bookkeeping: never a new version."""
        ...

    async def set_embeddings(self, owner: Owner, embeddings: Mapping[str, Embedding]) -> None:
        """Give memories their embeddings (computed after they were written), on their current versions (never
        undoing a supersede or a use count written meanwhile); ids no longer there are skipped."""
        ...

    async def delete(
        self,
        owner: Owner,
        ids: Collection[str],
        *,
        actor: Actor | None = None,
        expect: Mapping[str, Collection[int]] | None = None,
    ) -> list[str]:
        """Remove memories; returns the ids that were there. Each leaves a ``deleted`` version (a tombstone, by
        ``actor``) in its history, so it can be restored (the owner's newest ``KEPT_DELETED`` deletes).

        ``expect`` (id -> versions) is checked in the write: a stale one raises :class:`VersionMismatch` and
        nothing is deleted."""
        ...

    async def forget(self, owner: Owner) -> list[str]:
        """Remove every memory of the owner and every version, deleted memories' included; returns the ids that
        were there."""
        ...

    async def aclose(self) -> None: ...
