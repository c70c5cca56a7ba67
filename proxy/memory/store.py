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
        """Store new versions of existing memories (use counts, edits) in one write; returns the ids still there."""
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

    async def delete(self, owner: Owner, ids: Collection[str]) -> list[str]:
        """Remove memories for good; returns the ids that were there."""
        ...

    async def aclose(self) -> None: ...
