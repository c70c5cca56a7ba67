"""What the fake answers with (`Reply`, `ToolCall`) and what it saw (`SeenRequest`), plus the helpers both wire
formats share to turn a reply into word counts and stream fragments."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
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
    # What the upstream's own tools made, first in the answer: Responses output items (`web_search_call`, `mcp_call`,
    # ...) or Anthropic content blocks (`server_tool_use`, `web_fetch_tool_result`, ...), sent as given (streamed as
    # their item's or block's events). Chat completions have no such place: they ignore it.
    items: list[dict] = field(default_factory=list)
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


class BadReply(ValueError):
    """A scripted reply given as JSON that is not `Reply`'s shape; the message names the field."""


def reply_from_json(data: Any) -> Reply:
    """A `Reply` from its JSON shape, for scripting over HTTP: an object with `Reply`'s field names (``raw_sse``
    as text, ``tool_calls`` as ``{"name", "arguments", "id"?}``), or a string for ``{"content": <string>}``."""
    from pydantic import TypeAdapter, ValidationError  # only the standalone fake's control route needs it

    if isinstance(data, str):
        return Reply(data)
    if not isinstance(data, dict):
        raise BadReply(f"a reply is a JSON object or a string, got {type(data).__name__}")
    _no_unknown_fields(data, Reply, "")
    for i, call in enumerate(data.get("tool_calls") or ()):
        if isinstance(call, dict):
            _no_unknown_fields(call, ToolCall, f"tool_calls.{i}.")
    try:
        return TypeAdapter(Reply).validate_python(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise BadReply(f"{where}: {error['msg']}") from None


def _no_unknown_fields(data: dict[str, Any], kind: type, prefix: str) -> None:
    known = {f.name for f in fields(kind)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise BadReply(f"{prefix}{unknown[0]}: unknown field (known: {', '.join(sorted(known))})")


def seen_request_json(seen: SeenRequest) -> dict[str, Any]:
    """A received request as JSON, for ``GET /_fake/requests``: the body as text besides its parsed JSON."""
    shown = asdict(seen)
    shown["body"] = seen.body.decode("utf-8", errors="replace")
    return shown


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
