"""What the fake answers with (`Reply`, `ToolCall`) and what it saw (`SeenRequest`), plus the helpers both wire
formats share to turn a reply into word counts and stream fragments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

DEFAULT_CONTENT = "Hello from the fake upstream."
MODEL_IDS = ("fake-model", "fake-model-2")


@dataclass
class ToolCall:
    """A tool call the fake model makes; `arguments` given as a dict is JSON-encoded with orjson."""

    name: str
    arguments: str | dict = "{}"
    id: str | None = None  # default: f"call_{i}", i = position of the call in its reply

    def arguments_json(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else orjson.dumps(self.arguments).decode()


@dataclass
class Reply:
    """One scripted upstream answer; replies are consumed in FIFO order, one per completion request."""

    content: str | None = DEFAULT_CONTENT
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None  # default: "tool_calls" if tool_calls else "stop"
    usage: dict | None = None  # default: word counts of prompt and completion
    status: int = 200  # non-200: an error response carrying `error` and `headers`
    error: dict | None = None  # error body for non-200 (default: OpenAI's error shape)
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers, e.g. {"retry-after": "7"}
    raw_sse: bytes | None = None  # streaming only: served verbatim as the body, to replay real traces
    pieces: int = 3  # content and each tool call's arguments are split into this many stream fragments
    delay_s: float = 0.0  # sleep before sending response headers
    chunk_delay_s: float = 0.0  # sleep between SSE events
    fail_after_events: int | None = None  # streaming: abort the connection after this many events (no [DONE])
    error_event: dict | None = None  # streaming: after the content events send `data: <json>`, end without [DONE]

    def __post_init__(self) -> None:
        # Accept plain dicts for tool calls: `Reply(tool_calls=[{"name": "f", "arguments": {...}}])`.
        self.tool_calls = [tc if isinstance(tc, ToolCall) else ToolCall(**tc) for tc in self.tool_calls]


@dataclass
class SeenRequest:
    """What the fake received, for assertions; header names are lower-cased."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    json: Any | None  # the parsed body when it is JSON, else None


def loads_or_none(body: bytes) -> Any | None:
    """The parsed JSON body, or None when it is empty or not JSON: the fake answers bad bodies, it never raises."""
    if not body:
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def finish_reason(reply: Reply) -> str:
    """The reply's finish reason in OpenAI's terms (Anthropic's stop reason is mapped from it)."""
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _words(text: Any) -> int:
    return len(text.split()) if isinstance(text, str) else 0


def prompt_words(body: dict[str, Any]) -> int:
    """A deterministic stand-in for prompt tokens: words in message (and Anthropic system) text."""
    total = 0
    messages = body.get("messages")
    contents = [m.get("content") for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    contents.append(body.get("system"))
    for content in contents:
        if isinstance(content, list):
            total += sum(_words(part.get("text")) for part in content if isinstance(part, dict))
        else:
            total += _words(content)
    return max(total, 1)


def completion_words(reply: Reply) -> int:
    """A deterministic stand-in for completion tokens: words of the content and of each tool call."""
    return _words(reply.content) + sum(1 + _words(tc.arguments_json()) for tc in reply.tool_calls)


def split_text(text: str, pieces: int) -> list[str]:
    """Splits text into at most `pieces` non-empty fragments of near-equal length."""
    if not text:
        return []
    size = -(-len(text) // max(1, min(pieces, len(text))))
    return [text[i : i + size] for i in range(0, len(text), size)]


def split_raw(reply: Reply) -> list[bytes]:
    """`raw_sse` as one piece, or (with chunk_delay_s) one piece per SSE event, separators kept."""
    raw = reply.raw_sse or b""
    if not reply.chunk_delay_s:
        return [raw]
    parts = raw.split(b"\n\n")
    pieces = [part + b"\n\n" for part in parts[:-1]]
    return pieces + [parts[-1]] if parts[-1] else pieces


def sse_data(obj: Any) -> bytes:
    """One SSE ``data:`` event carrying `obj` as JSON (both formats frame their events this way)."""
    return b"data: " + orjson.dumps(obj) + b"\n\n"
