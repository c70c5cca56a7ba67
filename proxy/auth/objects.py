"""Who made which upstream object, known fast: an in-memory map in front of the store's bindings.

Checking a chained Responses request (``previous_response_id``) is a dict lookup, never a store read, for the ids
this process saw made; an id it has not seen (made through another replica) is looked up in the store, and, while
no binding is found, again a few times over a second and a half: the replica that saw it made writes its binding in
the background, and a client quick enough to chain from it elsewhere must not be refused for that. Bindings are
written in batches by one task (what a tenth of a second brings), and pruned (expired, past each user's cap) once
an hour.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from ..errors import StoreUnavailable
from ..memory.objects import ObjectStore, UpstreamObject

log = logging.getLogger("proxy.auth")

CACHED = 200_000  # bindings held in memory (most recent first); older ones are read from the store again
MAX_PENDING = 100_000  # bindings waiting for the store while it fails; past it the oldest are dropped
LOOKUP_WAITS_S = (0.05, 0.1, 0.2, 0.4, 0.8)  # looking again for an id nobody is known to have made yet
PRUNE_EVERY_S = 3600.0
LINGER_S = 0.1  # well inside the lookups' waits: another replica still finds a binding this one just made
RETRY_S = 1.0


class UpstreamObjects:
    def __init__(
        self,
        store: ObjectStore,
        *,
        ttl_s: float,
        per_user: int,
        clock: Callable[[], float] = time.time,
        lookup_waits_s: Sequence[float] = LOOKUP_WAITS_S,
    ) -> None:
        self.store = store
        self.ttl_s = ttl_s
        self.per_user = per_user
        self._clock = clock
        self._waits = tuple(lookup_waits_s)
        self._owners: OrderedDict[str, tuple[str, float]] = OrderedDict()  # id -> (user, bound at)
        self._pending: list[UpstreamObject] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._pruned_at = 0.0

    # -- binding --------------------------------------------------------------------------------------------

    def bind(self, user: str, ids: Iterable[str | None]) -> None:
        """``user`` made these objects (known here at once, in the store soon); an id bound before keeps its owner."""
        now = self._clock()
        for ident in ids:
            if not ident or ident in self._owners:
                continue
            self._remember(ident, user, now)
            self._pending.append(UpstreamObject(ident, user, now))
        if len(self._pending) > MAX_PENDING:
            del self._pending[: len(self._pending) - MAX_PENDING]
        if self._pending:
            self._wake.set()

    def _remember(self, ident: str, user: str, when: float) -> None:
        self._owners[ident] = (user, when)
        if len(self._owners) > CACHED:
            self._owners.popitem(last=False)

    # -- checking -------------------------------------------------------------------------------------------

    def cached(self, ident: str) -> str | None:
        """The owner this process knows of (unexpired), else None."""
        found = self._owners.get(ident)
        if found is None or found[1] < self._clock() - self.ttl_s:
            return None
        return found[0]

    async def first_not_owned(self, user: str, ids: Sequence[str]) -> str | None:
        """The first of ``ids`` that ``user`` did not make (another user's, or nobody's this proxy knows), else None.

        Raises :class:`StoreUnavailable` when an id is not known here and the store cannot be asked.
        """
        unknown = []
        for ident in ids:
            owner = self.cached(ident)
            if owner is None:
                unknown.append(ident)
            elif owner != user:
                return ident
        if not unknown:
            return None
        found = await self._looked_up(unknown)
        for ident in ids:
            if ident in found and found[ident] != user:
                return ident
            if ident not in found and self.cached(ident) != user:
                return ident
        return None

    async def owners(self, ids: Sequence[str]) -> dict[str, str]:
        """The owners known of ``ids`` (cached, else read once from the store); ids nobody made are left out."""
        found = {ident: owner for ident in ids if (owner := self.cached(ident)) is not None}
        missing = [ident for ident in ids if ident not in found]
        if missing:
            found.update(await self._read(missing))
        return found

    async def _looked_up(self, ids: list[str]) -> dict[str, str]:
        found = await self._read(ids)
        for wait in self._waits:
            missing = [ident for ident in ids if ident not in found]
            if not missing:
                break
            await asyncio.sleep(wait)
            found.update(await self._read(missing))
        return found

    async def _read(self, ids: list[str]) -> dict[str, str]:
        now = self._clock()
        found = await self.store.owners(ids, now - self.ttl_s)
        for ident, owner in found.items():
            self._remember(ident, owner, now)  # the binding stands: only its expiry is approximate here
        return found

    # -- the writer -----------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._writer is None:
            self._writer = asyncio.ensure_future(self._write())

    async def flush(self) -> None:
        """Write what is pending now (tests, shutdown)."""
        batch, self._pending = self._pending, []
        if batch:
            try:
                await self.store.bind(batch)
            except BaseException:
                self._pending[:0] = batch
                raise

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(LINGER_S)  # gather a batch: one write (and fsync) for many answers
            self._wake.clear()
            try:
                await self.flush()
                if self._clock() - self._pruned_at > PRUNE_EVERY_S:
                    self._pruned_at = self._clock()
                    dropped = await self.store.prune(self._clock() - self.ttl_s, self.per_user)
                    if dropped:
                        log.info("dropped %d upstream object bindings (expired, or past a user's cap)", dropped)
            except StoreUnavailable as exc:
                log.warning("could not write upstream object bindings (will retry): %s", exc.message)
                await asyncio.sleep(RETRY_S)
                self._wake.set()
            except Exception:  # noqa: BLE001 - the writer outlives any one failure
                log.exception("writing upstream object bindings failed")
                await asyncio.sleep(RETRY_S)
                self._wake.set()

    async def aclose(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        with contextlib.suppress(StoreUnavailable):
            await self.flush()
        await self.store.aclose()
