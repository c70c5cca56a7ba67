"""Normalise an upstream's chat-completion chunks into the stream OpenAI's clients expect.

Upstreams differ (vLLM, Ollama, LiteLLM, OpenRouter, Copilot: COMPAT B, C, D, N); clients
are strict. Each chunk is edited as little as possible and re-sent as the upstream's own bytes
when nothing needed fixing (COMPAT B4):

- one ``id`` and ``created`` on every chunk; ``choices: null`` becomes ``[]``;
- ``delta.role`` only in a choice's first delta;
- tool calls renumbered per choice contiguously from 0, told apart by id when the upstream
  reuses an index; ``id``/``type``/``name`` only in a call's first fragment, which is held
  until the name is known; repeated summaries of a finished call dropped; missing ids made up;
- finish reasons outside OpenAI's set mapped to it;
- usage wherever the upstream put it becomes exactly one ``choices: []`` chunk before
  ``[DONE]``, and only when the client asked for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Any

import orjson

FINISH_REASONS = frozenset({"stop", "length", "tool_calls", "content_filter", "function_call"})
FINISH_REASON_MAP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "eos": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "model_length": "length",
}
DONE = b"data: [DONE]\n\n"


class StreamProtocolError(Exception):
    """The upstream sent something that is not a chat-completion chunk."""


def encode_event(data: bytes) -> bytes:
    return b"data: " + data + b"\n\n"


def error_event(message: str, *, code: str = "upstream_stream_error", type: str = "server_error") -> bytes:
    """The one event that ends a failed stream (OpenAI's own mid-stream error shape, COMPAT I2)."""
    return encode_event(orjson.dumps({"error": {"message": message, "type": type, "param": None, "code": code}}))


@dataclass(slots=True)
class _ToolCall:
    out_index: int
    id: str
    name_sent: bool = False
    pending: str = ""  # argument text received before the name
    arguments: str = ""


@dataclass(slots=True)
class _Choice:
    role_sent: bool = False
    finished: bool = False
    calls: list[_ToolCall] = field(default_factory=list)
    by_id: dict[str, _ToolCall] = field(default_factory=dict)
    by_upstream_index: dict[int, _ToolCall] = field(default_factory=dict)


class ChunkNormaliser:
    """Per-response state; ``push`` each event's data, then ``finish`` once the upstream is done."""

    def __init__(self, *, include_usage: bool) -> None:
        self.include_usage = include_usage
        self.id: str | None = None
        self.created: int | None = None
        self.model: str | None = None
        self.usage: dict[str, Any] | None = None
        self.ended = False  # [DONE] or an error event was seen
        self.failed = False
        self._choices: dict[int, _Choice] = {}
        self._call_ids = count()

    @property
    def all_choices_finished(self) -> bool:
        return bool(self._choices) and all(choice.finished for choice in self._choices.values())

    def push(self, data: bytes) -> bytes:
        """Return the bytes to relay for one upstream event (possibly nothing)."""
        stripped = data.strip()
        if stripped == b"[DONE]":
            self.ended = True
            return b""
        if stripped in (b"", b"null"):
            return b""
        try:
            chunk = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise StreamProtocolError(f"upstream sent an event that is not JSON: {data[:80]!r}") from exc
        if not isinstance(chunk, dict):
            raise StreamProtocolError("upstream sent an event that is not a JSON object")
        if "error" in chunk and not chunk.get("choices"):
            self.ended = self.failed = True
            return encode_event(data if b"\n" not in data else orjson.dumps(chunk))
        changed = self._normalise(chunk)
        if chunk.get("choices") == [] and chunk.get("usage") is not None:
            self.usage = chunk["usage"]  # held: exactly one usage chunk goes out, last
            return b""
        if changed or b"\n" in data:
            data = orjson.dumps(chunk)
        return encode_event(data)

    def finish(self) -> bytes:
        """The end of a successful stream: the usage chunk if asked for, then ``[DONE]``."""
        self.ended = True
        if not (self.include_usage and self.usage is not None):
            return DONE
        usage_chunk = {
            "id": self.id or "",
            "object": "chat.completion.chunk",
            "created": self.created or 0,
            "model": self.model or "",
            "choices": [],
            "usage": self.usage,
        }
        return encode_event(orjson.dumps(usage_chunk)) + DONE

    def _normalise(self, chunk: dict[str, Any]) -> bool:
        changed = False
        choices = chunk.get("choices")
        if choices is None:
            chunk["choices"] = choices = []
            changed = True
        if chunk.get("id"):
            if self.id is None:
                self.id, self.created, self.model = chunk["id"], chunk.get("created"), chunk.get("model")
            elif chunk["id"] != self.id:
                chunk["id"] = self.id
                changed = True
            if self.created is not None and chunk.get("created") != self.created:
                chunk["created"] = self.created
                changed = True
        if choices and chunk.get("usage") is not None:
            self.usage = chunk["usage"]  # usage riding on a choice chunk (Copilot, cumulative usage)
            chunk["usage"] = None
            changed = True
        for position, choice in enumerate(choices):
            if isinstance(choice, dict):
                changed |= self._normalise_choice(choice, position)
        return changed

    def _normalise_choice(self, choice: dict[str, Any], position: int) -> bool:
        changed = False
        index = choice.get("index")
        if not isinstance(index, int):
            choice["index"] = index = position
            changed = True
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = _Choice()
        delta = choice.get("delta")
        if isinstance(delta, dict):
            if "role" in delta:
                if state.role_sent:
                    del delta["role"]
                    changed = True
                state.role_sent = True
            if "tool_calls" in delta:
                changed |= self._normalise_tool_calls(delta, state)
        reason = choice.get("finish_reason")
        if reason is not None:
            state.finished = True
            if reason not in FINISH_REASONS:
                choice["finish_reason"] = FINISH_REASON_MAP.get(reason, "stop")
                changed = True
            if state.calls and any(not call.name_sent for call in state.calls):
                changed |= self._flush_nameless(choice, state)
        return changed

    def _normalise_tool_calls(self, delta: dict[str, Any], state: _Choice) -> bool:
        fragments = delta["tool_calls"]
        if not isinstance(fragments, list):
            return False
        relayed: list[dict[str, Any]] = []
        for fragment in fragments:
            if not isinstance(fragment, dict):
                continue
            out = self._normalise_fragment(fragment, state)
            if out is not None:
                relayed.append(out)
        if relayed:
            delta["tool_calls"] = relayed
        else:
            del delta["tool_calls"]  # never an empty list (COMPAT C5)
        return True

    def _normalise_fragment(self, fragment: dict[str, Any], state: _Choice) -> dict[str, Any] | None:
        upstream_index = fragment.get("index")
        call_id = fragment.get("id") or None
        function = fragment.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        arguments = _arguments_text(function.get("arguments") if isinstance(function, dict) else None)

        call = state.by_id.get(call_id) if call_id else None
        if call is None and call_id is None and isinstance(upstream_index, int):
            call = state.by_upstream_index.get(upstream_index)
        if call is None:
            call = _ToolCall(out_index=len(state.calls), id=call_id or f"call_{self.id or 'mp'}_{next(self._call_ids)}")
            state.calls.append(call)
            state.by_id[call.id] = call
        if isinstance(upstream_index, int):
            state.by_upstream_index[upstream_index] = call

        if not isinstance(function, dict):
            fragment["index"] = call.out_index  # a custom tool or unknown shape: renumber only
            return fragment
        if call.name_sent:
            if call_id and arguments and arguments == call.arguments:
                return None  # a repeated summary of the whole call (LiteLLM)
            if not arguments:
                return None
            call.arguments += arguments
            return {key: value for key, value in fragment.items() if key not in ("id", "type", "function")} | {
                "index": call.out_index,
                "function": {"arguments": arguments},
            }
        if not name:
            call.pending += arguments  # hold until the name is known (COMPAT C4)
            return None
        call.name_sent = True
        call.arguments = call.pending + arguments
        call.pending = ""
        fragment["index"] = call.out_index
        fragment["id"] = call.id
        fragment.setdefault("type", "function")
        function["arguments"] = call.arguments
        return fragment

    def _flush_nameless(self, choice: dict[str, Any], state: _Choice) -> bool:
        """A call whose name never came still reaches the client rather than vanishing."""
        delta = choice.setdefault("delta", {})
        fragments = delta.setdefault("tool_calls", [])
        for call in state.calls:
            if not call.name_sent:
                call.name_sent = True
                call.arguments = call.pending
                fragments.append(
                    {
                        "index": call.out_index,
                        "id": call.id,
                        "type": "function",
                        "function": {"name": "", "arguments": call.pending},
                    }
                )
        return True


def _arguments_text(arguments: Any) -> str:
    """Arguments as the JSON text clients concatenate (some upstreams send an object)."""
    if arguments is None:
        return ""
    return arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
