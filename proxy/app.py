"""The ASGI app: routes only. Wiring lives in :mod:`proxy.services`, behaviour in the modules routes call.

A plain Starlette app: FastAPI's layers (its OpenTelemetry check reads the environment on every request, a body
limit and an exit stack per request) cost a streamed request a twentieth of its CPU, for routes that use none of
FastAPI's features. The model APIs' POSTs skip even Starlette's middleware stack and router (:class:`ProxyApp`):
they are nearly every request, and those layers were a few percent of each one's CPU.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from .api.admin import admin_routes
from .api.keys import key_routes
from .api.memories import memory_routes
from .api.review import review_routes
from .api.sessions import session_routes
from .console.routes import console_routes
from .dialects.chat import CHAT
from .dialects.messages import MESSAGES
from .dialects.responses import RESPONSES
from .errors import AdminOnly, ProxyError
from .metrics import CONTENT_TYPE
from .passthrough import anthropic_path, passthrough
from .pipe.relay import buffered_response
from .pipeline import handle
from .services import Services

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


Endpoint = Callable[[Request], Awaitable[Response]]


class ProxyApp(Starlette):
    """Starlette, with a direct way in for the model APIs' POSTs: no middleware layers, no route matching.

    What those layers do for these routes is done here: a :class:`ProxyError` raised before the answer starts
    becomes the API's own error response; anything else propagates to the server, which answers 500 and logs it,
    as Starlette's outermost middleware would.
    """

    hot: dict[str, Endpoint]
    on_error: Callable[[Request, Exception], Awaitable[Response]]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self.hot.get(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        if endpoint is None:
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        request = Request(scope, receive, send)
        started = False

        async def sender(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            response = await endpoint(request)
            await response(scope, receive, sender)
        except ProxyError as exc:
            if started:
                raise
            await (await self.on_error(request, exc))(scope, receive, send)


def create_app(services: Services) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with services:
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
        return buffered_response(200, [(b"content-type", CONTENT_TYPE.encode())], services.metrics.render())

    app.hot = {
        "/v1/chat/completions": chat_completions,
        "/v1/responses": responses,
        "/v1/messages": messages,
        "/chat/completions": chat_completions,
        "/responses": responses,
        "/messages": messages,
    }
    for path, endpoint in app.hot.items():  # listed too, for the OpenAPI document and any other reader of routes
        app.add_route(path, endpoint, methods=["POST"])
    app.add_route("/healthz", healthz, methods=["GET"])
    app.add_route("/metrics", metrics, methods=["GET"])
    routes = [*key_routes(services), *admin_routes(services), *session_routes(services), *review_routes(services)]
    for route in [*routes, *memory_routes(services)]:  # memory_routes last: it ends with /memory's catch-all
        app.router.routes.append(route)
    app.router.routes.extend(console_routes(services))  # /ui: routed like /memory, never on the hot /v1 POSTs
    app.add_route("/{path:path}", passthrough_route, methods=ALL_METHODS)
    return app
