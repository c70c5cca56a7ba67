"""A Responses stream's start events (``created``, ``in_progress``, ``queued``), edited for the client once.

Each carries the whole response, and with it the request's echo (its tools above all, the proxy's among them):
parsing, editing and writing one costs more than all the other events of a short answer. Upstreams send the same
response in each (``in_progress`` repeats ``created``), so :class:`StartEcho` keeps the first one's edit, and
:meth:`StartEcho.repeat` knows a later one by its bytes alone when they can only parse to that same response.

A later hop's start events are dropped. One is still parsed, so that a malformed one breaks the stream; one whose
:func:`start_frame` holds the same response bytes as that one's needs no parsing: in the same frame (a start type,
a number) those bytes are valid JSON again, and whatever they hold, the event is a start event, dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from .responses_items import client_echo, visible_tools

STARTS = frozenset({"response.created", "response.in_progress", "response.queued"})
HEADS = tuple(b'{"type":"' + kind.encode() + b'",' for kind in sorted(STARTS))  # how their data begins, compact

# A start event as compact JSON, its three keys in either order upstreams write them. The number is bounded so
# that it is one orjson reads as an int.
_START = re.compile(
    rb'\{"type":"(?P<kind>response\.(?:created|in_progress|queued))",'
    rb'(?:"response":(?P<response>\{.*\}),"sequence_number":(?P<number>0|[1-9][0-9]{0,17})'
    rb'|"sequence_number":(?P<number_first>0|[1-9][0-9]{0,17}),"response":(?P<response_last>\{.*\}))\}',
    re.DOTALL,
)
_RESPONSE_FIRST = ("type", "response", "sequence_number")
_NUMBER_FIRST = ("type", "sequence_number", "response")


def start_frame(data: bytes) -> tuple[str, int, bool, bytes] | None:
    """A compact start event's type, number, key order (:func:`response_first`) and response bytes; None when the
    data is not one (not compact, other keys, a number orjson would not read as an int)."""
    match = _START.fullmatch(data)
    if match is None:
        return None
    if match["response"] is not None:
        return match["kind"].decode(), int(match["number"]), True, match["response"]
    return match["kind"].decode(), int(match["number_first"]), False, match["response_last"]


def client_start(response: dict[str, Any], hidden: frozenset[str], previous: str | None) -> dict[str, Any] | None:
    """A start event's response as the client gets it; None when that is the upstream's own."""
    echo = client_echo(response, previous)
    tools: Any = response.get("tools")
    kept = visible_tools(tools, hidden)
    if not echo and (kept is tools or len(kept) == len(tools)):  # the proxy's tools are only ever taken out
        return None
    edited = {**response, **echo}
    if "tools" in response:
        edited["tools"] = kept
    return edited


def response_first(event: dict[str, Any]) -> bool | None:
    """Whether a start event's keys are ``type``, ``response``, ``sequence_number`` in that order (False: the
    number before the response), its number an int; None when it is anything else."""
    if type(event.get("sequence_number")) is not int:
        return None
    keys = tuple(event)
    return True if keys == _RESPONSE_FIRST else False if keys == _NUMBER_FIRST else None


@dataclass(slots=True)
class StartEcho:
    """The first start event's response and the client's form of it, each written once, when first needed."""

    upstream: dict[str, Any]
    client: dict[str, Any] | None  # None when the client gets the upstream's own
    _upstream_bytes: bytes | None = None
    _client_bytes: bytes | None = None

    def repeat(self, data: bytes) -> tuple[str, int, bool] | None:
        """A start event's type, number and key order (:func:`response_first`), when its response is the first one:
        its bytes are orjson's form of ``upstream``. That makes the data one value in a fixed frame, no key twice, so
        it parses to that response and nothing else. None when they are not (or not written as orjson writes)."""
        frame = start_frame(data)
        if frame is None or frame[3] != self.upstream_bytes():
            return None
        return frame[:3]

    def client_data(self, kind: str, number: int, first: bool) -> bytes:
        """What orjson writes for a start event with the client's response (``kind``, one of STARTS, needs no
        escaping): only the response is written, and only once."""
        response = self._client()
        if first:
            return b'{"type":"' + kind.encode() + b'","response":' + response + b',"sequence_number":%d}' % number
        return b'{"type":"' + kind.encode() + b'","sequence_number":%d,"response":' % number + response + b"}"

    def upstream_bytes(self) -> bytes:
        if self._upstream_bytes is None:
            self._upstream_bytes = orjson.dumps(self.upstream)
        return self._upstream_bytes

    def _client(self) -> bytes:
        if self.client is None:
            return self.upstream_bytes()
        if self._client_bytes is None:
            self._client_bytes = orjson.dumps(self.client)
        return self._client_bytes
