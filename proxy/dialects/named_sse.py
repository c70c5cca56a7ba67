"""Events framed with an ``event:`` line, as the Responses API and Anthropic's Messages API send them.

The relay's decoder hands a splitter only each event's data (:mod:`proxy.pipe.sse` drops ``event:``
lines, which chat streams must never carry, COMPAT A2). Both formats repeat the name in the data's
``type``, so a splitter re-emits the line from there: Anthropic's SDK skips events without one, and
openai-node v4 reads Responses events by it (COMPAT L4).
"""

from __future__ import annotations

from typing import Any

import orjson

from ..pipe.sse import LF, StreamProtocolError

_HEADS: dict[str, bytes] = {}  # an event's lines up to its data, by name: a stream repeats a few names many times
_MAX_HEADS = 64  # upstreams choose the names: only so many are kept


def named_event(name: str, data: bytes) -> bytes:
    head = _HEADS.get(name)
    if head is None:
        head = b"event: " + name.encode() + b"\ndata: "
        if len(_HEADS) < _MAX_HEADS:
            _HEADS[name] = head
    return head + data + b"\n\n"


def dump_event(event: dict[str, Any]) -> bytes:
    """An event object framed under its own ``type``."""
    return named_event(str(event.get("type", "")), orjson.dumps(event))


def load_event(data: bytes) -> dict[str, Any]:
    """One upstream event's data as an object with a string ``type``; anything else breaks the stream's grammar."""
    try:
        event = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise StreamProtocolError(f"upstream sent an event that is not JSON: {data[:80]!r}") from exc
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise StreamProtocolError("upstream sent an event that is not a JSON object with a type")
    return event


def relay_event(event: dict[str, Any], data: bytes, changed: bool) -> bytes:
    """The upstream's own bytes when nothing was edited (COMPAT B4), else the edited object."""
    if changed or LF in data:
        data = orjson.dumps(event)
    return named_event(event["type"], data)
