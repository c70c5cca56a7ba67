"""A chat follow-up with its mixed turns made whole again: the memory calls put back beside the client's.

When one assistant turn called memory tools and client tools, the client got only its own calls, so
its follow-up carries only those and their results (COMPAT E3). Sent on like that the model would find a
turn that lost some of its calls; with the kept turn (:class:`~proxy.dialects.base.KeptTurn`) the
memory calls go back into the assistant message in the model's order and their results among the tool
messages after it. A turn the client already sent whole, or one nothing was kept of, stays as it came.
Pure: the keeping itself is the tool loop's.
"""

from __future__ import annotations

from typing import Any

from .base import Kept, KeptTurn, call_message
from .chat import tool_result


def restore(payload: dict[str, Any], kept: Kept) -> dict[str, Any] | None:
    messages = restore_messages(payload["messages"], kept)
    return None if messages is None else {**payload, "messages": messages}


def restore_messages(messages: list[dict[str, Any]], kept: Kept) -> list[dict[str, Any]] | None:
    """The messages with every kept turn made whole; None when there was nothing to restore."""
    restored: list[dict[str, Any]] = []
    changed = False
    position = 0
    while position < len(messages):
        message = messages[position]
        position += 1
        turn = _turn_of(message, kept)
        if turn is None:
            restored.append(message)
            continue
        hidden = {call.id: call_message(call) for call in turn.calls}
        results = {call.id: tool_result(call, result) for call, result in zip(turn.calls, turn.results, strict=True)}
        # Calls and results without a string id are the client's own mistakes: kept, after the ones restored.
        theirs = {call["id"]: call for call in message["tool_calls"] if _id(call, "id") is not None}
        odd = [call for call in message["tool_calls"] if _id(call, "id") is None]
        found = [hidden.get(call_id) or theirs.pop(call_id, None) for call_id in turn.order]
        calls = [call for call in found if call is not None] + list(theirs.values())
        answers: list[dict[str, Any]] = []
        while position < len(messages) and messages[position].get("role") == "tool":
            answers.append(messages[position])
            position += 1
        by_call = {key: answer for answer in answers if (key := _id(answer, "tool_call_id")) is not None}
        ordered = [results.get(call["id"]) or by_call.pop(call["id"], None) for call in calls]
        restored.append({**message, "tool_calls": calls + odd})
        restored += [answer for answer in ordered if answer is not None]
        restored += [  # the rest as the client sent them: unmatched results, and those without a string id
            answer for answer in answers if (key := _id(answer, "tool_call_id")) is None or by_call.get(key) is answer
        ]
        changed = True
    return restored if changed else None


def _turn_of(message: dict[str, Any], kept: Kept) -> KeptTurn | None:
    calls = message.get("tool_calls")
    if message.get("role") != "assistant" or not isinstance(calls, list):
        return None
    ids = [call["id"] for call in calls if isinstance(call, dict) and isinstance(call.get("id"), str)]
    for call_id in ids:
        turn = kept(call_id)
        if turn is not None:
            if any(call.id in ids for call in turn.calls):
                return None  # the client sent the whole turn itself
            return turn if _sent_back(turn, calls) else None
    return None


def _sent_back(turn: KeptTurn, calls: list[Any]) -> bool:
    """Whether this is the message the client got: each of its calls under a kept id has that call's name (an
    upstream that reuses ids makes another turn with the same id and another call)."""
    sent = {call_id: _name(call) for call in calls if (call_id := _id(call, "id")) is not None}
    return all(sent[call_id] == name for call_id, name in turn.client if call_id in sent and name)


def _name(call: dict[str, Any]) -> str:
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else ""


def _id(item: Any, key: str) -> str | None:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, str) else None
