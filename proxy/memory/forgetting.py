"""When each owner last forgot everything, known to every process and replica, so that forgetting reaches them all.

forget-all deletes what the store holds; what other processes hold (live sessions, kept hidden turns, history
queued for the next write, frozen blocks) and what a client sends again afterwards (its whole conversation, as
clients do) would bring it back. So forget-all first records a *forgotten-before* time for the owner in the store;
every process learns it (polling the store's version, as the key ring does) and drops what it holds of the owner,
and from then on nothing said before it is kept: a history line written later is refused by its time, a session
that began before it yields no episode, and a conversation first seen after it keeps only what is said from then on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

from ..errors import StoreUnavailable

log = logging.getLogger("proxy.memory")

REFRESH_S = 0.25
OwnerKey = tuple[str, str]  # user, workspace
Forgot = Callable[[OwnerKey, float], object]  # what it returns is ignored


class ForgetStore(Protocol):
    async def mark(self, user: str, workspace: str, before: float) -> None:
        """Record that the owner forgot everything said before ``before`` (a later mark wins)."""
        ...

    async def marks(self) -> dict[OwnerKey, float]:
        """Every owner's latest mark."""
        ...

    async def version(self) -> object:
        """Changes whenever a mark is written; cheap, so processes can poll it."""
        ...

    async def aclose(self) -> None: ...


class Forgetting:
    """Every owner's forgotten-before time, as of the store's latest version; subscribers hear of new ones."""

    def __init__(self, store: ForgetStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self._clock = clock
        self._before: dict[OwnerKey, float] = {}
        self._version: object = object()  # matches nothing: the first refresh reads
        self._subscribers: list[Forgot] = []
        self._task: asyncio.Task[None] | None = None

    def before(self, user: str, workspace: str) -> float:
        """Everything of the owner's said before this time is forgotten (0.0: never)."""
        return self._before.get((user, workspace), 0.0)

    def subscribe(self, forgot: Forgot) -> None:
        """Call ``forgot(owner, before)`` whenever an owner forgets, in this process or any other."""
        self._subscribers.append(forgot)

    async def mark(self, user: str, workspace: str) -> float:
        """The owner forgets now: written to the store first (so other processes learn it), then applied here."""
        now = self._clock()
        await self.store.mark(user, workspace, now)
        self._apply({(user, workspace): now})
        return now

    async def refresh(self) -> None:
        version = await self.store.version()
        if version == self._version:
            return
        marks = await self.store.marks()
        self._version = version
        self._apply(marks)

    def _apply(self, marks: dict[OwnerKey, float]) -> None:
        for owner, before in marks.items():
            if before <= self._before.get(owner, 0.0):
                continue
            self._before[owner] = before
            for forgot in list(self._subscribers):
                try:
                    forgot(owner, before)
                except Exception:  # noqa: BLE001 - one subscriber's failure must not keep the others holding data
                    log.exception("dropping what this process held of a forgotten owner failed")

    async def start(self) -> None:
        with contextlib.suppress(StoreUnavailable):
            await self.refresh()
        if self._task is None:
            self._task = asyncio.create_task(self._poll(), name="memproxy-forgetting")

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            try:
                await self.refresh()
            except StoreUnavailable as exc:
                log.warning("could not read forget-all marks (will retry): %s", exc.message)
            except Exception:  # noqa: BLE001 - the poller outlives any one failure
                log.exception("reading forget-all marks failed")

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.store.aclose()


class InProcessForgetStore:
    """Marks in this process only: for a service built without a store of them (tests, one-off tools)."""

    def __init__(self) -> None:
        self._marks: dict[OwnerKey, float] = {}
        self._version = 0

    async def mark(self, user: str, workspace: str, before: float) -> None:
        owner = (user, workspace)
        self._marks[owner] = max(before, self._marks.get(owner, 0.0))
        self._version += 1

    async def marks(self) -> dict[OwnerKey, float]:
        return dict(self._marks)

    async def version(self) -> object:
        return self._version

    async def aclose(self) -> None:
        """Nothing held open."""
