"""Per-owner views of PostgreSQL rows held in memory, kept current across processes by versions and notifications.

Ranking reads these views, never the database: a request costs no query while its owner's view is trusted.

- Each owner has a version in ``owner_versions``, bumped by every write in its transaction; the view holds
  the version it reflects. ``view`` asks the database for the version (one indexed lookup, joined with what
  changed since, so catching up is the same query) and is exact; ``cached`` answers from memory alone.
- ``cached`` trusts a view while the process's listener has been up since the view was checked and no
  notification has announced a newer version. A notification also starts a catch-up in the background, so
  the next request finds the view current: a change committed by any replica reaches every other one's
  cache within a few milliseconds (the notification's trip and one query).
- A write runs in one transaction: bump the version (which locks the owner's row, serialising writers of
  one owner across processes), change rows, notify. When the view was current just before, the write's own
  change is applied to it; otherwise what changed is read inside the transaction. Either way the view is
  exact as of the write once it commits, with no further query.

Views are changed only on the event loop, under the owner's lock. At most ``MAX_CACHED_OWNERS`` are kept.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import asyncpg
import orjson

from ..store import Owner
from .postgres import CHANNEL, Database, tag_of

log = logging.getLogger("proxy.memory")

V = TypeVar("V")
R = TypeVar("R")
T = TypeVar("T")
MAX_CACHED_OWNERS = 256
CATCH_UP_ROUNDS = 3  # reads in a row while notifications keep coming, before leaving the rest to the next view

Change = Callable[[V], V]  # turns the view's value into the new one (in place or not)


def owner_key(owner: Owner) -> str:
    """Unambiguous, whatever the names hold: a JSON array of user and workspace (null for none)."""
    return orjson.dumps([owner.user, owner.workspace]).decode()


@dataclass(frozen=True, slots=True)
class Written(Generic[V, R]):
    """What a write did: its result, whether it changed anything (else it is rolled back), whether it removed
    rows (readers behind it read everything again), and its change to a view that was current before it."""

    result: R
    changed: bool = True
    removed: bool = False
    change: Change[V] | None = None


# (connection, owner key, the version the view holds: -1 for none) -> (current version, change or None)
Fetch = Callable[[asyncpg.Connection, str, int], Awaitable[tuple[int, Change[V] | None]]]
Work = Callable[[asyncpg.Connection, int], Awaitable[Written[V, R]]]


@dataclass(eq=False)
class _View(Generic[V]):
    key: str
    tag: str
    value: V
    version: int = -1  # what `value` reflects; -1: never read
    noted: int = 0  # the newest version a notification announced
    epoch: int = -1  # the listener epoch `version` was checked in
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    refreshing: asyncio.Future[None] | None = None

    @property
    def busy(self) -> bool:
        return self.lock.locked() or self.refreshing is not None


class _Unchanged(Exception):  # noqa: N818 - a signal, not an error: rolls a write back that changed nothing
    def __init__(self, result: object) -> None:
        self.result = result


class OwnerViews(Generic[V]):
    def __init__(self, database: Database, kind: str, *, empty: Callable[[], V], fetch: Fetch[V]) -> None:
        self.db = database
        self.kind = kind
        self._empty = empty
        self._fetch = fetch
        self._views: OrderedDict[Owner, _View[V]] = OrderedDict()
        self._by_tag: dict[str, _View[V]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        database.subscribe(kind, self._notified)

    def cached(self, owner: Owner) -> V | None:
        view = self._views.get(owner)
        if view is None or view.version < 0 or view.noted > view.version or not self.db.trusts(view.epoch):
            return None
        self._views.move_to_end(owner)
        return view.value

    async def view(self, owner: Owner) -> V:
        view = self._view(owner)
        if view.refreshing is None:
            view.refreshing = self._start(self._read(view))
        # Shielded: a caller that stops waiting (deadline, disconnect) leaves the read to finish for the next.
        await asyncio.shield(view.refreshing)
        return view.value

    async def write(self, owner: Owner, work: Work[V, R]) -> R:
        """Run ``work(conn, version)`` in a transaction that owns the owner's next version. Shielded, so a
        caller going away never leaves a committed write out of the view."""
        view = self._view(owner)

        async def run() -> R:
            async with view.lock:
                await self.db.start()  # listening from here on
                epoch = self.db.epoch if self.db.listening else -1
                async with self.db.transaction() as conn:
                    version = await conn.fetchval(
                        "INSERT INTO owner_versions (kind, owner_key, version) VALUES ($1, $2, 1)"
                        " ON CONFLICT (kind, owner_key) DO UPDATE SET version = owner_versions.version + 1"
                        " RETURNING version",
                        self.kind,
                        view.key,
                    )
                    written = await work(conn, version)
                    if not written.changed:
                        raise _Unchanged(written.result)
                    if written.removed:
                        await conn.execute(
                            "UPDATE owner_versions SET reset = version WHERE kind = $1 AND owner_key = $2",
                            self.kind,
                            view.key,
                        )
                    await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{self.kind}:{view.tag}:{version}")
                    change = written.change
                    if view.version == version - 1 and change is not None:
                        epoch = view.epoch  # current before, and it is still: it heard of everything meanwhile
                    else:
                        _, change = await self._fetch(conn, view.key, view.version)
                if change is not None:
                    view.value = change(view.value)
                view.version, view.epoch = version, epoch
                return written.result

        try:
            return await asyncio.shield(self._start(run()))
        except _Unchanged as unchanged:
            return cast(R, unchanged.result)

    async def aclose(self) -> None:
        self.db.unsubscribe(self.kind, self._notified)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._views.clear()
        self._by_tag.clear()

    # -- internals ------------------------------------------------------------------------------------------

    def _view(self, owner: Owner) -> _View[V]:
        view = self._views.get(owner)
        if view is not None:
            self._views.move_to_end(owner)
            return view
        key = owner_key(owner)
        view = self._views[owner] = _View(key, tag_of(key), self._empty())
        self._by_tag[view.tag] = view
        for old in list(self._views)[: max(0, len(self._views) - MAX_CACHED_OWNERS)]:
            if not self._views[old].busy:
                self._by_tag.pop(self._views.pop(old).tag, None)
        return view

    def _start(self, work: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        """Run ``work`` as a task of its own, which ``aclose`` waits for (its waiters may all have gone)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_quiet)
        return task

    async def _read(self, view: _View[V]) -> None:
        """Catch the view up, and again while notifications that came meanwhile announce newer versions."""
        try:
            for _ in range(CATCH_UP_ROUNDS):
                await self._refresh(view)
                if view.noted <= view.version:
                    return
        finally:
            view.refreshing = None

    async def _refresh(self, view: _View[V]) -> None:
        async with view.lock:
            await self.db.start()  # listening from here on
            # Read before the query: a listener lost while it runs leaves this epoch behind, untrusted.
            epoch = self.db.epoch if self.db.listening else -1
            async with self.db.connection() as conn:
                version, change = await self._fetch(conn, view.key, view.version)
            if change is not None:
                view.value = change(view.value)
            view.version, view.epoch = version, epoch

    def _notified(self, tag: str, version: int) -> None:
        view = self._by_tag.get(tag)
        if view is None or version <= view.version:
            return  # not held here, or our own write
        view.noted = max(view.noted, version)
        if view.refreshing is None:  # read it now, so the next request finds the view trusted
            view.refreshing = self._start(self._read(view))


def _quiet(task: asyncio.Future[Any]) -> None:
    """A task nobody waits for any more that failed: a read is tried again (and reported) by the next ``view``,
    a write was reported to its caller if it still waited."""
    if not task.cancelled() and not isinstance(task.exception(), _Unchanged | None):
        log.debug("a PostgreSQL store task failed", exc_info=task.exception())
