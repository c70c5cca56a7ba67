"""JSON a client sent (a request body, an import line), read once and checked against what the proxy can write back.

orjson reads 1024 levels of nesting but writes only about 254, and the proxy writes what clients send: the request
again when memory adds to it, a session's fingerprint, digests of messages. A body nested deeper than it can write
would fail there, as a 500 in plain text. So every body is refused at the door, with a 400 naming the limit, when it
nests deeper than :data:`MAX_DEPTH` (far more than any real request, far less than orjson's limit, leaving room for
the few levels the proxy wraps around a client's values).
"""

from __future__ import annotations

from typing import Any

import orjson

from .errors import InvalidRequest

MAX_DEPTH = 128  # arrays and objects inside one another, the body itself counting as one


def _writable_depth() -> int:
    """The deepest nesting orjson writes (254 in orjson 3), probed rather than assumed."""
    value: Any = None
    for depth in range(4096):
        try:
            orjson.dumps(value)
        except orjson.JSONEncodeError:
            return depth - 1
        value = [value]
    return depth


_HEADROOM = _writable_depth() - MAX_DEPTH  # a body that still writes inside this many lists nests <= MAX_DEPTH
assert _HEADROOM > 0, "orjson writes fewer levels than MAX_DEPTH"


def loads(body: bytes, *, what: str = "the request body") -> Any:
    """The parsed body; a 400 when it is not JSON or nests deeper than :data:`MAX_DEPTH`."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):
            raise _too_deep(what) from exc
        raise InvalidRequest(f"{what} is not valid JSON: {exc}") from exc
    check_depth(value, body, what=what)
    return value


def load_object(body: bytes) -> dict[str, Any]:
    """A request body that must be a JSON object (every wire format's is): a 400 for anything else."""
    if not body.strip():
        raise InvalidRequest("the request body is empty; expected a JSON object")
    payload = loads(body)
    if not isinstance(payload, dict):
        raise InvalidRequest("the request body must be a JSON object")
    return payload


def check_depth(value: Any, body: bytes, *, what: str = "the request body") -> None:
    """Raise a 400 when ``value`` (parsed from ``body``) nests deeper than :data:`MAX_DEPTH`.

    A body with fewer brackets than the limit cannot nest deeper (most requests stop there); otherwise orjson itself
    measures, writing the value inside enough lists to reach its own limit, at C speed.
    """
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return
    wrapped = value
    for _ in range(_HEADROOM):
        wrapped = [wrapped]
    try:
        orjson.dumps(wrapped)
    except orjson.JSONEncodeError:
        raise _too_deep(what) from None


def _too_deep(what: str) -> InvalidRequest:
    return InvalidRequest(
        f"{what} nests arrays and objects more than {MAX_DEPTH} levels deep; the limit is {MAX_DEPTH}"
    )
