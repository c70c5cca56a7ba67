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
  ``[DONE]``, and only when the client asked for it; the upstream's own usage chunk, unknown fields
  (llama.cpp's ``timings``) and all, unless usage of several calls had to be summed;
- calls to the proxy's own tools (``hidden``) are held back whole, never relayed, and the finish
  reason of a turn that made them is held for the tool loop to decide on (COMPAT E1, E3). One
  normaliser serves every upstream call of a response (:meth:`ChunkNormaliser.next_hop`), so the
  client sees one ``id``, one ``role``, tool-call indices from 0 and usage summed over the calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Any

import orjson

from ..pipe.sse import LF, StreamProtocolError, encode_event, error_event
from .base import Call, Turn, add_usage, assistant_answer, call_message

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


@dataclass(slots=True)
class _ToolCall:
    id: str
    out_index: int = -1  # the index the client sees; -1 until relayed
    name: str | None = None
    hidden: bool = False  # one of the proxy's tools: held back whole
    made_up: bool = False  # the upstream sent no id (yet)
    pending: str = ""  # argument text received before the name
    arguments: str = ""

    @property
    def named(self) -> bool:
        return self.name is not None


@dataclass(slots=True)
class _Choice:
    role_sent: bool = False
    finished: bool = False
    relayed: int = 0  # tool calls relayed to the client in this turn
    calls: list[_ToolCall] = field(default_factory=list)
    by_id: dict[str, _ToolCall] = field(default_factory=dict)
    by_upstream_index: dict[int, _ToolCall] = field(default_factory=dict)
    content: list[str] = field(default_factory=list)  # this turn's text, kept only when tools are hidden


class ChunkNormaliser:
    """Per-response state; ``push`` each event's data, then ``finish`` once the upstream is done."""

    def __init__(self, *, include_usage: bool, hidden: frozenset[str] = frozenset()) -> None:
        self.include_usage = include_usage
        self.hidden = hidden  # names of the proxy's own tools
        self.id: str | None = None
        self.created: int | None = None
        self.model: str | None = None
        self.usage: dict[str, Any] | None = None  # this upstream call's
        self.usage_event: bytes | None = None  # its usage chunk as the upstream sent it (llama.cpp's `timings` too)
        self.earlier_usage: dict[str, Any] | None = None  # summed over the calls before it
        self.ended = False  # [DONE] or an error event was seen
        self.failed = False
        self.held_reason: str | None = None
        self.fingerprint: str | None = None
        self._choices: dict[int, _Choice] = {}
        self._text: list[str] = []  # choice 0's text over every hop: what the client read, for the transcript
        self._call_ids = count()

    @property
    def complete(self) -> bool:
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
            return encode_event(data if LF not in data else orjson.dumps(chunk))
        changed = self._normalise(chunk)
        if chunk.get("choices") == [] and chunk.get("usage") is not None:
            self.usage = chunk["usage"]  # held: exactly one usage chunk goes out, last
            self.usage_event = orjson.dumps(chunk) if changed or LF in data else data
            return b""
        if changed and self.hidden and _hollow(chunk):
            return b""  # it carried only what is held back
        if changed or LF in data:
            data = orjson.dumps(chunk)
        return encode_event(data)

    def finish(self) -> bytes:
        """The end of a successful stream: the usage chunk if asked for, then ``[DONE]``."""
        self.ended = True
        usage = add_usage(self.earlier_usage, self.usage)
        if not (self.include_usage and usage is not None):
            return DONE
        if self.earlier_usage is None and self.usage_event is not None:
            return encode_event(self.usage_event) + DONE  # nothing to sum: the upstream's own chunk, every field kept
        return encode_event(orjson.dumps(self._chunk([], usage=usage))) + DONE

    def error_event(
        self, message: str, *, code: str | None = "upstream_stream_error", type: str = "server_error"
    ) -> bytes:
        return error_event(message, code=code, type=type)

    def answer(self) -> list[dict[str, Any]]:
        """Choice 0's text over every hop, and the client's calls of its last (a turn with calls ends the loop)."""
        state = self._choices.get(0)
        calls = [
            call_message(Call(call.id, call.name or "", call.arguments))
            for call in (state.calls if state is not None else ())
            if not call.hidden and call.named
        ]
        return assistant_answer("".join(self._text), calls)

    response_id = None  # chat answers are never chained from
    chain_id = None
    called: tuple[tuple[str, str], ...] = ()
    brought: tuple[str, ...] = ()  # a chat answer never shows a tool the upstream ran (Dialect.hosted says it)

    def upstream_error(self, status: int, body: bytes) -> bytes:
        """An upstream's error status, met mid-stream: its error object as the stream's last event (COMPAT I2)."""
        try:
            error = orjson.loads(body).get("error")
        except (orjson.JSONDecodeError, AttributeError):
            error = None
        if not isinstance(error, dict):
            text = body.decode("utf-8", "replace")[:500]
            return error_event(f"upstream answered {status}: {text}", code="upstream_error")
        return encode_event(orjson.dumps({"error": error}))

    def hop_end(self) -> Turn:
        """What the upstream call that just ended left for the tool loop (choice 0: the loop runs only with n=1)."""
        state = self._choices.get(0) or _Choice()
        hidden = [Call(call.id, call.name or "", call.arguments) for call in state.calls if call.hidden]
        content = "".join(state.content) or None
        order = [call.id for call in state.calls]
        client = tuple((call.id, call.name or "") for call in state.calls if not call.hidden)
        cut = self.held_reason == "length"
        return Turn(hidden, order, state.relayed, self.held_reason, content, cut=cut, client_calls=client)

    def made_memory_calls(self) -> bool:
        state = self._choices.get(0)
        return state is not None and any(call.hidden for call in state.calls)

    def finish_chunk(self, reason: str | None) -> bytes:
        """The finish chunk held back at the end of a turn, sent once the loop has decided on it."""
        choice = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": reason}
        return encode_event(orjson.dumps(self._chunk([choice], usage=None)))

    def next_hop(self) -> None:
        """The next upstream call continues this response: same id, role already sent, calls counted anew."""
        self.earlier_usage = add_usage(self.earlier_usage, self.usage)
        self.usage = self.usage_event = None
        self.ended = False
        self.held_reason = None
        for state in self._choices.values():
            state.finished = False
            state.relayed = 0
            state.calls, state.by_id, state.by_upstream_index, state.content = [], {}, {}, []

    def _chunk(self, choices: list[dict[str, Any]], *, usage: dict[str, Any] | None) -> dict[str, Any]:
        chunk = {
            "id": self.id or "",
            "object": "chat.completion.chunk",
            "created": self.created or 0,
            "model": self.model or "",
            "choices": choices,
        }
        if self.fingerprint is not None:
            chunk["system_fingerprint"] = self.fingerprint
        if usage is not None or self.include_usage:
            chunk["usage"] = usage
        return chunk

    def _normalise(self, chunk: dict[str, Any]) -> bool:
        changed = False
        choices = chunk.get("choices")
        if choices is None:
            chunk["choices"] = choices = []
            changed = True
        if chunk.get("id"):
            if self.id is None:
                self.id, self.created, self.model = chunk["id"], chunk.get("created"), chunk.get("model")
                self.fingerprint = chunk.get("system_fingerprint")
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
            text = delta.get("content")
            if isinstance(text, str):
                if self.hidden:
                    state.content.append(text)
                if index == 0:
                    self._text.append(text)
        reason = choice.get("finish_reason")
        if reason is not None:
            state.finished = True
            if reason not in FINISH_REASONS:
                choice["finish_reason"] = reason = FINISH_REASON_MAP.get(reason, "stop")
                changed = True
            if state.calls and any(not call.named for call in state.calls):
                changed |= self._flush_nameless(choice, state)
            if any(call.hidden for call in state.calls):
                self.held_reason = reason  # the tool loop decides what the client sees
                choice["finish_reason"] = None
                changed = True
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
        if call is None and isinstance(upstream_index, int):
            known = state.by_upstream_index.get(upstream_index)
            if known is not None and call_id is None:
                call = known
            elif known is not None and call_id is not None and known.made_up and not known.named:
                call = known  # the id came late, with the name: the call it was held as, under its real id
                del state.by_id[call.id]
                call.id, call.made_up = call_id, False
                state.by_id[call.id] = call
        if call is None:
            call = _ToolCall(id=call_id or f"call_{self.id or 'mp'}_{next(self._call_ids)}", made_up=not call_id)
            state.calls.append(call)
            state.by_id[call.id] = call
        if isinstance(upstream_index, int):
            state.by_upstream_index[upstream_index] = call

        if not isinstance(function, dict):
            if call.out_index < 0:  # a custom tool or unknown shape: renumber only
                call.out_index, state.relayed = state.relayed, state.relayed + 1
            fragment["index"] = call.out_index
            return fragment
        if call.named:
            if call_id and arguments and arguments == call.arguments:
                return None  # a repeated summary of the whole call (LiteLLM)
            if not arguments:
                return None
            call.arguments += arguments
            if call.hidden:
                return None
            return {key: value for key, value in fragment.items() if key not in ("id", "type", "function")} | {
                "index": call.out_index,
                "function": {"arguments": arguments},
            }
        if not name:
            call.pending += arguments  # hold until the name is known (COMPAT C4)
            return None
        call.name = name
        call.arguments = call.pending + arguments
        call.pending = ""
        if name in self.hidden:
            call.hidden = True
            return None
        call.out_index, state.relayed = state.relayed, state.relayed + 1
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
            if not call.named:
                call.name = ""
                call.arguments = call.pending
                call.out_index, state.relayed = state.relayed, state.relayed + 1
                fragments.append(
                    {
                        "index": call.out_index,
                        "id": call.id,
                        "type": "function",
                        "function": {"name": "", "arguments": call.pending},
                    }
                )
        return True


def _hollow(chunk: dict[str, Any]) -> bool:
    """Nothing left to relay once held-back calls and finish reasons are taken out."""
    return (
        chunk.get("usage") is None
        and bool(chunk["choices"])
        and all(
            isinstance(choice, dict)
            and not choice.get("delta")
            and choice.get("finish_reason") is None
            and choice.get("logprobs") is None
            for choice in chunk["choices"]
        )
    )


def _arguments_text(arguments: Any) -> str:
    """Arguments as the JSON text clients concatenate (some upstreams send an object)."""
    if arguments is None:
        return ""
    return arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
