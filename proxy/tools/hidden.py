"""Memory calls the client never saw, kept so its next request can carry them again (COMPAT E3).

When one assistant turn calls memory tools and client tools, the client gets only its own calls, and its
follow-up carries only those and their results. Sent on like that, the model would find a turn that lost
some of its calls. So the hidden calls and their results are kept per caller and session, under the ids
of the client calls beside them, and the request's dialect puts them back where they were when the
follow-up comes (:meth:`~proxy.dialects.base.Dialect.restore`). A follow-up the proxy has no record of
(after a restart) is still a valid request: it is sent as the client wrote it.

Replicas on one PostgreSQL share kept turns (:mod:`proxy.memory.session_state`): ``flush`` writes the turns
``keep`` kept before the answer goes back, and ``load`` reads a session's turns another replica announced,
so a follow-up landing on another replica is restored too.

Upstreams that number calls themselves (``call_0`` in every turn) reuse ids, so an id alone never finds a
turn: the session scopes it, and the dialect checks the client's calls (ids and names) are the ones it got.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from ..dialects.base import Call, Kept, KeptTurn, ToolFailure, Turn
from ..memory.session_state import InProcessSessionState, SessionState

log = logging.getLogger("proxy.tools")

MAX_TURNS = 10_000
SHARE_DEADLINE_S = 0.25  # reading or writing the shared copy: past it, the follow-up goes as the client wrote it


class HiddenTurns:
    def __init__(
        self, limit: int = MAX_TURNS, shared: SessionState | None = None, share_deadline_s: float = SHARE_DEADLINE_S
    ) -> None:
        """``share_deadline_s``: how long reading or writing the shared copy may take (``memory.store_deadline_ms``,
        250 ms by default; a loaded test machine sets more)."""
        self.limit = limit
        self.shared: SessionState = shared or InProcessSessionState()
        self.share_deadline_s = share_deadline_s
        self._turns: OrderedDict[tuple[str, str, str, str], KeptTurn] = OrderedDict()
        self._unshared: list[tuple[tuple[str, str], str, list[str], KeptTurn]] = []

    def keep(self, owner: tuple[str, str], session: str, turn: Turn, results: Sequence[str]) -> None:
        """Remember a mixed turn under each of its client call ids."""
        self.keep_calls(owner, session, turn.order, turn.hidden, results, turn.client_calls)

    def keep_calls(
        self,
        owner: tuple[str, str],
        session: str,
        order: Sequence[str],
        hidden: Sequence[Call],
        results: Sequence[str],
        client: Sequence[tuple[str, str]] = (),
    ) -> None:
        hidden_ids = {call.id for call in hidden}
        kept = KeptTurn(tuple(order), tuple(hidden), tuple(results), tuple(client))
        ids = [call_id for call_id in order if call_id not in hidden_ids]
        for call_id in ids:
            self._put((*owner, session, call_id), kept)
        if self.shared.shared and ids:
            self._unshared.append((owner, session, ids, kept))

    def kept(self, owner: tuple[str, str], session: str) -> Kept | None:
        """The lookup a dialect restores a follow-up with; None when nothing at all is kept (the common case)."""
        if not self._turns:
            return None
        turns = self._turns
        return lambda call_id: turns.get((*owner, session, call_id))

    async def flush(self) -> None:
        """Write the turns kept since the last flush for the other replicas (before the client sees the answer)."""
        pending, self._unshared = self._unshared, []
        try:
            async with asyncio.timeout(self.share_deadline_s):
                for owner, session, ids, kept in pending:
                    await self.shared.keep_turn(owner, session, ids, _to_json(kept))
        except Exception as exc:  # noqa: BLE001 - this replica still restores the follow-up
            log.warning("kept turn not shared with other replicas: %s", exc or type(exc).__name__)

    async def load(self, owner: tuple[str, str], session: str) -> None:
        """Before ``kept``: take the session's turns another replica kept and announced."""
        if not self.shared.announced(owner, session):
            return
        try:
            async with asyncio.timeout(self.share_deadline_s):
                rows = await self.shared.kept_turns(owner, session)
        except Exception as exc:  # noqa: BLE001 - the follow-up is sent as the client wrote it
            log.warning("kept turns of other replicas unavailable: %s", exc or type(exc).__name__)
            return
        for call_id, turn in rows.items():
            self._put((*owner, session, call_id), _from_json(turn))

    def count(self, owner: tuple[str, str]) -> int:
        """The owner's turns this process keeps (under each client call id): what ``forget`` drops from memory."""
        return sum(1 for key in self._turns if key[:2] == owner)

    async def forget(self, owner: tuple[str, str]) -> int:
        """Drop the owner's kept turns here and in the shared copy; returns how many this process held."""
        held = self.forget_here(owner)
        await self.shared.forget(owner)
        return held

    def forget_here(self, owner: tuple[str, str]) -> int:
        """Drop what this process keeps of the owner (another replica's forget-all deleted the shared rows)."""
        keys = [key for key in self._turns if key[:2] == owner]
        for key in keys:
            del self._turns[key]
        self._unshared = [entry for entry in self._unshared if entry[0] != owner]
        return len(keys)

    def _put(self, key: tuple[str, str, str, str], kept: KeptTurn) -> None:
        self._turns[key] = kept
        self._turns.move_to_end(key)
        while len(self._turns) > self.limit:
            self._turns.popitem(last=False)


def _to_json(kept: KeptTurn) -> dict[str, Any]:
    return {
        "order": list(kept.order),
        "calls": [[c.id, c.name, c.arguments] for c in kept.calls],
        "results": [{"error": str(r)} if isinstance(r, ToolFailure) else r for r in kept.results],
        "client": [list(pair) for pair in kept.client],
    }


def _from_json(obj: dict[str, Any]) -> KeptTurn:
    return KeptTurn(
        tuple(obj["order"]),
        tuple(Call(*c) for c in obj["calls"]),
        tuple(ToolFailure(r["error"]) if isinstance(r, dict) else r for r in obj["results"]),
        tuple((a, b) for a, b in obj["client"]),
    )
