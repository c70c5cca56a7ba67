"""A chat completion's way through the proxy: request in, upstream, response out.

The request body is parsed only to check it and to learn ``model`` and ``stream``; what goes
upstream is the client's own bytes, so fields the proxy does not know arrive unchanged
(COMPAT F1) unless memory adds something, in which case the parsed body is re-encoded with the
memory messages in place (:mod:`proxy.memory.recall`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import orjson
from starlette.requests import Request
from starlette.responses import Response

from .chunks import ChunkNormaliser
from .errors import InvalidRequest
from .headers import RawHeaders, bearer_token, relayed_response_headers, upstream_request_headers
from .identity import identify
from .relay import (
    ClientGone,
    EventBatches,
    buffered_response,
    chat_stream_response,
    close_quietly,
    read_body,
    sse_batches,
    unless_disconnected,
)
from .services import Services
from .sse import Event

# Status a client that already left never sees; uvicorn just logs it (nginx's "client closed request").
CLIENT_CLOSED = 499


@dataclass(frozen=True, slots=True)
class ChatRequest:
    body: bytes
    payload: dict[str, Any]
    stream: bool
    include_usage: bool


def parse_chat_request(body: bytes) -> ChatRequest:
    """Check what the proxy relies on; everything else is the upstream's to judge."""
    if not body.strip():
        raise InvalidRequest("the request body is empty; expected a JSON object")
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequest(f"the request body is not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise InvalidRequest("the request body must be a JSON object")
    messages = payload.get("messages")
    if not isinstance(messages, list):
        raise InvalidRequest("'messages' must be a list of messages", param="messages")
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise InvalidRequest(
                f"messages[{position}] must be an object with a string 'role'", param=f"messages[{position}]"
            )
    stream = payload.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise InvalidRequest("'stream' must be a boolean", param="stream")
    options = payload.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    return ChatRequest(body=body, payload=payload, stream=bool(stream), include_usage=include_usage)


async def handle_chat(request: Request, services: Services) -> Response:
    chat = parse_chat_request(await read_body(request, services.settings.server.max_body_bytes))
    caller = identify(request.headers.raw, services.settings.memory.admin_key)
    prepared = await services.memory.prepare_chat(caller, chat.payload)
    try:
        if services.litellm.handles(chat.payload.get("model")):
            work = _via_litellm(request, services, chat, prepared.payload, prepared.headers)
        else:
            body = chat.body if prepared.payload is chat.payload else orjson.dumps(prepared.payload)
            work = _via_upstream(request, services, chat, body, prepared.headers)
        return await unless_disconnected(request.receive, work)
    except ClientGone:
        return Response(status_code=CLIENT_CLOSED)


async def _via_upstream(
    request: Request, services: Services, chat: ChatRequest, body: bytes, memory_headers: RawHeaders
) -> Response:
    headers = upstream_request_headers(request.headers.raw, services.settings.upstream.api_key)
    upstream = await services.upstream.send(
        "POST", request.url.path, query=request.scope["query_string"], headers=headers, content=body
    )
    response_headers = relayed_response_headers(upstream.headers.raw) + memory_headers
    streaming = chat.stream and upstream.status_code < 400 and _is_event_stream(upstream)
    if not streaming:
        try:
            content = await upstream.aread()
        finally:
            await close_quietly(upstream)
        return buffered_response(upstream.status_code, response_headers, content)
    normaliser = ChunkNormaliser(include_usage=chat.include_usage)
    return chat_stream_response(sse_batches(upstream), normaliser, response_headers, lambda: close_quietly(upstream))


async def _via_litellm(
    request: Request, services: Services, chat: ChatRequest, payload: dict[str, Any], memory_headers: RawHeaders
) -> Response:
    api_key = services.settings.upstream.api_key or bearer_token(request.headers.raw)
    if not chat.stream:
        body = await services.litellm.complete(payload, api_key)
        return buffered_response(200, [(b"content-type", b"application/json"), *memory_headers], body)
    chunks = await services.litellm.stream(payload, api_key)

    async def batches() -> EventBatches:
        async for chunk in chunks:
            yield [Event(chunk)]

    async def close() -> None:
        await chunks.aclose()  # type: ignore[attr-defined]

    return chat_stream_response(batches(), ChunkNormaliser(include_usage=chat.include_usage), memory_headers, close)


def _is_event_stream(response: httpx.Response) -> bool:
    return response.headers.get("content-type", "").startswith("text/event-stream")
