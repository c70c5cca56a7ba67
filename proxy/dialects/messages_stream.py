"""An Anthropic Messages stream through the tool loop: every hop's events relayed as one message's events.

What the client gets:

- one ``message_start``: the first hop's (its ``id`` and its usage so far); later hops' are read, not sent;
- every event of a memory ``tool_use`` block dropped: the block is known by its name in
  ``content_block_start``, before its ``input_json_delta`` events;
- content-block ``index`` renumbered contiguously over the hops;
- each hop's ``message_delta`` held back; one goes out at the end, with the stop reason the loop
  decided on (never ``tool_use`` without a call of the client's) and usage summed over the hops, as
  totals (Anthropic's SDKs overwrite rather than add); then one ``message_stop``;
- everything else as the upstream sent it, its own bytes when the index did not change (COMPAT B4):
  ``thinking`` deltas and ``signature_delta`` untouched, ``ping`` passed on;
- errors as Anthropic's ``error`` event, ``{"type": "error", "error": {"type", "message"}}``.

The blocks of each hop are rebuilt as they stream (:attr:`Turn.state`), so the next hop can carry the
model's turn back exactly, thinking signatures and all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from .base import Turn, add_usage, assistant_answer
from .messages_answer import block_turn, is_memory_call, known_usage
from .messages_errors import error_object, error_type, upstream_error_object
from .messages_input import brought, chat_call
from .named_sse import dump_event, load_event, relay_event

SUMMED = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens", "server_tool_use")
STOP = orjson.dumps({"type": "message_stop"})


@dataclass(slots=True)
class _Block:
    block: dict[str, Any]
    hidden: bool
    index: int  # the client's (-1 when hidden)
    json: str = ""  # input_json_delta so far


@dataclass(slots=True)
class _Hop:
    blocks: dict[int, _Block] = field(default_factory=dict)
    usage: dict[str, Any] | None = None  # message_start's, overlaid by message_delta's
    delta: dict[str, Any] | None = None  # the held message_delta
    data: bytes = b""  # its bytes as the upstream sent them


class MessageEvents:
    """Per-message state; ``push`` each event's data; the tool loop calls ``hop_end`` and ``next_hop``."""

    def __init__(self, *, hidden: frozenset[str] = frozenset()) -> None:
        self.hidden = hidden
        self.ended = False
        self.failed = False
        self._handed_out = 0
        self._hops = 0
        self._usage: dict[str, Any] | None = None  # summed over the hops before this one
        self._hop = _Hop()
        self._delta_sent = False
        self._text: list[str] = []  # what the client read, for the session's transcript
        self._brought: tuple[str, ...] = ()  # what the hops before this one brought in from outside

    @property
    def complete(self) -> bool:
        """The stop reason came: a close without ``message_stop`` still ends the message."""
        return self._hop.delta is not None

    def push(self, data: bytes) -> bytes:
        event = load_event(data)
        kind = event["type"]
        if kind == "error":
            self.ended = self.failed = True
            return relay_event(event, data, False)
        if kind == "message_start":
            message = event.get("message")
            self._hop.usage = known_usage(message.get("usage") if isinstance(message, dict) else None)
            return b"" if self._hops else relay_event(event, data, False)
        if kind == "message_delta":
            self._hop.delta, self._hop.data = event, data
            # Counts on a message_delta are the message's totals so far: they replace message_start's.
            self._hop.usage = {**(self._hop.usage or {}), **(known_usage(event.get("usage")) or {})}
            return b""
        if kind == "message_stop":
            self.ended = True
            return b""
        index = event.get("index")
        if kind.startswith("content_block_") and isinstance(index, int):
            block = self._block(kind, index, event)
            if block.hidden:
                return b""
            delta = event.get("delta")
            if kind == "content_block_delta" and isinstance(delta, dict) and isinstance(delta.get("text"), str):
                self._text.append(delta["text"])
            if block.index != index:
                event["index"] = block.index
                return relay_event(event, data, True)
        return relay_event(event, data, False)  # ping, and events this proxy does not know

    def finish_chunk(self, reason: str | None) -> bytes:
        """The held ``message_delta``, with the stop reason the loop decided on and the summed usage."""
        self._delta_sent = True
        hop = self._hop
        delta = hop.delta or {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}}
        found = delta.get("delta")
        upstream: dict[str, Any] = found if isinstance(found, dict) else {}
        if not self._hops and hop.delta is not None and reason in (None, upstream.get("stop_reason")):
            return relay_event(delta, hop.data, False)
        usage = add_usage(self._usage, hop.usage) or {}
        reported = dict(delta.get("usage") or {}) | {key: usage[key] for key in SUMMED if key in usage}
        stop = {**upstream, "stop_reason": reason if reason is not None else upstream.get("stop_reason")}
        return dump_event({**delta, "delta": stop, "usage": reported})

    def finish(self) -> bytes:
        """The end of the message: its ``message_delta`` unless the loop sent it, then ``message_stop``."""
        self.ended = True
        head = b"" if self._delta_sent else self.finish_chunk(None)
        return head + relay_event({"type": "message_stop"}, STOP, False)

    def answer(self) -> list[dict[str, Any]]:
        """The text the client read over every hop, and the client's calls of the last (a turn with them ends the
        loop)."""
        blocks = (block.block for _, block in sorted(self._hop.blocks.items()) if not block.hidden)
        return assistant_answer("".join(self._text), [call for call in map(chat_call, blocks) if call is not None])

    response_id = None  # Messages requests never chain: every request carries the whole conversation
    chain_id = None
    called: tuple[tuple[str, str], ...] = ()

    @property
    def brought(self) -> tuple[str, ...]:
        """What the hops so far brought in from outside (server tools, the MCP connector's calls)."""
        blocks = [block.block for block in self._hop.blocks.values() if not block.hidden]
        return tuple(dict.fromkeys([*self._brought, *brought(blocks)]))

    def hop_end(self) -> Turn:
        blocks = [block.block for _, block in sorted(self._hop.blocks.items())]
        delta = self._hop.delta.get("delta") if self._hop.delta is not None else None
        return block_turn(blocks, self.hidden, delta.get("stop_reason") if isinstance(delta, dict) else None)

    def made_memory_calls(self) -> bool:
        hidden = self.hidden
        return bool(hidden) and any(is_memory_call(block.block, hidden) for block in self._hop.blocks.values())

    def next_hop(self) -> None:
        self._brought = self.brought
        self._usage = add_usage(self._usage, self._hop.usage)
        self._hop = _Hop()
        self._hops += 1
        self.ended = False

    def error_event(
        self, message: str, *, code: str | None = "upstream_stream_error", type: str = "server_error"
    ) -> bytes:
        self.ended = self.failed = True
        return dump_event(error_object(error_type(None, type), message))

    def upstream_error(self, status: int, body: bytes) -> bytes:
        self.ended = self.failed = True
        return dump_event(upstream_error_object(status, body))

    def _block(self, kind: str, index: int, event: dict[str, Any]) -> _Block:
        """The block an event belongs to, decided the first time it is seen; deltas folded into it."""
        block = self._hop.blocks.get(index)
        if block is None:
            start = event.get("content_block") if kind == "content_block_start" else None
            content = dict(start) if isinstance(start, dict) else {}
            hidden = is_memory_call(content, self.hidden)
            block = _Block(content, hidden, -1 if hidden else self._handed_out)
            self._handed_out += 0 if hidden else 1
            self._hop.blocks[index] = block
        delta = event.get("delta")
        if kind == "content_block_delta" and isinstance(delta, dict):
            _fold(block, delta)
        elif kind == "content_block_stop" and block.json:
            try:
                block.block["input"] = orjson.loads(block.json)
            except orjson.JSONDecodeError:
                block.block["input"] = {}  # a broken call: run with no arguments, it answers with an error
        return block


def _fold(block: _Block, delta: dict[str, Any]) -> None:
    content = block.block
    kind = delta.get("type")
    if kind == "text_delta":
        content["text"] = content.get("text", "") + str(delta.get("text", ""))
    elif kind == "input_json_delta":
        block.json += str(delta.get("partial_json", ""))
    elif kind == "thinking_delta":
        content["thinking"] = content.get("thinking", "") + str(delta.get("thinking", ""))
    elif kind == "signature_delta":
        content["signature"] = delta.get("signature")
    elif kind == "citations_delta":
        content["citations"] = [*(content.get("citations") or ()), delta.get("citation")]
