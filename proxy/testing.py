"""A scriptable fake OpenAI-compatible upstream, for replay tests of memproxy and of code that sits behind it.

Queue `Reply` objects on a `FakeUpstream`, point a client (or the proxy) at `base_url`, and assert on `requests`.
The fake speaks OpenAI's wire format closely enough for the official SDK, litellm and OpenAI's own schemas,
plus a minimal Anthropic Messages API so litellm's ``anthropic/...`` provider can be pointed at it too.

Use it in pytest with ``pytest_plugins = ["proxy.testing"]`` (fixture ``fake_upstream``), in code with
``with run_fake_upstream() as fake: ...``, or standalone with ``python -m proxy.testing --port 9100``.

PYTEST_DONT_REWRITE: this module has no asserts to rewrite, and the marker lets a conftest import it before it is
registered as a plugin without pytest warning "Module already imported so cannot be rewritten".
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import logging
import struct
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from .background import serve_in_background

try:  # the fixtures below are optional: `import proxy.testing` must work without pytest installed
    import pytest
except ImportError:  # pragma: no cover
    pytest = None  # type: ignore[assignment]

__all__ = [
    "FakeUpstream",
    "Reply",
    "SeenRequest",
    "ToolCall",
    "extraction_reply",
    "is_extraction",
    "main",
    "run_fake_upstream",
]

DEFAULT_CONTENT = "Hello from the fake upstream."
MODEL_IDS = ("fake-model", "fake-model-2")
MODEL_CREATED = 1_700_000_000
EMBEDDING_DIMS = 8
KEEP_ALIVE_S = 75  # nginx's default, and longer than any client here keeps an idle connection
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
_DONE = b"data: [DONE]\n\n"
# OpenAI error (type, code) and Anthropic error type by status, for scripted errors without an explicit body.
_OPENAI_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}
_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_ANTHROPIC_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


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


class _AbortStream(Exception):
    """Raised inside a stream to make uvicorn drop the connection mid-body (scripted upstream failure)."""


class _QuietAborts(logging.Filter):
    """Keeps uvicorn from logging a traceback for the deliberate `_AbortStream` failures."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, BaseExceptionGroup):
            return exc.subgroup(_AbortStream) is None
        return not isinstance(exc, _AbortStream)


def _quiet_deliberate_aborts() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietAborts) for f in logger.filters):
        logger.addFilter(_QuietAborts())


class _FakeStream(StreamingResponse):
    """A StreamingResponse that tells the fake when its client went away before the stream finished."""

    def __init__(self, fake: FakeUpstream, events: list[bytes], reply: Reply, headers: dict[str, str]) -> None:
        super().__init__(_iterate(events, reply), media_type="text/event-stream", headers=headers)
        self._fake = fake
        self._delayed = reply.chunk_delay_s > 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._delayed:
            await super().__call__(scope, receive, send)  # watches for the client leaving between events
        else:
            await self.stream_response(send)  # nothing to wait on, so skip the watcher: the benchmark's hot path

    async def stream_response(self, send: Send) -> None:
        finished = False
        try:
            await super().stream_response(send)
            finished = True
        except _AbortStream:
            finished = True
            raise
        finally:
            if not finished:  # cancelled on disconnect (ASGI 2.3) or failed to send (ASGI 2.4)
                self._fake.cancelled_streams += 1
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                await aclose()


async def _iterate(events: list[bytes], reply: Reply) -> AsyncIterator[bytes]:
    for i, event in enumerate(events):
        if reply.fail_after_events is not None and i >= reply.fail_after_events:
            raise _AbortStream(f"scripted abort after {i} events")
        if i and reply.chunk_delay_s:
            await asyncio.sleep(reply.chunk_delay_s)
        yield event


