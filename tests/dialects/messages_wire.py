"""Anthropic Messages objects and streams as Anthropic sends them, for the Messages dialect's tests.

Shapes follow anthropic-sdk-python's ``types`` (``RawMessageStreamEvent`` and its members, ``Message``),
which :func:`check_event` and :func:`check_message` validate against when the SDK is installed (it is not a
dependency of the proxy: ``pip install anthropic``); tests that need it are skipped without it.
"""

from __future__ import annotations

import functools
from typing import Any

import orjson
import pydantic
import pytest

SIGNATURE = "EqQBCkgIARABGAIiQL2" + "x" * 120 + "=="
CLIENT_TOOL = {
    "name": "get_weather",
    "description": "Weather for a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}


def usage(input_tokens: int, output_tokens: int, *, read: int = 0, created: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": created,
        "cache_read_input_tokens": read,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def message(
    id: str, content: list[dict[str, Any]], stop_reason: str = "end_turn", used: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": used or usage(10, 5),
    }


def thinking(text: str, signature: str = SIGNATURE) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": signature}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": arguments}


def block_events(index: int, block: dict[str, Any]) -> list[dict[str, Any]]:
    """The events that stream one finished block at ``index``."""
    kind = block["type"]
    if kind == "text":
        start, deltas = (
            {**block, "text": ""},
            [{"type": "text_delta", "text": piece} for piece in _halves(block["text"])],
        )
    elif kind == "thinking":
        start = {**block, "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in _halves(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind in ("tool_use", "server_tool_use"):
        arguments = orjson.dumps(block["input"]).decode()
        start = {**block, "input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in ["", *_halves(arguments)]]
    else:
        start, deltas = block, []
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def _halves(value: str) -> list[str]:
    cut = max(len(value) // 2, 1)
    return [value[i : i + cut] for i in range(0, len(value), cut)] or [""]


def hop_events(final: dict[str, Any]) -> list[dict[str, Any]]:
    """A whole upstream stream for the message ``final``."""
    started_usage = {**final["usage"], "output_tokens": 1}
    start = {**final, "content": [], "stop_reason": None, "usage": started_usage}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(final["content"]):
        events += block_events(index, block)
        if index == 0:
            events.append({"type": "ping"})
    delta_usage = {key: final["usage"][key] for key in ("output_tokens",)}
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": final["stop_reason"], "stop_sequence": None},
            "usage": delta_usage,
        }
    )
    events.append({"type": "message_stop"})
    return events


def encode(events: list[dict[str, Any]]) -> list[bytes]:
    return [orjson.dumps(event) for event in events]


def frame(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n" for e in events)


def sdk() -> Any:
    """The anthropic SDK, or the test is skipped."""
    return pytest.importorskip("anthropic")


@functools.cache
def _events() -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(sdk().types.RawMessageStreamEvent)


def check_event(event: dict[str, Any]) -> None:
    """The event is one of Anthropic's own stream events, with every field its type requires."""
    if event["type"] == "ping":
        assert event == {"type": "ping"}
    elif event["type"] == "error":
        assert set(event) == {"type", "error"} and set(event["error"]) == {"type", "message"}
    else:
        _events().validate_python(event)


def check_message(body: dict[str, Any]) -> None:
    sdk().types.Message.model_validate(body)
