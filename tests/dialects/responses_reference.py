"""The Responses stream splitter the plain way: every event parsed, edited and written whole.

What :class:`proxy.dialects.responses_stream.ResponseEvents` did before it read repeated start events by their
bytes and took shorter ways with the rest. Its tests hold the splitter to this one's output, byte for byte, over
any stream: the shorter ways may only ever be shorter.
"""

from __future__ import annotations

from typing import Any

import orjson

from proxy.dialects.base import Turn, add_usage
from proxy.dialects.responses_input import calls, said
from proxy.dialects.responses_items import (
    client_echo,
    client_response,
    hop_turn,
    is_memory_call,
    visible,
    visible_tools,
)
from proxy.pipe.sse import StreamProtocolError

HIDDEN = -1
STARTS = frozenset({"response.created", "response.in_progress", "response.queued"})
ENDS = frozenset({"response.completed", "response.incomplete"})


def relay(event: dict[str, Any], data: bytes, changed: bool) -> bytes:
    if changed or b"\n" in data:
        data = orjson.dumps(event)
    return b"event: " + event["type"].encode() + b"\ndata: " + data + b"\n\n"


class ReferenceEvents:
    def __init__(self, *, hidden: frozenset[str] = frozenset(), previous: str | None = None) -> None:
        self.hidden = hidden
        self.previous = previous
        self.ended = False
        self.failed = False
        self._sequence = 0
        self._handed_out = 0
        self._first: dict[str, Any] | None = None
        self._output: list[Any] = []
        self._usage: dict[str, Any] | None = None
        self._indices: dict[int, int] = {}
        self._items: dict[int, dict[str, Any]] = {}
        self._terminal: dict[str, Any] | None = None
        self._data = b""
        self._hops = 0
        self._final_sent = False

    @property
    def response_id(self) -> str | None:
        identity = (self._first or self._last_response()).get("id")
        return identity if isinstance(identity, str) else None

    @property
    def chain_id(self) -> str | None:
        identity = self._last_response().get("id")
        return identity if isinstance(identity, str) else self.response_id

    def answer(self) -> list[dict[str, Any]]:
        return said(self._visible_items())

    @property
    def called(self) -> tuple[tuple[str, str], ...]:
        return calls(self._visible_items())

    def push(self, data: bytes) -> bytes:
        if data.strip() == b"[DONE]":
            self.ended = self._terminal is not None
            return b""
        try:
            event = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise StreamProtocolError("not JSON") from exc
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise StreamProtocolError("not an object with a type")
        kind = event["type"]
        if kind in STARTS:
            return self._start(event, data)
        if kind in ENDS:
            self._terminal, self._data = event, data
            self.ended = True
            return b""
        if kind == "error":
            self.ended = self.failed = True
            return self._emit(event, data, False)
        if kind == "response.failed":
            self.ended = self.failed = True
            failed = event.get("response")
            response = self._client_response(failed if isinstance(failed, dict) else {})
            return self._emit({**event, "response": response}, data, True)
        index = event.get("output_index")
        changed = False
        if isinstance(index, int) and not isinstance(index, bool):
            out = self._place(index, event)
            if out == HIDDEN:
                return b""
            if out != index:
                event["output_index"] = out
                changed = True
        return self._emit(event, data, changed)

    def finish(self) -> bytes:
        return b"" if self._final_sent else self._final()

    def hop_end(self) -> Turn:
        last = self._last_response()
        return hop_turn(self._hop_items(last), self.hidden, last)

    def next_hop(self) -> None:
        last = self._last_response()
        self._output += visible(self._hop_items(last), self.hidden)
        self._usage = add_usage(self._usage, last.get("usage"))
        self._indices, self._items, self._terminal, self._data = {}, {}, None, b""
        self._hops += 1
        self.ended = False

    def _visible_items(self) -> list[Any]:
        return [*self._output, *visible(self._hop_items(self._last_response()), self.hidden)]

    def _start(self, event: dict[str, Any], data: bytes) -> bytes:
        response = event.get("response")
        if self._hops > 0:
            return b""
        changed = False
        if isinstance(response, dict):
            self._first = self._first or response
            edited = {**response, **client_echo(response, self.previous)}
            if "tools" in response:
                edited["tools"] = visible_tools(response["tools"], self.hidden)
            if edited != response:
                event["response"] = edited
                changed = True
        return self._emit(event, data, changed)

    def _place(self, index: int, event: dict[str, Any]) -> int:
        item = event.get("item")
        if index not in self._indices:
            if is_memory_call(item, self.hidden):
                self._indices[index] = HIDDEN
            else:
                self._indices[index] = self._handed_out
                self._handed_out += 1
        if isinstance(item, dict):
            self._items[index] = item
        return self._indices[index]

    def _last_response(self) -> dict[str, Any]:
        response = self._terminal.get("response") if self._terminal is not None else None
        return response if isinstance(response, dict) else {}

    def _hop_items(self, response: dict[str, Any]) -> list[dict[str, Any]]:
        output = response.get("output")
        if isinstance(output, list) and (output or not self._items):
            return [item for item in output if isinstance(item, dict)]
        return [self._items[index] for index in sorted(self._items)]

    def _client_response(self, last: dict[str, Any]) -> dict[str, Any]:
        output = self._output + visible(self._hop_items(last), self.hidden)
        usage = add_usage(self._usage, last.get("usage"))
        return client_response(self._first or last, last, output, usage, self.hidden, self.previous)

    def _final(self) -> bytes:
        self._final_sent = self.ended = True
        if self._terminal is None:
            self.failed = True
            message, code = "the upstream ended the response without completing it", "upstream_stream_error"
            error = {"type": "server_error", "code": code, "message": message, "param": None}
            event = {"type": "error", "code": code, "message": message, "param": None, "error": error}
            return self._emit(event, b"", True)
        last = self._last_response()
        response = self._client_response(last)
        if response == last:
            return self._emit(self._terminal, self._data, False)
        return self._emit({**self._terminal, "response": response}, b"", True)

    def _emit(self, event: dict[str, Any], data: bytes, changed: bool) -> bytes:
        if event.get("sequence_number") != self._sequence:
            event["sequence_number"] = self._sequence
            changed = True
        self._sequence += 1
        return relay(event, data, changed)