class FakeUpstream:
    """The fake's state (reply queue, seen requests, counters) and its Starlette app."""

    def __init__(self, *, record_requests: bool = True) -> None:
        self.requests: list[SeenRequest] = []
        self.cancelled_streams = 0  # streams (or delay_s waits) whose client went away before the end
        self.base_url = ""  # set by the runner once the server listens
        self.record_requests = record_requests  # off for load tests, where the list would grow without bound
        self._queue: deque[Reply] = deque()
        self._responder: Callable[[dict[str, Any]], Reply] | None = None
        self._request_n = 0
        self._completion_n = 0
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat_completions, methods=["POST"]),
                Route("/v1/messages", self._anthropic_messages, methods=["POST"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
                Route("/v1/models", self._list_models, methods=["GET"]),
                Route("/v1/models/{model_id:path}", self._get_model, methods=["GET"]),
                Route("/{path:path}", self._echo, methods=_ALL_METHODS),
            ]
        )

    @property
    def root_url(self) -> str:
        """`base_url` without the `/v1` suffix (what litellm's anthropic provider wants as api_base)."""
        return self.base_url.removesuffix("/v1")

    def reply(self, reply: Reply | None = None, /, **fields: Any) -> Reply:
        """Queue a reply, given either as a `Reply` or as its fields; returns it."""
        if reply is not None and fields:
            raise TypeError("pass either a Reply or its fields, not both")
        queued = reply if reply is not None else Reply(**fields)
        self._queue.append(queued)
        return queued

    def respond_with(self, responder: Callable[[dict[str, Any]], Reply] | None) -> None:
        """Answer from a function of the request body whenever no reply is queued (a tiny scripted model)."""
        self._responder = responder

    def reset(self) -> None:
        """Forget queued replies, the responder, seen requests and counters (between tests)."""
        self._queue.clear()
        self._responder = None
        self.requests.clear()
        self.cancelled_streams = 0
        self._request_n = 0
        self._completion_n = 0

    # -- plumbing ---------------------------------------------------------------------------------------------

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self._queue:
            return self._queue.popleft()
        return self._responder(body) if self._responder is not None else Reply()

    async def _record(self, request: Request) -> tuple[Any, dict[str, str]]:
        """Reads the body, records the request, and returns (parsed JSON or None, the base response headers)."""
        body = await request.body()
        parsed = _loads(body)
        if self.record_requests:
            headers: dict[str, str] = {}
            for name, value in request.headers.items():
                headers[name] = f"{headers[name]}, {value}" if name in headers else value
            self.requests.append(
                SeenRequest(request.method, request.url.path, request.url.query, headers, body, parsed)
            )
        self._request_n += 1
        return parsed, {"x-request-id": f"req_{self._request_n}"}

    async def _delay(self, request: Request, reply: Reply) -> bool:
        """Sleeps `reply.delay_s`; returns False (and counts it) if the client went away meanwhile."""
        if reply.delay_s <= 0:
            return True
        if await _client_left_during(request, reply.delay_s):
            self.cancelled_streams += 1
            return False
        return True

    # -- endpoints --------------------------------------------------------------------------------------------

    async def _chat_completions(self, request: Request) -> Response:
        started = time.perf_counter()
        body, headers = await self._record(request)
        if not isinstance(body, dict):
            error = _openai_error(400, "We could not parse the JSON body of your request.")
            return _json(error, 400, _timed(headers, started))
        reply = self._next_reply(body)
        if not await self._delay(request, reply):
            return Response(status_code=499)  # the client is gone; nobody reads this
        headers.update(reply.headers)
        if reply.status != 200:
            return _json(reply.error or _openai_error(reply.status), reply.status, _timed(headers, started))
        stream = bool(body.get("stream"))
        if stream and reply.raw_sse is not None:
            return _FakeStream(self, _split_raw(reply), reply, _timed(headers, started))

        self._completion_n += 1
        cid, created = f"chatcmpl-{self._completion_n}", int(time.time())
        model = body.get("model") or MODEL_IDS[0]
        n = body.get("n")
        n = n if isinstance(n, int) and n > 0 else 1
        usage = reply.usage or _usage(_prompt_words(body), _completion_words(reply) * n)
        if stream:
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
            events = _chat_stream_events(reply, cid, created, model, n, usage if include_usage else None)
            return _FakeStream(self, events, reply, _timed(headers, started))
        completion = {
            "id": cid,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_fake",
            "choices": [_chat_choice(reply, i) for i in range(n)],
            "usage": usage,
            "service_tier": "default",
        }
        return _json(completion, 200, _timed(headers, started))

    async def _anthropic_messages(self, request: Request) -> Response:
        started = time.perf_counter()
        body, headers = await self._record(request)
        headers["request-id"] = headers["x-request-id"]
        if not isinstance(body, dict):
            return _json(_anthropic_error(400, "The request body is not valid JSON."), 400, _timed(headers, started))
        reply = self._next_reply(body)
        if not await self._delay(request, reply):
            return Response(status_code=499)
        headers.update(reply.headers)
        if reply.status != 200:
            return _json(reply.error or _anthropic_error(reply.status), reply.status, _timed(headers, started))
        stream = bool(body.get("stream"))
        if stream and reply.raw_sse is not None:
            return _FakeStream(self, _split_raw(reply), reply, _timed(headers, started))

        self._completion_n += 1
        mid = f"msg_fake_{self._completion_n}"
        model = body.get("model") or MODEL_IDS[0]
        prompt = _prompt_words(body)
        output = _completion_words(reply)
        if reply.usage:
            prompt = reply.usage.get("prompt_tokens", reply.usage.get("input_tokens", prompt))
            output = reply.usage.get("completion_tokens", reply.usage.get("output_tokens", output))
        finish = _finish_reason(reply)
        stop_reason = _ANTHROPIC_STOP.get(finish, finish)
        if stream:
            events = _anthropic_stream_events(reply, mid, model, prompt, output, stop_reason)
            return _FakeStream(self, events, reply, _timed(headers, started))
        blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.content}] if reply.content else []
        for i, tc in enumerate(reply.tool_calls):
            blocks.append({"type": "tool_use", "id": tc.id or f"toolu_{i}", "name": tc.name, "input": _tool_input(tc)})
        message = {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": blocks,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": output},
        }
        return _json(message, 200, _timed(headers, started))

    async def _embeddings(self, request: Request) -> Response:
        started = time.perf_counter()
        body, headers = await self._record(request)
        if not isinstance(body, dict):
            error = _openai_error(400, "We could not parse the JSON body of your request.")
            return _json(error, 400, _timed(headers, started))
        raw = body.get("input")
        texts: list[Any] = []
        if isinstance(raw, str) or (isinstance(raw, list) and raw and isinstance(raw[0], int)):
            texts = [raw]  # one string, or one pre-tokenised input
        elif isinstance(raw, list):
            texts = raw
        as_base64 = body.get("encoding_format") == "base64"  # the openai SDK asks for base64 by default
        data = []
        for i, text in enumerate(texts):
            vector = _embed(str(text))
            encoded: Any = _b64_floats(vector) if as_base64 else vector
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        tokens = sum(len(str(t).split()) for t in texts)
        result = {
            "object": "list",
            "data": data,
            "model": body.get("model") or "fake-embedding",
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return _json(result, 200, _timed(headers, started))

    async def _list_models(self, request: Request) -> Response:
        started = time.perf_counter()
        _, headers = await self._record(request)
        return _json({"object": "list", "data": [_model(m) for m in MODEL_IDS]}, 200, _timed(headers, started))

    async def _get_model(self, request: Request) -> Response:
        started = time.perf_counter()
        _, headers = await self._record(request)
        model_id = request.path_params["model_id"]
        if model_id in MODEL_IDS:
            return _json(_model(model_id), 200, _timed(headers, started))
        message = f"The model '{model_id}' does not exist or you do not have access to it."
        return _json(_openai_error(404, message), 404, _timed(headers, started))

    async def _echo(self, request: Request) -> Response:
        started = time.perf_counter()
        _, headers = await self._record(request)
        seen_body = await request.body()  # cached by Starlette
        echo = {
            "method": request.method,
            "path": request.url.path,
            "query": request.url.query,
            "body_bytes": len(seen_body),
        }
        headers["x-fake-echo"] = "1"
        return _json(echo, 200, _timed(headers, started))


# -- response building ----------------------------------------------------------------------------------------


def _json(obj: Any, status: int, headers: dict[str, str]) -> Response:
    return Response(orjson.dumps(obj), status_code=status, headers=headers, media_type="application/json")


def _timed(headers: dict[str, str], started: float) -> dict[str, str]:
    headers["openai-processing-ms"] = str(int((time.perf_counter() - started) * 1000))
    return headers


def _loads(body: bytes) -> Any | None:
    if not body:
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _openai_error(status: int, message: str | None = None) -> dict[str, Any]:
    kind, code = _OPENAI_ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    text = message or f"Scripted error {status} from the fake upstream."
    return {"error": {"message": text, "type": kind, "param": None, "code": code}}


def _anthropic_error(status: int, message: str | None = None) -> dict[str, Any]:
    kind = _ANTHROPIC_ERRORS.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message or f"Scripted error {status}."}}


