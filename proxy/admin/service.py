"""One way in to managing the store, for the API, the console and anything else: each method checks its caller.

Admins only: keys, forgetting a user, store health. Anyone: the users they may see (an admin everyone, a service
key its own user and its end users, anyone else themself) and how much of theirs waits for review.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from ..auth.key_service import KeyService, NewKey
from ..auth.keys import KeyRing
from ..episodes.service import EpisodeService
from ..logs import RecentProblems
from ..memory.caller import Identity
from ..memory.census import EVERYONE, Census, Held
from ..memory.keys import KeyRecord
from ..memory.store import Owner
from .forgetting import Forgetting, UserForgetting, check_user
from .health import Queue, StoreHealth
from .scope import name_for, require_admin, scope_of
from .users import UserSummary, summarize


class AdminService:
    def __init__(
        self,
        *,
        keys: KeyService,
        census: Census,
        episodes: EpisodeService,
        forgetting: UserForgetting,
        problems: RecentProblems,
        ring: KeyRing | None = None,
    ) -> None:
        self.keys = keys
        self.census = census
        self.episodes = episodes
        self.forgetting = forgetting
        self.problems = problems  # the process's recent warnings and errors
        self.ring = ring  # auth.mode keys: knows a service key's own user without a store read

    # -- keys (admins) --------------------------------------------------------------------------------------

    async def list_keys(self, caller: Identity) -> list[KeyRecord]:
        require_admin(caller, "listing keys")
        return await self.keys.list()

    async def create_key(self, caller: Identity, user: str, kind: str = "personal") -> NewKey:
        require_admin(caller, "creating a key")
        return await self.keys.create(user, kind)

    async def revoke_key(self, caller: Identity, key_id: str) -> KeyRecord:
        require_admin(caller, "revoking a key")
        return await self.keys.revoke(key_id)

    # -- users ------------------------------------------------------------------------------------------------

    async def users(self, caller: Identity) -> list[UserSummary]:
        """The users the caller may see, each with their workspaces and counts."""
        scope = scope_of(caller, self._service_user(caller))
        tallies, keys = await asyncio.gather(self.census.tallies(), self.keys.list())
        sessions = Counter((session.user, session.workspace) for session in self.episodes.sessions)
        active = Counter(record.user for record in keys if record.active)
        return summarize(tallies, sessions, active, scope, lambda user: name_for(caller, user))

    async def held(self, caller: Identity) -> Held:
        """How many memories and episodes wait for review in the caller's scope (the console's every page)."""
        return await self.census.held(scope_of(caller, self._service_user(caller)))

    async def held_by_owner(self, caller: Identity) -> dict[Owner, Held]:
        """The same, by owner (a user in a workspace, user-wide, ``GLOBAL``): where something waits. Owners as the
        store names them."""
        return await self.census.held_by_owner(scope_of(caller, self._service_user(caller)))

    # -- forgetting a user (admins) -------------------------------------------------------------------------

    async def forget_preview(self, caller: Identity, user: str) -> Forgetting:
        require_admin(caller, "forgetting a user")
        check_user(user)
        return await self.forgetting.preview(user, keys=await self._keys_of(user))

    async def forget_user(self, caller: Identity, user: str) -> Forgetting:
        require_admin(caller, "forgetting a user")
        check_user(user)
        return await self.forgetting.forget(user, keys=await self._keys_of(user))

    # -- store health (admins) ------------------------------------------------------------------------------

    async def health(self, caller: Identity) -> StoreHealth:
        require_admin(caller, "the store's health")
        jobs = self.episodes.jobs
        schema, tallies, held, unnamed, waiting, running = await asyncio.gather(
            self.census.schema(),
            self.census.tallies(),
            self.census.held(EVERYONE),
            self.census.unnamed(),
            jobs.all(),
            jobs.running(),
        )
        return StoreHealth(schema, Queue.of(waiting, running), held, tallies, unnamed, self.problems.entries())

    # -- lifetime -------------------------------------------------------------------------------------------

    async def aclose(self) -> None:
        await self.census.aclose()
        await self.keys.aclose()

    def _service_user(self, caller: Identity) -> str | None:
        if caller.key_kind != "service" or caller.key_id is None or self.ring is None:
            return None
        record = self.ring.active(caller.key_id)
        return record.user if record is not None else None

    async def _keys_of(self, user: str) -> int:
        return sum(1 for record in await self.keys.list() if record.user == user)
