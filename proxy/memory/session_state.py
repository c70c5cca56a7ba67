"""Where the per-session state that must outlive one request lives: each session's frozen block and notes, and the
memory calls of mixed turns kept for the client's follow-up (:mod:`proxy.tools.hidden`).

One process keeps it in memory, and that is all the files backend needs. Replicas behind a load balancer on one
PostgreSQL share it through the database (:mod:`.backends.pg_sessions`), so a session whose requests land on
different replicas gets the same block byte for byte, and a follow-up finds the turn another replica kept.

The request path stays in memory: a replica reads a session's state only when it holds none, or a notification
said another replica changed it (``fresh``); it writes only when the state changes (a block chosen, a note added,
a turn kept), never per request.
"""

from __future__ import annotations

from typing import Any, Protocol

SessionKey = tuple[str, ...]  # (user, workspace, session)
State = dict[str, Any]  # JSON: what Recall.export gives and Recall.adopt takes


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

    async def count(self, owner: tuple[str, str]) -> tuple[int, int]:
        """The owner's shared session states and kept turns: what ``forget`` would delete now."""
        ...

    async def forget(self, owner: tuple[str, str]) -> tuple[int, int]:
        """Delete every session's state of the owner (forget-all); returns how many states and kept turns went."""
        ...

    async def aclose(self) -> None: ...


class InProcessSessionState:
    """One process: Recall's and HiddenTurns' own memory is the state, so there is nothing to share."""

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
        return 0, 0

    async def aclose(self) -> None:
        return None
