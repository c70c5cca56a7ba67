"""A Responses follow-up with its mixed turns made whole again (COMPAT E3).

When one turn called memory tools and client tools, the client got only its own ``function_call``
items. Its follow-up comes in one of two forms, and both need the memory calls back:

- full input (``store: false``, or a client that resends everything): the client's calls and their
  outputs are in ``input``. The memory ``function_call`` items go back among the client's in the model's
  order, their ``function_call_output`` items among the client's outputs, so the model sees its turn.
- chained (``previous_response_id`` naming the response the client got): the stored response already
  holds every call of the turn, the memory ones too, and the upstream refuses a follow-up that leaves
  any of them without an output. Only the outputs go in, beside the client's.

A turn the client already sent whole, or one nothing was kept of, stays as it came. Pure.
"""

from __future__ import annotations

from typing import Any

from .base import Call, Kept, KeptTurn
from .kept import Insert, merged, placed
from .responses_input import item_kind

CALL, OUTPUT = "function_call", "function_call_output"


def call_item(call: Call, result: str = "") -> dict[str, Any]:
    return {"type": CALL, "call_id": call.id, "name": call.name, "arguments": call.arguments}


def output_item(call: Call, result: str) -> dict[str, Any]:
    return {"type": OUTPUT, "call_id": call.id, "output": result}


def restore(payload: dict[str, Any], kept: Kept) -> dict[str, Any] | None:
    items = payload.get("input")
    if not isinstance(items, list):
        return None
    calls: dict[str, int] = {}
    outputs: dict[str, int] = {}
    for position, item in enumerate(items):
        kind = item_kind(item)
        if kind in (CALL, OUTPUT) and isinstance(item.get("call_id"), str):
            (calls if kind == CALL else outputs).setdefault(item["call_id"], position)
    turns: dict[tuple[str, ...], KeptTurn] = {}
    for call_id in [*calls, *outputs]:
        turn = kept(call_id)
        if turn is not None and not any(call.id in calls or call.id in outputs for call in turn.calls):
            turns.setdefault(turn.order, turn)  # a turn the client sent whole itself is left alone
    inserts: list[Insert] = []
    for turn in turns.values():
        inserts += placed(turn, calls, call_item) + placed(turn, outputs, output_item)
    if not inserts:
        return None
    return {**payload, "input": merged(items, inserts)}
