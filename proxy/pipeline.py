"""A memory-carrying request's way through the proxy, whatever its wire format.

app -> identity -> dialect (parse) -> session and hidden turns -> recall (block, notes) -> tool loop ->
upstream, and back through the dialect's answer reader or stream splitter. The request body is parsed
only to check it and to learn what memory needs; what goes upstream is the client's own bytes, so
fields the proxy does not know arrive unchanged (COMPAT F1), unless memory adds something, in which
case the dialect re-encodes the parsed body with memory in place.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from .dialects.base import Dialect
from .episodes.sessions import derive_session_id
from .pipe.headers import upstream_request_headers
from .pipe.hops import Hops, LiteLLMHops, UpstreamHops
from .pipe.relay import ClientGone, read_body, unless_disconnected
from .services import Services
from .tools.loop import ToolLoop, complete, stream
from .tools.memory_tools import SCHEMAS

# Status a client that already left never sees; uvicorn just logs it (nginx's "client closed request").
CLIENT_CLOSED = 499


async def handle(request: Request, services: Services, dialect: Dialect) -> Response:
    auth = services.auth.authenticate(request.headers.raw)
    parsed = dialect.parse(await read_body(request, services.settings.server.max_body_bytes))
    caller = auth.identity
    payload = parsed.payload
    tools_on = caller is not None and services.settings.tools.enabled
    plan = dialect.plan_tools(payload, tuple(SCHEMAS.values())) if tools_on else None
    session = ""
    if caller is not None:
        session = caller.session or derive_session_id(dialect.messages(payload))
        services.episodes.observe(caller, session, payload)
        restored = services.hidden_turns.restore((caller.user, caller.workspace), payload["messages"])
        if restored is not None:
            payload = {**payload, "messages": restored}
    prepared = await services.memory.prepare(caller, dialect.messages(payload), session)
    payload = dialect.inject(payload, prepared.placement)
    loop = None
    if plan is not None and caller is not None:
        payload = dialect.offer(payload, plan)
        loop = ToolLoop(
            dialect,
            plan,
            services.tools,
            services.hidden_turns,
            caller,
            services.settings.tools.max_hops,
            services.metrics,
            session,
        )
    hops: Hops
    if services.litellm.handles(parsed.payload.get("model")):
        hops = LiteLLMHops(services.litellm, auth.upstream_key or auth.client_key)
    else:
        headers = upstream_request_headers(request.headers.raw, auth.upstream_key, auth.strip)
        hops = UpstreamHops(
            services.upstream,
            request.url.path,
            request.scope["query_string"],
            headers,
            services.settings.upstream.max_event_bytes,
        )
    body = parsed.body if payload is parsed.payload else None
    try:
        if parsed.stream:
            work = stream(dialect, hops, payload, body, loop, prepared.headers, include_usage=parsed.include_usage)
        else:
            work = complete(hops, payload, body, loop, prepared.headers)
        response = await unless_disconnected(request.receive, work)
    except ClientGone:
        return Response(status_code=CLIENT_CLOSED)
    if caller is not None and response.status_code < 400:
        services.episodes.confirm(caller, session, parsed.payload.get("model"), auth.client_key)
    return response
