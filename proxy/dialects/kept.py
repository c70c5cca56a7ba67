"""Putting a kept turn's memory calls back among the client's, in the order the model made them.

Shared by the formats whose follow-up carries calls as a flat list (Responses items, Messages content
blocks): each memory call goes right before the first client call the model made after it, and the
ones the model made last go right after the last client call the follow-up carries. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .base import Call, KeptTurn

Insert = tuple[int, int, Any]  # (position, 0 before it / 1 after it, the item)


def placed(turn: KeptTurn, present: Mapping[str, int], make: Callable[[Call, str], Any]) -> list[Insert]:
    """Where each memory call's item goes, given the positions of the client's calls (by call id)."""
    results = dict(zip((call.id for call in turn.calls), turn.results, strict=True))
    hidden = {call.id: call for call in turn.calls}
    inserts: list[Insert] = []
    pending: list[Any] = []
    last: int | None = None
    for call_id in turn.order:
        if call_id in hidden:
            pending.append(make(hidden[call_id], results[call_id]))
        elif call_id in present:
            last = present[call_id]
            inserts += [(last, 0, item) for item in pending]
            pending = []
    if last is None:
        return []  # none of the client's calls is there: nothing to put the memory calls beside
    return inserts + [(last, 1, item) for item in pending]


def merged(items: Sequence[Any], inserts: Sequence[Insert]) -> list[Any]:
    before: dict[int, list[Any]] = {}
    after: dict[int, list[Any]] = {}
    for position, side, item in inserts:
        (after if side else before).setdefault(position, []).append(item)
    out: list[Any] = []
    for position, item in enumerate(items):
        out += before.get(position, ())
        out.append(item)
        out += after.get(position, ())
    return out
