"""Memory calls the client never saw, kept so its next request can carry them again (COMPAT E3).

When one assistant turn calls memory tools and client tools, the client gets only its own calls, and its
follow-up carries only those and their results. Sent on like that, the model would find a turn that lost
some of its calls. So the hidden calls and their results are kept per caller and session, under the ids
of the client calls beside them, and the request's dialect puts them back where they were when the
follow-up comes (:meth:`~proxy.dialects.base.Dialect.restore`). A follow-up the proxy has no record of
(after a restart, on another worker) is still a valid request: it is sent as the client wrote it.

Upstreams that number calls themselves (``call_0`` in every turn) reuse ids, so an id alone never finds a
turn: the session scopes it, and the dialect checks the client's calls (ids and names) are the ones it got.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from ..dialects.base import Call, Kept, KeptTurn, Turn

MAX_TURNS = 10_000


class HiddenTurns:
    def __init__(self, limit: int = MAX_TURNS) -> None:
        self.limit = limit
        self._turns: OrderedDict[tuple[str, str, str, str], KeptTurn] = OrderedDict()

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
        for call_id in order:
            if call_id not in hidden_ids:
                self._turns[(*owner, session, call_id)] = kept
                self._turns.move_to_end((*owner, session, call_id))
        while len(self._turns) > self.limit:
            self._turns.popitem(last=False)

    def kept(self, owner: tuple[str, str], session: str) -> Kept | None:
        """The lookup a dialect restores a follow-up with; None when nothing at all is kept (the common case)."""
        if not self._turns:
            return None
        turns = self._turns
        return lambda call_id: turns.get((*owner, session, call_id))

    def forget(self, owner: tuple[str, str]) -> None:
        for key in [key for key in self._turns if key[:2] == owner]:
            del self._turns[key]
