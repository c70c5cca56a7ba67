"""A memory-carrying request's way through the proxy, whatever its wire format.

app -> identity -> dialect (parse) -> session and hidden turns -> recall (block, notes) -> tool loop ->
upstream, and back through the dialect's answer reader or stream splitter. The request body is parsed
only to check it and to learn what memory needs; what goes upstream is the client's own bytes, so
fields the proxy does not know arrive unchanged (COMPAT F1), unless memory adds something, in which
case the dialect re-encodes the parsed body with memory in place.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from starlette.requests import Request
from starlette.responses import Response

from .dialects.base import Dialect
from .episodes.sessions import derive_session_id
from .memory.provenance import TRUSTED
from .pipe.headers import upstream_request_headers
from .pipe.hops import Hops, LiteLLMHops, UpstreamHops
from .pipe.relay import ClientGone, read_body, unless_disconnected
from .services import Services
from .tools.loop import ToolLoop, complete, stream
from .tools.memory_tools import SCHEMAS

# Status a client that already left never sees; uvicorn just logs it (nginx's "client closed request").
CLIENT_CLOSED = 499
MAX_KEPT_ANSWER = 256 * 1024  # a session keeps its newest whole answer for its transcript, up to this size


async def handle(request: Request, services: Services, dialect: Dialect) -> Response:
    auth = services.auth.authenticate(request.headers.raw)
    parsed = dialect.parse(await read_body(request, services.settings.server.max_body_bytes))
    caller = auth.identity
    payload = parsed.payload
    # A model outside tools.models gets its memories but no tools (nor the block's line on them): it would
    # write pseudo-calls as text instead of answering.
    tools_on = caller is not None and services.settings.tools.enabled and services.tool_models(payload.get("model"))
    plan = dialect.plan_tools(payload, tuple(SCHEMAS.values())) if tools_on else None
    session = ""
    provenance = TRUSTED
    if caller is not None:
        session = caller.session or ""
        if not session:
            messages = dialect.messages(payload)
            session, fresh = services.episodes.sessions.resolve(
                caller.user, caller.workspace, derive_session_id(messages), messages
            )
            if fresh:
                services.memory.recall.forget_session((caller.user, caller.workspace, session))
        # Before the hidden turns come back: only what the client sent can carry an untrusted tool's output.
        provenance = services.episodes.observe(caller, session, payload)
        restored = services.hidden_turns.restore((caller.user, caller.workspace), session, payload["messages"])
        if restored is not None:
            payload = {**payload, "messages": restored}
    prepared = await services.memory.prepare(caller, dialect.messages(payload), session, tools=tools_on)
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
            provenance,
        )
    hops: Hops
    if services.litellm.handles(parsed.payload.get("model")):
        hops = LiteLLMHops(services.litellm, auth.upstream_key or auth.client_key)
    else:
        headers = upstream_request_headers(request.headers.raw, auth.upstream_key, auth.strip)
        hops = UpstreamHops(services.upstream, request.url.path, request.scope["query_string"], headers)
    body = parsed.body if payload is parsed.payload else None
    answer: Callable[[], str | None] | None = None
    try:
        if parsed.stream:
            hidden = loop.plan.names if loop is not None else frozenset()
            splitter = dialect.splitter(include_usage=parsed.include_usage, hidden=hidden)
            answer = splitter.answer_text
            work = stream(splitter, hops, payload, body, loop, prepared.headers)
        else:
            work = complete(hops, payload, body, loop, prepared.headers)
        response = await unless_disconnected(request.receive, work)
    except ClientGone:
        return Response(status_code=CLIENT_CLOSED)
    if caller is not None and response.status_code < 400:
        whole = getattr(response, "body", None)
        if answer is None and isinstance(whole, bytes) and len(whole) <= MAX_KEPT_ANSWER:
            answer = partial(dialect.answer_text, whole)  # parsed only if the session is extracted
        services.episodes.confirm(caller, session, parsed.payload.get("model"), auth.client_key, answer)
    return response
