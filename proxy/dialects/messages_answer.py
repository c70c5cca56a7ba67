"""A non-streamed Messages request through the tool loop: each hop's ``message`` read, one assembled.

A memory call is a ``tool_use`` block named after one of the proxy's tools. The client gets one message
(COMPAT E1, E7 in this format): the first hop's ``id``, every hop's other blocks in order (thinking with
its signature, text, server tools, its own ``tool_use``), ``stop_reason`` ``tool_use`` only when a call
of its own remains (``end_turn`` otherwise), and usage summed over the hops (``input_tokens``,
``output_tokens``, ``cache_creation_input_tokens``, ``cache_read_input_tokens``). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from .base import Call, Turn, add_usage
from .messages_input import brought


def is_memory_call(block: Any, hidden: frozenset[str]) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") in hidden


def block_turn(blocks: Sequence[dict[str, Any]], hidden: frozenset[str], stop_reason: Any) -> Turn:
    """The loop's view of one hop: its memory calls, every call id in order, the client's calls counted."""
    mine: list[Call] = []
    order: list[str] = []
    relayed = 0
    for block in blocks:
        if block.get("type") != "tool_use" or not isinstance(block.get("id"), str):
            continue
        order.append(block["id"])
        if is_memory_call(block, hidden):
            mine.append(Call(block["id"], block["name"], orjson.dumps(block.get("input", {})).decode()))
        else:
            relayed += 1
    texts = [block["text"] for block in blocks if block.get("type") == "text" and isinstance(block.get("text"), str)]
    reason = stop_reason if isinstance(stop_reason, str) else None
    return Turn(mine, order, relayed, reason, "".join(texts) or None, cut=reason == "max_tokens", state=tuple(blocks))


def visible_reason(reason: str | None, relayed: int) -> str | None:
    """Never ``tool_use`` without a call of the client's own left in the message."""
    return "end_turn" if reason == "tool_use" and not relayed else reason


def known_usage(usage: Any) -> dict[str, Any] | None:
    """Usage without its nulls, so that a later hop's missing count never erases an earlier one's."""
    if not isinstance(usage, dict):
        return None
    return {key: value for key, value in usage.items() if value is not None}


class MessageAnswers:
    def __init__(self, hidden: frozenset[str]) -> None:
        self.hidden = hidden
        self._first: dict[str, Any] | None = None
        self._last: dict[str, Any] = {}
        self._relayed = 0
        self._content: list[Any] = []
        self._usage: dict[str, Any] | None = None

    def read(self, body: bytes) -> Turn | None:
        message = _message(body)
        if message is None:
            return None
        self._first = self._first or message
        self._last = message
        blocks = [block for block in message["content"] if isinstance(block, dict)]
        self._content += [block for block in message["content"] if not is_memory_call(block, self.hidden)]
        self._usage = add_usage(self._usage, known_usage(message.get("usage")))
        turn = block_turn(blocks, self.hidden, message.get("stop_reason"))
        self._relayed = turn.relayed
        return turn

    response_id = None  # Messages answers are never chained from
    chain_id = None
    rewrites = False
    called: tuple[tuple[str, str], ...] = ()

    @property
    def brought(self) -> tuple[str, ...]:
        """What the hops read so far brought in from outside (server tools, the MCP connector's calls)."""
        return brought(self._content)

    def glance(self, body: bytes) -> None:
        """An answer that went back untouched is read now when it may hold a server tool's blocks (their types all
        have ``_tool_`` in them): what they brought in is the session's."""
        if self._first is None and b"_tool_" in body:
            self.read(body)

    def result(self) -> bytes:
        message = dict(self._last)
        if self._first is not None:
            message["id"] = self._first.get("id")
        message["content"] = self._content
        message["stop_reason"] = visible_reason(message.get("stop_reason"), self._relayed)
        if self._usage is not None:
            message["usage"] = self._usage
        return orjson.dumps(message)


def _message(body: bytes) -> dict[str, Any] | None:
    """A message object with a ``content`` list, or None for anything else."""
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if (
        not isinstance(message, dict)
        or message.get("type") != "message"
        or not isinstance(message.get("content"), list)
    ):
        return None
    return message
