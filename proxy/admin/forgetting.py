"""Forgetting a user: everything of theirs in every workspace, on whatever backend, after a preview that counts it.

It is forget-all (``POST /memory/forget-all``) run for each of the user's workspaces, their user-wide memories
once, by the same service methods; the preview counts each kind the way its deletion does (the same owners, the
same records), so what it says is what the deletion then answers. Keys are not revoked: forgetting is about what
was stored, and an admin revokes a key on its own (``DELETE /memory/keys/{id}``).

Kinds (``KINDS``, in this order): memories (superseded wordings included, user-wide ones too), episodes,
extraction jobs not done, history lines, live sessions (this process's), shared session states and kept hidden
turns (PostgreSQL's rows; with the files store, the turns this process keeps), offloaded tool outputs, the memory
tool's files and the changes to them waiting for approval. A kind
added later (memory versions) is one more entry in ``KINDS`` and one more count in the service methods called.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..episodes.service import EpisodeService
from ..errors import InvalidRequest, MemoryNotFound
from ..memory.caller import DEFAULT_WORKSPACE, Identity
from ..memory.census import Census
from ..memory.service import MemoryService
from ..tools.context_tiers import ContextTiers
from ..tools.hidden import HiddenTurns

# The kinds in the order answers list them. Memory versions go in here as "versions", after "memories", counted and
# deleted by MemoryService.forget_preview / forget_counted (which forget-all already calls): nothing else changes.
KINDS = ("memories", "episodes", "jobs", "history", "sessions", "session_state", "kept_turns", "details", "files")
MAX_USER_CHARS = 200


class UserNotFound(MemoryNotFound):
    code = "user_not_found"


@dataclass(frozen=True, slots=True)
class Forgetting:
    """What forgetting ``user`` deletes (a preview) or deleted, by kind."""

    user: str
    workspaces: tuple[str, ...]
    counts: dict[str, int]
    done: bool  # False: a preview, nothing deleted

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": True} if self.done else {}
        return body | {
            "user": self.user,
            "workspaces": list(self.workspaces),
            "counts": self.counts,
            "total": self.total,
            "preview": not self.done,
        }


class UserForgetting:
    def __init__(
        self,
        memory: MemoryService,
        episodes: EpisodeService,
        hidden_turns: HiddenTurns,
        context: ContextTiers,
        census: Census,
    ) -> None:
        self.memory = memory
        self.episodes = episodes
        self.hidden_turns = hidden_turns
        self.context = context
        self.census = census

    async def preview(self, user: str, *, keys: int = 0) -> Forgetting:
        """What :meth:`forget` would delete now. ``keys``: the user's keys (a user with keys but nothing stored is
        known, with nothing to forget; one with neither is a 404)."""
        workspaces = await self.workspaces(user)
        counts: Counter[str] = Counter(dict.fromkeys(KINDS, 0))
        for number, workspace in enumerate(workspaces):
            who = Identity(user, workspace, admin=True)
            memory = await self.memory.forget_preview(who, user_wide=number == 0)
            counts.update(memory)
            counts.update(await self.episodes.forget_preview(who))
            if not self.memory.sessions.shared:  # else the shared rows, counted above, hold them
                counts["kept_turns"] += self.hidden_turns.count((user, workspace))
        return self._answer(user, workspaces, counts, keys, done=False)

    async def forget(self, user: str, *, keys: int = 0) -> Forgetting:
        """Delete everything of ``user``'s, in every workspace; answers how many of each kind went."""
        workspaces = await self.workspaces(user)
        counts: Counter[str] = Counter(dict.fromkeys(KINDS, 0))
        for number, workspace in enumerate(workspaces):
            who = Identity(user, workspace, admin=True)
            # Counted first: forgetting the episodes tells every listener, this process's hidden turns too.
            held_here = self.hidden_turns.count((user, workspace))
            # Episodes first: their jobs go, and a job running now finds its owner forgotten and keeps nothing.
            counts.update(await self.episodes.forget(who))
            counts.update(await self.memory.forget_counted(who, user_wide=number == 0))
            self.context.forget(user, workspace)
            await self.hidden_turns.forget((user, workspace))
            if not self.memory.sessions.shared:  # else the shared rows, counted above, held them
                counts["kept_turns"] += held_here
        return self._answer(user, workspaces, counts, keys, done=True)

    async def workspaces(self, user: str) -> list[str]:
        """Every workspace the user has anything in: stored (the census), a live session, a job waiting."""
        check_user(user)
        found = await self.census.workspaces(user)
        found |= {session.workspace for session in self.episodes.sessions if session.user == user}
        found |= {job.workspace for job in await self.episodes.jobs.all() if job.user == user}
        workspaces = sorted(workspace for workspace in found if workspace is not None)
        if not workspaces and None in found:  # user-wide memories only: forget-all reaches them from any workspace
            workspaces = [DEFAULT_WORKSPACE]
        return workspaces

    @staticmethod
    def _answer(user: str, workspaces: list[str], counts: Counter[str], keys: int, *, done: bool) -> Forgetting:
        if not workspaces and not keys:
            raise UserNotFound(f"nothing of {user!r} is stored here", param="user")
        return Forgetting(user, tuple(workspaces), {kind: counts[kind] for kind in counts}, done)


def check_user(user: str) -> None:
    if not user or len(user) > MAX_USER_CHARS or not user.isprintable():
        raise InvalidRequest(f"a user name is 1-{MAX_USER_CHARS} printable characters", param="user")
