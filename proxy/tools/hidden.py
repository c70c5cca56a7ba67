"""Memory calls the client never saw, kept so its next request can carry them again (COMPAT E3).

When one assistant turn calls memory tools and client tools, the client gets only its own calls,
and its follow-up carries only those and their results. Sent on like that, the model would find a
turn that lost some of its calls. So the hidden calls and their results are kept per caller, under
the ids of the client calls beside them, and put back where they were when the follow-up comes. A
follow-up the proxy has no record of (after a restart, on another worker) is still a valid request:
it is sent as the client wrote it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..dialects.base import Call
from ..dialects.chat import call_message, tool_result

MAX_TURNS = 10_000


@dataclass(frozen=True, slots=True)
class _Turn:
    order: tuple[str, ...]  # every call id of the turn, in the model's order
    calls: dict[str, dict[str, Any]]  # hidden call id -> the call
    results: dict[str, dict[str, Any]]  # hidden call id -> its `role: tool` message


class HiddenTurns:
    def __init__(self, limit: int = MAX_TURNS) -> None:
        self.limit = limit
        self._turns: OrderedDict[tuple[str, str, str], _Turn] = OrderedDict()

    def keep(
        self, owner: tuple[str, str], order: Sequence[str], hidden: Sequence[Call], results: Sequence[str]
    ) -> None:
        """Remember a mixed turn under each of its client call ids."""
        hidden_ids = {call.id for call in hidden}
        turn = _Turn(
            tuple(order),
            {call.id: call_message(call) for call in hidden},
            {call.id: tool_result(call, result) for call, result in zip(hidden, results, strict=True)},
        )
        for call_id in order:
            if call_id not in hidden_ids:
                self._turns[(*owner, call_id)] = turn
                self._turns.move_to_end((*owner, call_id))
        while len(self._turns) > self.limit:
            self._turns.popitem(last=False)

    def forget(self, owner: tuple[str, str]) -> None:
        for key in [key for key in self._turns if key[:2] == owner]:
            del self._turns[key]

    def restore(self, owner: tuple[str, str], messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """The messages with every remembered turn made whole again; None when there is nothing to restore."""
        if not self._turns:
            return None
        restored: list[dict[str, Any]] = []
        changed = False
        position = 0
        while position < len(messages):
            message = messages[position]
            position += 1
            turn = self._turn_of(owner, message)
            if turn is None:
                restored.append(message)
                continue
            # Calls and results without a string id are the client's own mistakes: kept, after the ones restored.
            theirs = {call["id"]: call for call in message["tool_calls"] if _id(call, "id") is not None}
            odd = [call for call in message["tool_calls"] if _id(call, "id") is None]
            found = [turn.calls.get(call_id) or theirs.pop(call_id, None) for call_id in turn.order]
            calls = [call for call in found if call is not None] + list(theirs.values())
            answers: list[dict[str, Any]] = []
            while position < len(messages) and messages[position].get("role") == "tool":
                answers.append(messages[position])
                position += 1
            by_call = {key: answer for answer in answers if (key := _id(answer, "tool_call_id")) is not None}
            ordered = [turn.results.get(call["id"]) or by_call.pop(call["id"], None) for call in calls]
            restored.append({**message, "tool_calls": calls + odd})
            restored += [answer for answer in ordered if answer is not None]
            restored += [  # the rest as the client sent them: unmatched results, and those without a string id
                answer
                for answer in answers
                if (key := _id(answer, "tool_call_id")) is None or by_call.get(key) is answer
            ]
            changed = True
        return restored if changed else None

    def _turn_of(self, owner: tuple[str, str], message: dict[str, Any]) -> _Turn | None:
        calls = message.get("tool_calls")
        if message.get("role") != "assistant" or not isinstance(calls, list):
            return None
        for call in calls:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                turn = self._turns.get((*owner, call["id"]))
                if turn is not None:
                    if any(_id(c, "id") in turn.calls for c in calls):
                        return None  # the client sent the whole turn itself
                    return turn
        return None


def _id(item: Any, key: str) -> str | None:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, str) else None
