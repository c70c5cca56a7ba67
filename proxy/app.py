"""The ASGI app: routes only. Wiring lives in :mod:`proxy.services`, behaviour in the modules routes call.

A plain Starlette app: FastAPI's layers (its OpenTelemetry check reads the environment on every request, a body
limit and an exit stack per request) cost a streamed request a twentieth of its CPU, for routes that use none of
FastAPI's features. The model APIs' POSTs skip even Starlette's middleware stack and router (:class:`ProxyApp`):
they are nearly every request, and those layers were a few percent of each one's CPU.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from time import perf_counter_ns

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from .api.admin import admin_routes
from .api.files import file_routes
from .api.keys import key_routes
from .api.memories import memory_routes
from .api.review import review_routes
from .api.sessions import session_routes
from .console.routes import console_routes
from .dialects.chat import CHAT
from .dialects.messages import MESSAGES
from .dialects.responses import RESPONSES
from .errors import AdminOnly, ProxyError
from .mcp.http import McpEndpoint
from .metrics import CONTENT_TYPE
from .passthrough import anthropic_path, passthrough
from .pipe.relay import buffered_response
from .pipeline import handle
from .services import Services
from .telemetry.exchange import CURRENT, Exchange
from .telemetry.http_metrics import HttpMetrics
from .telemetry.observer import Telemetry

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


Endpoint = Callable[[Request], Awaitable[Response]]


class ProxyApp(Starlette):
    """Starlette, with a direct way in for the model APIs' POSTs: no middleware layers, no route matching.

    What those layers do for these routes is done here: a :class:`ProxyError` raised before the answer starts
    becomes the API's own error response; anything else propagates to the server, which answers 500 and logs it,
    as Starlette's outermost middleware would.

    Every HTTP request, hot or routed, is an :class:`Exchange` from its arrival to its response's end: its response
    carries ``x-memproxy-request-id``, and its end is counted, logged and traced (:mod:`proxy.telemetry`).
    """

    hot: dict[str, Endpoint]
    hot_routes: dict[str, tuple[str, str]]  # path -> the route and format it is counted under
    on_error: Callable[[Request, Exception], Awaitable[Response]]
    telemetry: Telemetry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        path = scope["path"]
        endpoint = self.hot.get(path) if scope["method"] == "POST" else None
        route, format = self.hot_routes[path] if endpoint is not None else (None, "none")
        telemetry = self.telemetry
        exchange = telemetry.begin(scope, route, format)
        answered = _Answered(exchange, send, telemetry.metrics)
        sender = answered.traced if exchange.trace is not None else answered
        token = CURRENT.set(exchange)
        try:
            if endpoint is None:
                await super().__call__(scope, receive, sender)
                return
            scope["app"] = self
            request = Request(scope, receive, send)
            try:
                response = await endpoint(request)
                await response(scope, receive, sender)
            except ProxyError as exc:
                if exchange.status:
                    raise
                await (await self.on_error(request, exc))(scope, receive, sender)
        finally:
            CURRENT.reset(token)
            telemetry.end(exchange, scope, answered.tail)


class _Answered:
    """The ``send`` a request's response goes out through: notes its status, whether it streams and when its first
    byte went, and adds the request id to its headers. Per chunk: one comparison, beyond the send itself."""

    __slots__ = ("exchange", "send", "metrics", "tail")

    def __init__(self, exchange: Exchange, send: Send, metrics: HttpMetrics) -> None:
        self.exchange = exchange
        self.send = send
        self.metrics = metrics
        self.tail: bytes | None = None  # a traced response's last body chunk: a stream's usage is in it

    async def __call__(self, message: Message) -> None:
        exchange = self.exchange
        if not exchange.status:  # http.response.start
            exchange.status = message["status"]
            headers = message["headers"]
            for name, value in headers:
                if name == b"content-type":
                    if value.startswith(b"text/event-stream"):
                        exchange.stream = True
                        self.metrics.streams += 1
                    break
            own = (b"x-memproxy-request-id", exchange.request_id.encode())
            if type(headers) is list:
                headers.append(own)
            else:
                message["headers"] = [*headers, own]
        elif not exchange.first_byte:
            exchange.first_byte = perf_counter_ns()
        await self.send(message)

    async def traced(self, message: Message) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            self.tail = message["body"]
        await self(message)


def create_app(services: Services) -> Starlette:
    mcp = McpEndpoint(services) if services.settings.mcp.enabled else None

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with services:
            if mcp is None:
                yield
                return
            async with mcp.running():  # the MCP session manager, once a host has called, stops before the services
                yield

    async def proxy_error(request: Request, exc: Exception) -> Response:
        """In the error shape of the API the client speaks: Anthropic's on its paths, OpenAI's elsewhere."""
        assert isinstance(exc, ProxyError)  # the one exception type it is registered for
        headers = [(b"content-type", b"application/json")]
        headers += [(name.encode(), value.encode()) for name, value in getattr(exc, "headers", {}).items()]
        body = MESSAGES.error_body(exc) if anthropic_path(request.url.path) else exc.body()
        return buffered_response(exc.status, headers, body)

    app = ProxyApp(lifespan=lifespan, exception_handlers={ProxyError: proxy_error})
    app.state.services = services
    app.on_error = proxy_error
    app.telemetry = services.telemetry

    async def healthz(request: Request) -> Response:
        return buffered_response(200, [(b"content-type", b"application/json")], b'{"status":"ok"}')

    async def chat_completions(request: Request) -> Response:
        return await handle(request, services, CHAT, services.upstream)

    async def responses(request: Request) -> Response:
        return await handle(request, services, RESPONSES, services.upstream)

    async def messages(request: Request) -> Response:
        return await handle(request, services, MESSAGES, services.anthropic)

    async def passthrough_route(request: Request) -> Response:
        """Every other path goes to the upstream as it came (COMPAT K); in keys mode only for a known key."""
        return await passthrough(request, services)

    async def metrics(request: Request) -> Response:
        """Prometheus text. In keys mode for an admin key only (a scraper sends it as a bearer token): the counters
        say who is busy and how the store fares, which is no key holder's business but the operator's."""
        if services.auth.keys_mode:
            identity = services.auth.identity_of(request.headers.raw)  # a 401 without a valid key
            if identity is None or not identity.admin:
                raise AdminOnly("/metrics needs an admin memproxy key in keys mode", param="Authorization")
        await services.telemetry.refresh_held()  # what waits for review, read at most every few seconds
        return buffered_response(200, [(b"content-type", CONTENT_TYPE.encode())], services.metrics.render())

    app.hot = {
        "/v1/chat/completions": chat_completions,
        "/v1/responses": responses,
        "/v1/messages": messages,
        "/chat/completions": chat_completions,
        "/responses": responses,
        "/messages": messages,
    }
    app.hot_routes = {}
    for path, format in (("/chat/completions", "chat"), ("/responses", "responses"), ("/messages", "messages")):
        app.hot_routes[path] = app.hot_routes[f"/v1{path}"] = (f"/v1{path}", format)
    for path, endpoint in app.hot.items():  # listed too, for the OpenAPI document and any other reader of routes
        app.add_route(path, endpoint, methods=["POST"])
    app.add_route("/healthz", healthz, methods=["GET"])
    app.add_route("/metrics", metrics, methods=["GET"])
    routes = [*key_routes(services), *admin_routes(services), *session_routes(services), *review_routes(services)]
    routes += file_routes(services)
    for route in [*routes, *memory_routes(services)]:  # memory_routes last: it ends with /memory's catch-all
        app.router.routes.append(route)
    app.router.routes.extend(console_routes(services))  # /ui: routed like /memory, never on the hot /v1 POSTs
    if mcp is not None:  # /mcp: routed like /memory and /ui, never on the hot /v1 POSTs
        app.router.routes.extend(Route(path, mcp, methods=["GET", "POST", "DELETE"]) for path in ("/mcp", "/mcp/"))
    app.add_route("/{path:path}", passthrough_route, methods=ALL_METHODS)
    return app
