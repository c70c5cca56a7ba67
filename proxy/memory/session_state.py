"""Where the per-session state that must outlive one request lives: each session's frozen block and notes, and the
memory calls of mixed turns kept for the client's follow-up (:mod:`proxy.tools.hidden`).

One process keeps it in memory, and that is all the files backend needs. Replicas behind a load balancer on one
PostgreSQL share it through the database (:mod:`.backends.pg_sessions`), so a session whose requests land on
different replicas gets the same block byte for byte, and a follow-up finds the turn another replica kept.

The request path stays in memory: a replica reads a session's state only when it holds none, or a notification
said another replica changed it (``fresh``); it writes only when the state changes (a block chosen, a note added,
a turn kept), never per request.

Provenance lives here too, on every backend, for as long as a conversation can be continued (``TRUST_TTL_S``): a
session's *taint* (the untrusted sources it took in) and the *chain links* of untrusted sessions' answers (which
session a ``previous_response_id`` continues, and the calls that answer made). A replica, a restarted process or one
that let the session go under load reads them back: evicting state never makes a session trusted
(:mod:`proxy.episodes.trust`). The files backend keeps them in a file per owner, safe for several processes on one
machine (:mod:`.backends.trust_files`); PostgreSQL in two tables (:mod:`.backends.pg_sessions`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

SessionKey = tuple[str, ...]  # (user, workspace, session)
State = dict[str, Any]  # JSON: what Recall.export gives and Recall.adopt takes
# How long a session's taint and its chain links are kept after their last write: as long as a chain can be
# continued (OpenAI keeps a stored response 30 days by default).
TRUST_TTL_S = 30 * 24 * 3600.0
MAX_SOURCE_CHARS = 200  # a source is a tool name the client chose: stored cut to this, NUL-free


class SessionState(Protocol):
    """The shared copy of sessions' state; Recall and HiddenTurns hold the working copy in memory."""

    shared: bool  # False: nothing to read or write, the process's memory is the only copy

    def fresh(self, key: SessionKey) -> bool:
        """The working copy of this session, if any, is current: nothing another replica wrote since it was read."""
        ...

    async def get(self, key: SessionKey) -> State | None: ...

    async def put(self, key: SessionKey, state: State) -> None: ...

    def announced(self, owner: tuple[str, str], session: str) -> bool:
        """Another replica kept a turn of this session that this one has not read yet."""
        ...

    async def kept_turns(self, owner: tuple[str, str], session: str) -> dict[str, Any]:
        """call id -> the kept turn's JSON, for every unexpired turn of the session."""
        ...

    async def keep_turn(self, owner: tuple[str, str], session: str, call_ids: list[str], turn: Any) -> None: ...

    async def add_taint(self, owner: tuple[str, str], session: str, sources: Sequence[str]) -> None:
        """The session took in untrusted content from ``sources``: kept with those it had, durably, before it
        returns (the answer that brought it in waits for it)."""
        ...

    async def taint(self, owner: tuple[str, str], session: str) -> tuple[str, ...]:
        """Every untrusted source the session took in on any replica, sorted; () when none."""
        ...

    async def put_link(self, owner: tuple[str, str], response_id: str, link: dict[str, Any]) -> None:
        """An untrusted session's answer a later request may chain from (:meth:`ChainLink.to_json`)."""
        ...

    async def get_link(self, owner: tuple[str, str], response_id: str) -> dict[str, Any] | None: ...

    async def count(self, owner: tuple[str, str]) -> tuple[int, int]:
        """The owner's shared session states and kept turns: what ``forget`` would delete now."""
        ...

    async def forget(self, owner: tuple[str, str]) -> tuple[int, int]:
        """Delete every session's state of the owner (forget-all), its taints and chain links too; returns how many
        states and kept turns went."""
        ...

    async def aclose(self) -> None: ...


def clean_sources(sources: Sequence[str]) -> list[str]:
    """Sources as stored: NUL-free (PostgreSQL's text refuses it), cut to ``MAX_SOURCE_CHARS``, sorted, unique."""
    return sorted({str(source).replace("\x00", "")[:MAX_SOURCE_CHARS] for source in sources})


class TrustMemory:
    """Taints and chain links in this process's memory: what :class:`InProcessSessionState` shares (nothing else
    does), bounded so that no caller can grow it without end (the oldest go first)."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self._taints: OrderedDict[tuple[str, str, str], tuple[str, ...]] = OrderedDict()
        self._links: OrderedDict[tuple[str, str, str], dict[str, Any]] = OrderedDict()

    async def add_taint(self, owner: tuple[str, str], session: str, sources: Sequence[str]) -> None:
        key = (*owner, session)
        merged = tuple(clean_sources([*self._taints.pop(key, ()), *sources]))
        self._taints[key] = merged
        _trim(self._taints, self.limit)

    async def taint(self, owner: tuple[str, str], session: str) -> tuple[str, ...]:
        return self._taints.get((*owner, session), ())

    async def put_link(self, owner: tuple[str, str], response_id: str, link: dict[str, Any]) -> None:
        key = (*owner, response_id)
        self._links.pop(key, None)
        self._links[key] = link
        _trim(self._links, self.limit)

    async def get_link(self, owner: tuple[str, str], response_id: str) -> dict[str, Any] | None:
        return self._links.get((*owner, response_id))

    def forget_trust(self, owner: tuple[str, str]) -> None:
        for table in (self._taints, self._links):
            for key in [key for key in table if key[:2] == owner]:
                del table[key]


def _trim(table: OrderedDict[Any, Any], limit: int) -> None:
    while len(table) > limit:
        table.popitem(last=False)


class InProcessSessionState(TrustMemory):
    """One process: Recall's and HiddenTurns' own memory is the state, so there is nothing to share; taints and
    chain links are kept in memory (:class:`TrustMemory`), apart from the sessions a process lets go."""

    shared = False

    def fresh(self, key: SessionKey) -> bool:
        return True

    async def get(self, key: SessionKey) -> State | None:
        return None

    async def put(self, key: SessionKey, state: State) -> None:
        return None

    def announced(self, owner: tuple[str, str], session: str) -> bool:
        return False

    async def kept_turns(self, owner: tuple[str, str], session: str) -> dict[str, Any]:
        return {}

    async def keep_turn(self, owner: tuple[str, str], session: str, call_ids: list[str], turn: Any) -> None:
        return None

    async def count(self, owner: tuple[str, str]) -> tuple[int, int]:
        return 0, 0

    async def forget(self, owner: tuple[str, str]) -> tuple[int, int]:
        self.forget_trust(owner)
        return 0, 0

    async def aclose(self) -> None:
        return None
