"""A non-streamed Responses request through the tool loop: each hop's ``response`` read, one assembled.

The client gets one response object (COMPAT E1, E7 in this format): the visible output items of every
hop in order, its own calls, never a memory ``function_call``, usage summed over the hops
(``input_tokens``, ``output_tokens``, ``total_tokens`` and their details) and the identity rules of
:func:`~proxy.dialects.responses_items.client_response`. Pure.
"""

from __future__ import annotations

from typing import Any

import orjson

from .base import Turn, add_usage
from .responses_input import brought, calls
from .responses_items import client_response, hop_turn, visible


class ResponsesAnswers:
    def __init__(self, hidden: frozenset[str], previous: str | None = None) -> None:
        self.hidden = hidden
        self.previous = previous  # the chain id the client sent, when the upstream got the proxy's
        self._first: dict[str, Any] | None = None
        self._last: dict[str, Any] = {}
        self._output: list[Any] = []
        self._usage: dict[str, Any] | None = None

    def read(self, body: bytes) -> Turn | None:
        response = _response(body)
        if response is None:
            return None
        if self._first is None:
            self._first = response
        self._last = response
        items = [item for item in response["output"] if isinstance(item, dict)]
        self._output += visible(response["output"], self.hidden)
        self._usage = add_usage(self._usage, response.get("usage"))
        return hop_turn(items, self.hidden, response)

    def result(self) -> bytes:
        """Also right after one hop without memory calls: it takes the proxy's tools out of the ``tools`` echo."""
        first = self._first if self._first is not None else self._last
        return orjson.dumps(client_response(first, self._last, self._output, self._usage, self.hidden, self.previous))

    @property
    def called(self) -> tuple[tuple[str, str], ...]:
        """The calls the client's response made, ``(call id, tool)`` (its own calls, built-in tools), and what it
        brought in: a chained request holds only their results."""
        return calls(self._output)

    @property
    def brought(self) -> tuple[str, ...]:
        """What the hops read so far brought in from outside (the tools the upstream ran itself)."""
        return brought(self._output)

    def glance(self, body: bytes) -> None:
        """An answer that went back untouched is read now: its ids and what it brought in are the session's."""
        if self._first is None:
            self.read(body)

    @property
    def rewrites(self) -> bool:
        return self.previous is not None

    @property
    def response_id(self) -> str | None:
        """The id the client gets: what it chains its next request from (sessions key on it)."""
        first = self._first if self._first is not None else self._last
        identity = first.get("id") if first else None
        return identity if isinstance(identity, str) else None

    @property
    def chain_id(self) -> str | None:
        """The id the upstream stored the whole loop under (the last hop's): what a chained request is sent on from."""
        identity = self._last.get("id") if self._last else None
        return identity if isinstance(identity, str) else None


def _response(body: bytes) -> dict[str, Any] | None:
    """A response object with an ``output`` list, or None for anything else."""
    try:
        response = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(response, dict) or not isinstance(response.get("output"), list):
        return None
    return response
