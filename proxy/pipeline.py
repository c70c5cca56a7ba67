"""A chat completion's way through the proxy: request in, upstream, response out.

The request body is parsed only to check it and to learn ``model`` and ``stream``; what goes
upstream is the client's own bytes, so fields the proxy does not know arrive unchanged
(COMPAT F1) unless memory adds something, in which case the parsed body is re-encoded with the
memory messages in place (:mod:`proxy.memory.recall`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .errors import InvalidRequest
from .headers import bearer_token, upstream_request_headers
from .identity import identify
from .relay import ClientGone, read_body, unless_disconnected
from .services import Services
from .sessions import derive_session_id
from .toolloop import Hops, LiteLLMHops, ToolLoop, UpstreamHops, complete, stream
from .toolplan import plan_tools

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
    payload = chat.payload
    plan = plan_tools(payload) if caller is not None and services.settings.tools.enabled else None
    session = ""
    client_key = bearer_token(request.headers.raw)
    if caller is not None:
        session = caller.session or derive_session_id(payload["messages"])
        services.episodes.observe(caller, session, payload, client_key)
        restored = services.hidden_turns.restore((caller.user, caller.workspace), payload["messages"])
        if restored is not None:
            payload = {**payload, "messages": restored}
    prepared = await services.memory.prepare_chat(caller, payload, session)
    payload = plan.offer(prepared.payload) if plan is not None else prepared.payload
    loop = None
    if plan is not None and caller is not None:
        loop = ToolLoop(
            plan,
            services.tools,
            services.hidden_turns,
            caller,
            services.settings.tools.max_hops,
            services.metrics,
            session,
        )
    hops: Hops
    if services.litellm.handles(chat.payload.get("model")):
        api_key = services.settings.upstream.api_key or client_key
        hops = LiteLLMHops(services.litellm, api_key)
    else:
        headers = upstream_request_headers(request.headers.raw, services.settings.upstream.api_key)
        hops = UpstreamHops(services.upstream, request.url.path, request.scope["query_string"], headers)
    body = chat.body if payload is chat.payload else None
    try:
        if chat.stream:
            work = stream(hops, payload, body, loop, prepared.headers, include_usage=chat.include_usage)
        else:
            work = complete(hops, payload, body, loop, prepared.headers)
        return await unless_disconnected(request.receive, work)
    except ClientGone:
        return Response(status_code=CLIENT_CLOSED)
