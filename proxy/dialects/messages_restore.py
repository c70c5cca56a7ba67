"""A Messages follow-up with its mixed turns made whole again (COMPAT E3).

When one assistant turn called memory tools and client tools, the client got only its own ``tool_use``
blocks, and its follow-up answers only those. :func:`restore` puts the memory ``tool_use`` blocks back
into that assistant turn in the model's order, and their ``tool_result`` blocks FIRST in the user turn
after it: Anthropic wants every ``tool_result`` of a turn before any other block of the next, and the
client's own results already lead it. A turn the client sent whole, one nothing was kept of, or one not
followed by a user turn stays as it came. Pure: keeping the turns is the tool loop's.
"""

from __future__ import annotations

from typing import Any

import orjson

from .base import Call, Kept, KeptTurn, ToolFailure
from .kept import merged, placed


def tool_use(call: Call, result: str = "") -> dict[str, Any]:
    try:
        arguments = orjson.loads(call.arguments)
    except orjson.JSONDecodeError:
        arguments = {}
    return {
        "type": "tool_use",
        "id": call.id,
        "name": call.name,
        "input": arguments if isinstance(arguments, dict) else {},
    }


def tool_result(call: Call, result: str) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call.id, "content": result}
    return {**block, "is_error": True} if isinstance(result, ToolFailure) else block


def restore(payload: dict[str, Any], kept: Kept) -> dict[str, Any] | None:
    messages = payload.get("messages")
    if not isinstance(messages, list):
        return None
    restored = list(messages)
    changed = False
    for position in range(len(messages) - 1):
        message, following = messages[position], messages[position + 1]
        turn = _turn_of(message, kept)
        if turn is None or not isinstance(following, dict) or following.get("role") != "user":
            continue
        blocks = message["content"]
        uses = {block["id"]: at for at, block in enumerate(blocks) if _is_tool_use(block)}
        restored[position] = {**message, "content": merged(blocks, placed(turn, uses, tool_use))}
        answers = following.get("content")
        answers = answers if isinstance(answers, list) else [{"type": "text", "text": answers}] if answers else []
        results = [tool_result(call, result) for call, result in zip(turn.calls, turn.results, strict=True)]
        restored[position + 1] = {**following, "content": [*results, *answers]}
        changed = True
    return {**payload, "messages": restored} if changed else None


def _is_tool_use(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str)


def _turn_of(message: Any, kept: Kept) -> KeptTurn | None:
    if (
        not isinstance(message, dict)
        or message.get("role") != "assistant"
        or not isinstance(message.get("content"), list)
    ):
        return None
    ids = [block["id"] for block in message["content"] if _is_tool_use(block)]
    for call_id in ids:
        turn = kept(call_id)
        if turn is not None:
            return None if any(call.id in ids for call in turn.calls) else turn  # sent whole: left alone
    return None
