"""A minimal Anthropic Messages API (``POST /v1/messages``), so litellm's ``anthropic/...`` provider can be pointed
at the fake too; it answers from the same reply queue as the OpenAI routes. A reply's scripted ``items`` (server
tools' ``server_tool_use`` and ``*_tool_result`` blocks, the MCP connector's) lead its content."""

from __future__ import annotations

import time
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .core import FakeCore, json_response, timed
from .replies import (
    MODEL_IDS,
    Reply,
    ToolCall,
    completion_words,
    finish_reason,
    prompt_words,
    split_raw,
    split_text,
    sse_data,
)
from .streams import FakeStream

# Anthropic's error type by status, for scripted errors without an explicit body.
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


class AnthropicRoutes(FakeCore):
    """The Messages API endpoint; mixed into `FakeUpstream` beside the OpenAI routes."""

    async def _anthropic_messages(self, request: Request) -> Response:
        started = time.perf_counter()
        body, headers = await self._record(request)
        headers["request-id"] = headers["x-request-id"]
        if not isinstance(body, dict):
            error = _anthropic_error(400, "The request body is not valid JSON.")
            return json_response(error, 400, timed(headers, started))
        reply = self._next_reply(body)
        if not await self._delay(request, reply):
            return Response(status_code=499)
        headers.update(reply.headers)
        if reply.status != 200:
            error = reply.error or _anthropic_error(reply.status)
            return json_response(error, reply.status, timed(headers, started))
        stream = bool(body.get("stream"))
        if stream and reply.raw_sse is not None:
            return FakeStream(self, split_raw(reply), reply, timed(headers, started))

        self._completion_n += 1
        mid = f"msg_fake_{self._completion_n}"
        model = body.get("model") or MODEL_IDS[0]
        prompt = prompt_words(body)
        output = completion_words(reply)
        if reply.usage:
            prompt = reply.usage.get("prompt_tokens", reply.usage.get("input_tokens", prompt))
            output = reply.usage.get("completion_tokens", reply.usage.get("output_tokens", output))
        finish = finish_reason(reply)
        stop_reason = _ANTHROPIC_STOP.get(finish, finish)
        if stream:
            events = _anthropic_stream_events(reply, mid, model, prompt, output, stop_reason)
            return FakeStream(self, events, reply, timed(headers, started))
        blocks: list[dict[str, Any]] = [dict(block) for block in reply.items]
        blocks += [{"type": "text", "text": reply.content}] if reply.content else []
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
        return json_response(message, 200, timed(headers, started))


def _anthropic_error(status: int, message: str | None = None) -> dict[str, Any]:
    kind = _ANTHROPIC_ERRORS.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message or f"Scripted error {status}."}}


def _tool_input(tc: ToolCall) -> Any:
    if isinstance(tc.arguments, dict):
        return tc.arguments
    try:
        return orjson.loads(tc.arguments)
    except orjson.JSONDecodeError:
        return {"_raw_arguments": tc.arguments}


def _sse(event: str, **fields: Any) -> bytes:
    """An Anthropic SSE event; its data repeats the event name as `type`."""
    return b"event: " + event.encode() + b"\n" + sse_data({"type": event, **fields})


def _anthropic_stream_events(
    reply: Reply, mid: str, model: str, prompt: int, output: int, stop_reason: str
) -> list[bytes]:
    """Anthropic's SSE grammar: message_start, content blocks (start/delta/stop), message_delta, message_stop."""
    message: dict[str, Any] = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": []}
    message |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": prompt, "output_tokens": 1}}
    events = [_sse("message_start", message=message)]
    index = 0
    for block in reply.items:  # server tools' blocks, as scripted: a call's input streamed, a result whole
        calls = block.get("type") in ("server_tool_use", "mcp_tool_use")
        start = {**block, "input": {}} if calls else block
        events.append(_sse("content_block_start", index=index, content_block=start))
        if calls:
            delta = {"type": "input_json_delta", "partial_json": orjson.dumps(block.get("input", {})).decode()}
            events.append(_sse("content_block_delta", index=index, delta=delta))
        events.append(_sse("content_block_stop", index=index))
        index += 1
    if reply.content:
        events.append(_sse("content_block_start", index=index, content_block={"type": "text", "text": ""}))
        events.append(_sse("ping"))
        for piece in split_text(reply.content, reply.pieces):
            events.append(_sse("content_block_delta", index=index, delta={"type": "text_delta", "text": piece}))
        events.append(_sse("content_block_stop", index=index))
        index += 1
    for i, tc in enumerate(reply.tool_calls):
        block = {"type": "tool_use", "id": tc.id or f"toolu_{i}", "name": tc.name, "input": {}}
        events.append(_sse("content_block_start", index=index, content_block=block))
        for piece in ["", *split_text(tc.arguments_json(), reply.pieces)]:
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append(_sse("content_block_delta", index=index, delta=delta))
        events.append(_sse("content_block_stop", index=index))
        index += 1
    if reply.error_event is not None:
        return [*events, b"event: error\n" + sse_data(reply.error_event)]
    stop = {"stop_reason": stop_reason, "stop_sequence": None}
    events.append(_sse("message_delta", delta=stop, usage={"output_tokens": output}))
    events.append(_sse("message_stop"))
    return events
