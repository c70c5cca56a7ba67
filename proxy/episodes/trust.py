"""One request's view of its session's provenance: what the client sent, widened by what the upstream brought in.

The session is noted while the upstream works on the request (:meth:`EpisodeService.observe`), which taints it when
the conversation shows an untrusted tool, a result whose call is not in sight or content the proxy cannot read. The
tool loop widens it as the answer comes: a hop that ran a hosted or server tool (``brought``), a ``memory_retrieve``
of an untrusted detail. Each new taint is written to the store every replica and process reads
(:mod:`proxy.memory.session_state`), and so is the chain link of every answer of an untrusted session; the answer
waits for both (:meth:`SessionTrust.settle`), so the client's next request, wherever it lands and however long
after, finds them. A memory write asks :meth:`SessionTrust.checked`: the session as this process knows it, and as
the store does when this process holds it trusted (another replica tainted it, or this one let it go under load).
A store that cannot say is a failed write, never a trusted one. Evicting a session forgets nothing of its taint.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ..memory.caller import Identity
from ..memory.provenance import Provenance
from ..memory.session_state import SessionState
from .sessions import ChainLink, Session, SessionTracker

log = logging.getLogger("proxy.episodes")


class SessionTrust:
    """A request's session provenance: taken once the session is noted (``take``), then read live."""

    __slots__ = ("_take", "_session", "tracker", "shared", "caller", "session_id", "_pending", "_checked", "_tasks")

    def __init__(
        self,
        tracker: SessionTracker,
        shared: SessionState,
        caller: Identity,
        session_id: str,
        take: Callable[[], Session],
        tasks: set[asyncio.Task[None]],
    ) -> None:
        self.tracker = tracker
        self.shared = shared
        self.caller = caller
        self.session_id = session_id
        self._take: Callable[[], Session] | None = take
        self._session: Session | None = None
        self._pending: list[asyncio.Task[None]] = []
        self._checked = False  # the store was asked once already (what it said is in the session now)
        self._tasks = tasks  # the service's: shutdown waits for a write under way

    @property
    def owner(self) -> tuple[str, str]:
        return (self.caller.user, self.caller.workspace)

    def session(self) -> Session:
        """The session, noted now if the upstream call has not taken it yet; a note that failed fails again here,
        never reading as trusted."""
        if self._session is None:
            assert self._take is not None
            self._session = self._take()
            self._take = None
            self._share_taint()  # tainted by what the client sent: shared from now on
        return self._session

    def __call__(self) -> Provenance:
        return self.session().provenance

    def saw(self, names: Iterable[str]) -> None:
        """The session took in what tools ``names`` brought (the upstream ran them, or a detail said so)."""
        names = tuple(names)
        if names and self.tracker.taint(self.session(), names):
            self._share_taint()

    async def checked(self) -> Provenance:
        """The provenance a memory write carries: this process's, and the store's when this one holds it trusted."""
        session = self.session()
        if not session.provenance.untrusted and not self._checked:
            sources = await self.shared.taint(self.owner, self.session_id)  # StoreUnavailable: the write fails
            self._checked = True
            self.tracker.taint(session, sources)
            if set(session.provenance.sources) <= set(sources):
                session.shared = session.provenance.sources  # the store holds them all: nothing to write back
        return session.provenance

    def settle(self, brought: Iterable[str] = (), link: ChainLink | None = None) -> Awaitable[None] | None:
        """The answer is about to reach the client: what its hops ``brought`` taints the session, the ``link`` a
        later request may chain from is noted (and shared, when the session is untrusted); returns what the answer
        must wait for first, None when there is nothing."""
        self.saw(brought)
        session = self.session()
        if link is not None and link.client:
            self.tracker.link(self.caller.user, self.caller.workspace, self.session_id, link)
            if session.provenance.untrusted:
                shared = {**link.to_json(self.session_id), "sources": list(session.provenance.sources)}
                self._write(self.shared.put_link(self.owner, link.client, shared), "chain link")
        pending = [task for task in self._pending if not task.done()]
        self._pending = []
        return _all(pending) if pending else None

    def _share_taint(self) -> None:
        """Write the session's sources to the store, once per new source this process learnt (not per request)."""
        session = self._session
        assert session is not None
        sources = session.provenance.sources
        if sources and sources != session.shared:
            session.shared = sources
            self._write(self.shared.add_taint(self.owner, self.session_id, sources), "taint")

    def _write(self, write: Any, what: str) -> None:
        task = asyncio.ensure_future(_logged(write, what, self.session_id))
        self._pending.append(task)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _logged(write: Awaitable[None], what: str, session: str) -> None:
    """A failed write costs the other replicas the news (this process keeps the taint), never the answer."""
    try:
        await write
    except Exception as exc:  # noqa: BLE001 - the answer goes on; this process still holds the session untrusted
        log.warning("session %s: its %s was not shared: %s", session, what, getattr(exc, "message", None) or exc)


async def _all(tasks: list[asyncio.Task[None]]) -> None:
    await asyncio.shield(asyncio.gather(*tasks))