def _model(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": MODEL_CREATED, "owned_by": "memproxy-fake"}


def _finish_reason(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _words(text: Any) -> int:
    return len(text.split()) if isinstance(text, str) else 0


def _prompt_words(body: dict[str, Any]) -> int:
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


def _completion_words(reply: Reply) -> int:
    return _words(reply.content) + sum(1 + _words(tc.arguments_json()) for tc in reply.tool_calls)


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _split(text: str, pieces: int) -> list[str]:
    """Splits text into at most `pieces` non-empty fragments of near-equal length."""
    if not text:
        return []
    size = -(-len(text) // max(1, min(pieces, len(text))))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _split_raw(reply: Reply) -> list[bytes]:
    """`raw_sse` as one piece, or (with chunk_delay_s) one piece per SSE event, separators kept."""
    raw = reply.raw_sse or b""
    if not reply.chunk_delay_s:
        return [raw]
    parts = raw.split(b"\n\n")
    pieces = [part + b"\n\n" for part in parts[:-1]]
    return pieces + [parts[-1]] if parts[-1] else pieces


def _chat_choice(reply: Reply, index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None, "annotations": []}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": tc.id or f"call_{i}", "type": "function", "function": {"name": tc.name, "arguments": args}}
            for i, tc in enumerate(reply.tool_calls)
            for args in [tc.arguments_json()]
        ]
    return {"index": index, "message": message, "logprobs": None, "finish_reason": _finish_reason(reply)}


def _chat_stream_events(reply: Reply, cid: str, created: int, model: str, n: int, usage: dict | None) -> list[bytes]:
    """OpenAI's chunk sequence: role, content fragments, tool-call fragments, finish, [usage], [DONE]."""
    base: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}
    base["system_fingerprint"] = "fp_fake"

    def chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {**base, "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if usage is not None:
            data["usage"] = None
        return _data(data)

    deltas: list[list[bytes]] = []
    for index in range(n):
        first = {"role": "assistant", "content": "" if reply.content is not None else None, "refusal": None}
        events = [chunk(index, first)]
        events += [chunk(index, {"content": piece}) for piece in _split(reply.content or "", reply.pieces)]
        for i, tc in enumerate(reply.tool_calls):
            call = {"index": i, "id": tc.id or f"call_{i}", "type": "function"}
            call["function"] = {"name": tc.name, "arguments": ""}
            events.append(chunk(index, {"tool_calls": [call]}))
            for piece in _split(tc.arguments_json(), reply.pieces):
                events.append(chunk(index, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
        deltas.append(events)
    if reply.error_event is not None:
        return [event for events in deltas for event in events] + [_data(reply.error_event)]
    out: list[bytes] = []
    for index, events in enumerate(deltas):
        out += events
        out.append(chunk(index, {}, _finish_reason(reply)))
    if usage is not None:
        out.append(_data({**base, "choices": [], "usage": usage}))
    out.append(_DONE)
    return out


def _tool_input(tc: ToolCall) -> Any:
    if isinstance(tc.arguments, dict):
        return tc.arguments
    try:
        return orjson.loads(tc.arguments)
    except orjson.JSONDecodeError:
        return {"_raw_arguments": tc.arguments}


def _data(obj: Any) -> bytes:
    return b"data: " + orjson.dumps(obj) + b"\n\n"


def _sse(event: str, **fields: Any) -> bytes:
    """An Anthropic SSE event; its data repeats the event name as `type`."""
    return b"event: " + event.encode() + b"\n" + _data({"type": event, **fields})


def _anthropic_stream_events(
    reply: Reply, mid: str, model: str, prompt: int, output: int, stop_reason: str
) -> list[bytes]:
    """Anthropic's SSE grammar: message_start, content blocks (start/delta/stop), message_delta, message_stop."""
    message: dict[str, Any] = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": []}
    message |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": prompt, "output_tokens": 1}}
    events = [_sse("message_start", message=message)]
    index = 0
    if reply.content:
        events.append(_sse("content_block_start", index=index, content_block={"type": "text", "text": ""}))
        events.append(_sse("ping"))
        for piece in _split(reply.content, reply.pieces):
            events.append(_sse("content_block_delta", index=index, delta={"type": "text_delta", "text": piece}))
        events.append(_sse("content_block_stop", index=index))
        index += 1
    for i, tc in enumerate(reply.tool_calls):
        block = {"type": "tool_use", "id": tc.id or f"toolu_{i}", "name": tc.name, "input": {}}
        events.append(_sse("content_block_start", index=index, content_block=block))
        for piece in ["", *_split(tc.arguments_json(), reply.pieces)]:
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append(_sse("content_block_delta", index=index, delta=delta))
        events.append(_sse("content_block_stop", index=index))
        index += 1
    if reply.error_event is not None:
        return [*events, b"event: error\n" + _data(reply.error_event)]
    stop = {"stop_reason": stop_reason, "stop_sequence": None}
    events.append(_sse("message_delta", delta=stop, usage={"output_tokens": output}))
    events.append(_sse("message_stop"))
    return events


def _embed(text: str) -> list[float]:
    """A deterministic vector in [-1, 1] derived from the text's hash (sha256: 32 bytes, 8 int32s)."""
    digest = hashlib.sha256(text.encode()).digest()
    return [round(v / 0x7FFFFFFF, 6) for v in struct.unpack(f"<{EMBEDDING_DIMS}i", digest)]


def _b64_floats(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


async def _client_left_during(request: Request, seconds: float) -> bool:
    """Sleeps, but returns True early if the client disconnects (uvicorn sends http.disconnect)."""

    async def disconnected() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(disconnected())
    try:
        await asyncio.wait_for(asyncio.shield(watcher), timeout=seconds)
    except TimeoutError:
        return False
    finally:
        watcher.cancel()
    return True


# -- running it -----------------------------------------------------------------------------------------------


@contextmanager
def run_fake_upstream(host: str = "127.0.0.1", port: int = 0) -> Iterator[FakeUpstream]:
    """Serves a fresh FakeUpstream with uvicorn in a background thread (port 0: a free one) until exit."""
    fake = FakeUpstream()
    _quiet_deliberate_aborts()
    with serve_in_background(
        fake.app, host=host, port=port, name="fake-upstream", lifespan="off", timeout_graceful_shutdown=1
    ) as root:
        fake.base_url = f"{root}/v1"
        yield fake


if pytest is not None:

    @pytest.fixture(scope="session")
    def fake_upstream_server() -> Iterator[FakeUpstream]:
        """One fake upstream server for the whole test session."""
        with run_fake_upstream() as fake:
            yield fake

    @pytest.fixture
    def fake_upstream(fake_upstream_server: FakeUpstream) -> FakeUpstream:
        """The session's fake upstream, reset for this test."""
        fake_upstream_server.reset()
        return fake_upstream_server


def _memory_hop_responder() -> Callable[[dict[str, Any]], Reply]:
    """A tiny model that makes one memory hop: what ``python -m proxy.testing --memory-hop`` answers with.

    A request whose last message is a tool result gets an answer naming the number of memories the search
    returned; one that offers ``memory_search`` gets the call ``memory_search {"query": <the newest user
    message>}``; anything else the default answer. Every reply carries the counts so far in the headers
    ``x-fake-memory-calls`` (calls made) and ``x-fake-tool-results`` (results received), for the benchmark.
    """
    calls = results = 0

    def respond(body: dict[str, Any]) -> Reply:
        nonlocal calls, results
        messages = [m for m in body.get("messages") or () if isinstance(m, dict)]
        tools = [t.get("function") for t in body.get("tools") or () if isinstance(t, dict)]
        if messages and messages[-1].get("role") == "tool":
            results += 1
            content = messages[-1].get("content")
            found = _loads(content.encode()) if isinstance(content, str) else None
            count = found.get("count") if isinstance(found, dict) else None
            reply = Reply(f"{DEFAULT_CONTENT} memory_search returned {count} memories.")
        elif any(isinstance(tool, dict) and tool.get("name") == "memory_search" for tool in tools):
            calls += 1
            users = [m.get("content") for m in messages if m.get("role") == "user"]
            reply = Reply(None, [ToolCall("memory_search", {"query": users[-1] if users else ""})])
        else:
            reply = Reply()
        reply.headers = {"x-fake-memory-calls": str(calls), "x-fake-tool-results": str(results)}
        return reply

    return respond


def is_extraction(body: dict[str, Any]) -> bool:
    """Whether a request is memproxy's episode extraction call (it asks for a JSON object)."""
    response_format = body.get("response_format")
    return isinstance(response_format, dict) and response_format.get("type") == "json_object"


def extraction_reply(summary: str, facts: list[str] | tuple[str, ...] = ()) -> Reply:
    """The answer an extraction call wants: ``{"summary", "facts"}`` as the message content."""
    return Reply(orjson.dumps({"summary": summary, "facts": list(facts)}).decode())


def _extraction_responder() -> Callable[[dict[str, Any]], Reply]:
    """Answers extraction calls from the transcript itself (a summary and one fact per user line, at most five);
    anything else gets the default answer. What ``python -m proxy.testing --extraction`` runs, for the benchmark."""

    def respond(body: dict[str, Any]) -> Reply:
        if not is_extraction(body):
            return Reply()
        messages = body.get("messages") or [{}]
        transcript = messages[-1].get("content") if isinstance(messages[-1], dict) else ""
        said = [line[6:].strip() for line in str(transcript).splitlines() if line.startswith("user: ")]
        facts = [f"User said: {' '.join(line.split()[:25])}" for line in said[:5]]
        topic = " ".join(said[0].split()[:12]) if said else "nothing"
        return extraction_reply(f"A session of {len(said)} user turns about {topic}.", facts)

    return respond


def main(argv: list[str] | None = None) -> None:
    """Runs the fake upstream in the foreground (used by the benchmark)."""
    parser = argparse.ArgumentParser(prog="python -m proxy.testing", description="Fake OpenAI-compatible upstream.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument(
        "--memory-hop",
        action="store_true",
        help="call memory_search once whenever it is offered, then answer (see _memory_hop_responder)",
    )
    parser.add_argument(
        "--extraction",
        action="store_true",
        help="answer memproxy's extraction calls with a summary and facts taken from the transcript",
    )
    args = parser.parse_args(argv)
    fake = FakeUpstream(record_requests=False)
    if args.memory_hop:
        fake.respond_with(_memory_hop_responder())
    elif args.extraction:
        fake.respond_with(_extraction_responder())
    # Connections stay open longer than any client here pools them (memproxy 30 s, the bench's forwarder 60 s),
    # as at hosted APIs: with uvicorn's 5 s a request could race the server's close on a reused connection.
    config = uvicorn.Config(
        fake.app,
        host=args.host,
        port=args.port,
        access_log=False,
        log_level="warning",
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    _quiet_deliberate_aborts()
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
