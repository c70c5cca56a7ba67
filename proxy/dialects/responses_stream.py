"""A Responses stream through the tool loop: every hop's events relayed as one response's events.

The Responses grammar (COMPAT L4) differs from chat's: named events (``event: response.output_text.delta``),
a ``sequence_number`` on each, items addressed by ``output_index``, and a last event that carries the
whole response. What the client gets:

- one ``response.created`` (and ``in_progress``/``queued``): the first hop's; later hops' are dropped;
- every event of a memory ``function_call`` item dropped: the item is known by its name in
  ``response.output_item.added``, before its argument deltas;
- ``output_index`` renumbered without gaps over the hops, ``sequence_number`` from 0 without gaps;
- each hop's ``response.completed`` (or ``incomplete``) held back; one goes out at the end, carrying every
  hop's visible items and usage summed (:func:`~proxy.dialects.responses_items.client_response`);
- everything else (text, reasoning with its ``encrypted_content``, built-in tools, the client's calls) as
  the upstream sent it: its own bytes when neither number changed (COMPAT B4);
- the proxy's tools never in the ``tools`` echo, and ``previous_response_id`` the one the client sent (not
  the proxy's chain id it went upstream as); errors as ``error`` events in the shape OpenAI sends and
  its SDKs raise on (``error`` nested) as well as the documented flat one.

The start and end events echo the whole request (its tools above all): parsing one costs as much as all the
small events of a short answer together. So the work done per event is only what its output needs:

- a start event that repeats the first one's response (``in_progress`` after ``created``, as upstreams send
  them) is recognised by its bytes, when they are exactly the first response as orjson writes it, and goes out
  with the first one's edit: the echo is parsed, edited and written once (on a later hop, where start events
  are dropped, one repeating one already parsed is dropped unparsed: :mod:`.responses_starts`);
- the proxy's tools are cut from a start or end event's bytes before it is parsed, once an earlier stream taught
  how the upstream echoes them (:mod:`.responses_echo`): less to parse, and often nothing left to edit;
- an item's events are parsed (a malformed one still breaks the stream) but touch only the two numbers;
- a hop's items, and which of them the client sees, are listed once, for the loop, the final response, the
  answer's text and the chain's tools alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..pipe.sse import LF, StreamProtocolError
from .base import Turn, add_usage
from .named_sse import load_event, named_event, relay_event
from .responses_echo import ECHOES, ToolEchoes, holds_proxy_tools
from .responses_input import brought, calls, said
from .responses_items import client_response, hop_turn, is_memory_call, visible
from .responses_starts import HEADS, STARTS, StartEcho, client_start, response_first, start_frame

HIDDEN = -1
ENDS = frozenset({"response.completed", "response.incomplete"})
WHOLE = STARTS | ENDS | {"error", "response.failed"}  # events about the whole response rather than one item
# How the data of those that carry the response (its tools' echo) begins, compact: only such events are cut.
ECHO_HEADS = tuple(b'{"type":"' + kind.encode() + b'",' for kind in sorted(WHOLE - {"error"}))


@dataclass(slots=True)
class _Hop:
    indices: dict[int, int] = field(default_factory=dict)  # upstream output_index -> the client's (or HIDDEN)
    items: dict[int, dict[str, Any]] = field(default_factory=dict)  # the latest form of each item
    terminal: dict[str, Any] | None = None  # the held response.completed / response.incomplete
    data: bytes = b""  # its bytes as the upstream sent them
    listed: list[dict[str, Any]] | None = None  # its items, once asked for (until an item or its end comes)
    shown: list[Any] | None = None  # those of them the client sees


class ResponseEvents:
    """Per-response state; ``push`` each event's data; the tool loop calls ``hop_end`` and ``next_hop``."""

    def __init__(
        self, *, hidden: frozenset[str] = frozenset(), previous: str | None = None, echoes: ToolEchoes = ECHOES
    ) -> None:
        self.hidden = hidden
        self.previous = previous  # the chain id the client sent, when the upstream got the proxy's
        self._echoes = echoes
        # Whether the proxy's tools are cut from the events' bytes: when an earlier stream taught how an upstream
        # echoes them (a first start event read whole teaches it, for the streams after this one).
        self._cutting = bool(hidden) and echoes.knows(hidden)
        self.ended = False
        self.failed = False
        self._sequence = 0
        self._handed_out = 0  # output indexes given to the client so far, over every hop
        self._first: dict[str, Any] | None = None  # the first hop's response, from response.created
        self._echo: StartEcho | None = None  # the same, for the start events after it (until an item comes)
        self._dropped: bytes | None = None  # a later hop's parsed start event's response bytes (until an item comes)
        self._output: list[Any] = []  # the visible items of the hops before this one
        self._usage: dict[str, Any] | None = None  # summed over the hops before this one
        self._hop = _Hop()
        self._hops = 0
        self._final_sent = False

    @property
    def complete(self) -> bool:
        return False  # a response ends with its response.completed: a stream cut before it did not finish

    @property
    def response_id(self) -> str | None:
        """The id the client's events carry: what it chains from (sessions key on it)."""
        first = self._first or self._last_response()
        identity = first.get("id")
        return identity if isinstance(identity, str) else None

    @property
    def chain_id(self) -> str | None:
        """The id the upstream stored the whole loop under (the last hop's): what a chained request is sent on from."""
        identity = self._last_response().get("id")
        return identity if isinstance(identity, str) else self.response_id

    def answer(self) -> list[dict[str, Any]]:
        """Every visible item of the response, over the hops, its calls too (:func:`~.responses_input.said`)."""
        return said(self._visible_items())

    @property
    def called(self) -> tuple[tuple[str, str], ...]:
        """The calls the client's response made, ``(call id, tool)`` (its own calls, built-in tools), and what it
        brought in: a chained request holds only their results."""
        return calls(self._visible_items())

    @property
    def brought(self) -> tuple[str, ...]:
        """What the hops so far brought in from outside (the tools the upstream ran itself)."""
        return brought(self._visible_items())

    def _visible_items(self) -> list[Any]:
        return [*self._output, *self._hop_visible()]

    def push(self, data: bytes) -> bytes:
        if self._cutting and data.startswith(ECHO_HEADS):
            pushed = self._push_cut(data)
            if pushed is not None:
                return pushed
        if (self._echo is not None or self._dropped is not None) and data.startswith(HEADS):
            repeated = self._repeated_start(data)
            if repeated is not None:
                return repeated
        if data.strip() == b"[DONE]":  # not this grammar's, but some upstreams add it
            self.ended = self._hop.terminal is not None
            return b""
        event = load_event(data)
        kind = event["type"]
        if kind in WHOLE:
            if self.hidden and kind in STARTS and not self._hops:  # read whole: nothing known cut it
                self._echoes.learn(event.get("response"), data, self.hidden)
            return self._whole(kind, event, data)
        index = event.get("output_index")
        changed = False
        if type(index) is int:  # a bool is no index
            out = self._hop.indices.get(index)
            item = event.get("item")
            if out is None or item is not None:  # an item's first event, or one with its latest form
                out = self._place(index, item)
            if out == HIDDEN:
                return b""
            if out != index:
                event["output_index"] = out
                changed = True
        sequence = self._sequence
        if changed or event.get("sequence_number") != sequence or LF in data:
            return self._emit(event, data, changed)
        self._sequence = sequence + 1
        return named_event(kind, data)  # most events: the upstream's own bytes (what _emit would give)

    def finish(self) -> bytes:
        """The end of the response: its one ``response.completed``, unless the loop already sent it."""
        return b"" if self._final_sent else self._final()

    def finish_chunk(self, reason: str | None) -> bytes:
        """The held ``response.completed``: a Responses turn has no finish reason to adjust, only the status."""
        return self._final()

    def hop_end(self) -> Turn:
        return hop_turn(self._hop_items(), self.hidden, self._last_response())

    def made_memory_calls(self) -> bool:
        hidden = self.hidden
        return bool(hidden) and any(is_memory_call(item, hidden) for item in self._hop_items())

    def next_hop(self) -> None:
        self._output += self._hop_visible()
        self._usage = add_usage(self._usage, self._last_response().get("usage"))
        self._hop = _Hop()
        self._hops += 1
        self._echo = self._dropped = None  # a later hop's start events are dropped
        self.ended = False

    def error_event(
        self, message: str, *, code: str | None = "upstream_stream_error", type: str = "server_error"
    ) -> bytes:
        self.ended = self.failed = True
        error = {"type": type, "code": code, "message": message, "param": None}
        event = {"type": "error", "code": code, "message": message, "param": None, "error": error}
        return self._emit(event, b"", True)

    def upstream_error(self, status: int, body: bytes) -> bytes:
        """An upstream's error status on a later hop, after the stream started: the stream's last event."""
        try:
            error = orjson.loads(body).get("error")
        except (orjson.JSONDecodeError, AttributeError):
            error = None
        if not isinstance(error, dict) or not isinstance(error.get("message"), str):
            text = body.decode("utf-8", "replace")[:500]
            return self.error_event(f"upstream answered {status}: {text}", code="upstream_error")
        code = error.get("code")
        kind = error.get("type")
        return self.error_event(
            error["message"],
            code=str(code) if code is not None else None,
            type=kind if isinstance(kind, str) else "server_error",
        )

    def _whole(self, kind: str, event: dict[str, Any], data: bytes) -> bytes:
        """An event about the whole response: its start, its end, or its failure."""
        if kind in STARTS:
            return self._start(event, data)
        if kind in ENDS:
            hop = self._hop
            hop.terminal, hop.data = event, data
            hop.listed = hop.shown = None
            self.ended = True
            return b""
        self.ended = self.failed = True
        if kind == "error":
            return self._emit(event, data, False)
        failed = event.get("response")  # response.failed
        failed = failed if isinstance(failed, dict) else {}
        response = self._client_response(failed, visible(self._items(failed), self.hidden))
        return self._emit({**event, "response": response}, data, True)

    def _start(self, event: dict[str, Any], data: bytes) -> bytes:
        if self._hops > 0:  # the client has its response.created: later hops continue that response
            frame = start_frame(data)
            if frame is not None:
                self._dropped = frame[3]
            return b""
        response = event.get("response")
        if not isinstance(response, dict):
            return self._emit(event, data, False)
        edited = client_start(response, self.hidden, self.previous)
        echo = self._echo
        if not self._first:
            self._first = response
            echo = self._echo = StartEcho(response, edited)
        if edited is None:
            return self._emit(event, data, False)
        if echo is None or echo.upstream is not response or (first := response_first(event)) is None:
            event["response"] = edited
            return self._emit(event, data, True)
        kind = event["type"]  # the first start event: its edit is written once, for it and the ones repeating it
        return named_event(kind, echo.client_data(kind, self._next_sequence(), first))

    def _repeated_start(self, data: bytes) -> bytes | None:
        """A start event repeating the first one's response goes out with its edit (:meth:`StartEcho.repeat`); on a
        later hop, one repeating a start event parsed before is dropped like it (:mod:`.responses_starts`)."""
        echo = self._echo
        if echo is None:
            frame = start_frame(data)
            return b"" if frame is not None and frame[3] == self._dropped else None
        repeat = echo.repeat(data)
        if repeat is None:
            return None
        kind, number, first = repeat
        sequence = self._next_sequence()
        if echo.client is not None or number != sequence:
            data = echo.client_data(kind, sequence, first)
        return named_event(kind, data)

    def _push_cut(self, uncut: bytes) -> bytes | None:
        """An event about the whole response with the proxy's tools cut from its bytes (:mod:`.responses_echo`);
        None when they were not, or the cut took anything else: the event is then read whole."""
        data = self._echoes.cut(uncut, self.hidden)
        if data is None:
            return None
        if (self._echo is not None or self._dropped is not None) and data.startswith(HEADS):
            repeated = self._repeated_start(data)  # the same bytes as an event whose cut was kept
            if repeated is not None:
                return repeated
        try:
            event = load_event(data)
        except StreamProtocolError:
            return None
        kind = event["type"]
        if kind not in WHOLE or response_first(event) is None or not data.startswith(b'{"type":"%s",' % kind.encode()):
            return None  # more than the frame (a key twice, say): what parsing it whole makes of it, as before
        return None if holds_proxy_tools(event, self.hidden) else self._whole(kind, event, data)

    def _place(self, index: int, item: Any) -> int:
        """The client's output_index for an upstream one, deciding the first time an item is seen."""
        hop = self._hop
        if index not in hop.indices:
            if is_memory_call(item, self.hidden):
                hop.indices[index] = HIDDEN
            else:
                hop.indices[index] = self._handed_out
                self._handed_out += 1
            self._echo = self._dropped = None  # start events come before the items: no more are compared
        if isinstance(item, dict):
            hop.items[index] = item  # added, then done with the item's final form
            hop.listed = hop.shown = None
        return hop.indices[index]

    def _last_response(self) -> dict[str, Any]:
        terminal = self._hop.terminal
        response = terminal.get("response") if terminal is not None else None
        return response if isinstance(response, dict) else {}

    def _hop_items(self) -> list[dict[str, Any]]:
        """This hop's items, listed once for however many readers ask."""
        hop = self._hop
        if hop.listed is None:
            hop.listed = self._items(self._last_response())
        return hop.listed

    def _hop_visible(self) -> list[Any]:
        hop = self._hop
        if hop.shown is None:
            hop.shown = visible(self._hop_items(), self.hidden)
        return hop.shown

    def _items(self, response: dict[str, Any]) -> list[dict[str, Any]]:
        """The hop's items: the final response's ``output``, else what its ``output_item`` events said."""
        output = response.get("output")
        if isinstance(output, list) and (output or not self._hop.items):
            return [item for item in output if isinstance(item, dict)]
        return [self._hop.items[index] for index in sorted(self._hop.items)]

    def _client_response(self, last: dict[str, Any], shown: list[Any]) -> dict[str, Any]:
        output = self._output + shown
        usage = add_usage(self._usage, last.get("usage"))
        return client_response(self._first or last, last, output, usage, self.hidden, self.previous)

    def _final(self) -> bytes:
        self._final_sent = self.ended = True
        terminal = self._hop.terminal
        if terminal is None:
            return self.error_event("the upstream ended the response without completing it")
        last = self._last_response()
        response = self._client_response(last, self._hop_visible())
        if response == last:
            return self._emit(terminal, self._hop.data, False)
        return self._emit({**terminal, "response": response}, b"", True)

    def _next_sequence(self) -> int:
        sequence = self._sequence
        self._sequence = sequence + 1
        return sequence

    def _emit(self, event: dict[str, Any], data: bytes, changed: bool) -> bytes:
        sequence = self._next_sequence()
        if event.get("sequence_number") != sequence:
            event["sequence_number"] = sequence
            changed = True
        return relay_event(event, data, changed)
