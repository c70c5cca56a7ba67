"""Upstream objects (stored responses, conversations, files, batches...) bound to the user whose request made them.

With a shared ``upstream.api_key`` every user's objects live in one upstream account, where any id opens any of
them. The proxy records who made each object it saw created (the first binding of an id stands), in the store, so
every process and replica knows; anyone else asking for it gets a 404. Bindings expire (``upstream.object_ttl_days``,
as the upstream's own retention does) and each user keeps at most ``upstream.max_objects_per_user``, oldest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class UpstreamObject:
    id: str  # the upstream's own id: resp_..., conv_..., file-..., msgbatch_...
    user: str  # who made it (memproxy's user: a service's end users are namespaced under the key)
    created: float


class ObjectStore(Protocol):
    """Where bindings live: beside the memories, shared by every process and replica using the store."""

    async def bind(self, objects: Sequence[UpstreamObject]) -> None:
        """Record bindings; an id already bound keeps its first owner."""
        ...

    async def owners(self, ids: Sequence[str], since: float) -> dict[str, str]:
        """Owner by id of those ``ids`` bound at or after ``since`` (older bindings have expired)."""
        ...

    async def prune(self, before: float, per_user: int) -> int:
        """Drop bindings made before ``before`` and each user's past their newest ``per_user``; returns how many."""
        ...

    async def aclose(self) -> None: ...
