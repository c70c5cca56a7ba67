"""``/mcp`` on memproxy's own port: the MCP server over streamable HTTP, with the API's identity rules.

Each request is authenticated before the SDK sees it: in ``auth.mode: keys`` by its memproxy key (in
``Authorization: Bearer``, as MCP hosts send a token, or ``X-Memproxy-Key``/``x-api-key``), a missing, unknown or
revoked one refused with a 401 in OpenAI's error shape (the key ring is current within a second, and every request
is checked: a revoked key's next call is refused); in ``auth.mode: open`` only from this machine, asked for by a
loopback name (as the console: DNS rebinding cannot forge ``Host``), the user named by ``X-Memory-User``. The caller
travels to the tools in the ASGI scope.

The SDK runs stateless with JSON answers: no session to pin a host to one replica, nothing kept between requests.
Importing it costs about a second of CPU and 30 MB, so nothing is loaded until a host first calls: not at start-up,
which would delay every replica's readiness, nor in the background after it, which took that second from the chat
requests of a proxy's first seconds (a third more CPU per request over the first 3,000 of a benchmark). The first
call waits for the imports (in a thread: the event loop keeps serving) and the session manager, which then runs in a
task of its own until the lifespan ends it (:meth:`McpEndpoint.running`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..auth.identity import KEY_HEADER
from ..console.security import loopback_only
from ..errors import InvalidRequest, MissingIdentity, ProxyError
from ..memory.caller import Identity
from ..services import Services

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger("proxy.mcp")

CALLER = "memproxy.caller"  # where the authenticated caller waits in the ASGI scope


class NotLoopback(InvalidRequest):
    status = 403
    code = "loopback_only"


class McpEndpoint:
    """The ASGI app routed at ``/mcp``."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._manager: asyncio.Future[StreamableHTTPSessionManager] | None = None
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Inside the app's lifespan: the session manager, once a host's call started it, stops with the lifespan."""
        try:
            yield
        finally:
            self._stop.set()
            if self._runner is not None:
                await asyncio.gather(self._runner, return_exceptions=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            scope[CALLER] = self.authenticate(scope)
        except ProxyError as exc:
            headers = {"www-authenticate": 'Bearer realm="memproxy"'} if exc.status == 401 else None
            response = Response(exc.body(), exc.status, headers, media_type="application/json")
            await response(scope, receive, send)
            return
        manager = await self._started()
        await manager.handle_request(scope, receive, send)

    def authenticate(self, scope: Scope) -> Identity:
        raw: list[tuple[bytes, bytes]] = scope["headers"]
        auth = self.services.auth
        if auth.keys_mode:  # the key wherever it came, read as the API reads X-Memproxy-Key: nothing goes upstream
            token = _bearer(raw)
            if token is not None:
                raw = [(n, v) for n, v in raw if n.lower() != b"authorization"] + [(KEY_HEADER, token)]
        else:
            client = scope.get("client")
            host = next((v.decode("latin-1") for n, v in raw if n.lower() == b"host"), None)
            if not loopback_only(client[0] if client else None, host):
                raise NotLoopback(
                    "in auth.mode: open, /mcp answers this machine only (a loopback address and Host); "
                    "use auth.mode: keys to serve MCP hosts elsewhere"
                )
        identity = auth.authenticate(raw).identity
        if identity is None:
            raise MissingIdentity("memproxy needs to know whose memory this is: send X-Memory-User")
        return identity

    async def _started(self) -> StreamableHTTPSessionManager:
        return await asyncio.shield(self._start())

    def _start(self) -> asyncio.Future[StreamableHTTPSessionManager]:
        if self._manager is None:
            loop = asyncio.get_running_loop()
            self._manager = loop.create_future()
            self._manager.add_done_callback(_retrieved)  # a failed start is reported to the requests that wait
            # A context of its own: the manager's tasks outlive the request that happened to start them.
            self._runner = loop.create_task(self._run(self._manager), context=contextvars.Context())
        return self._manager

    async def _run(self, ready: asyncio.Future[StreamableHTTPSessionManager]) -> None:
        try:
            await asyncio.to_thread(_load)  # the imports, off the event loop: it keeps serving meanwhile
            manager = _manager(self.services)
            async with manager.run():
                ready.set_result(manager)
                await self._stop.wait()
        except Exception as exc:
            if ready.done():
                log.exception("the MCP server stopped")
                return
            log.error("the MCP server did not start: %s", exc)
            ready.set_exception(exc)
            self._manager = None  # the next request tries again
        finally:
            if not ready.done():  # cancelled before it was ready (the app stopping)
                ready.set_exception(RuntimeError("the MCP server stopped"))


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _load() -> None:
    import mcp.server.streamable_http_manager  # noqa: F401

    from . import server  # noqa: F401 - imported for its imports: the SDK and its wire types


def _manager(services: Services) -> StreamableHTTPSessionManager:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from .local import LocalMemory
    from .server import build_server

    memory = LocalMemory(services.tools, services.memory, writes=services.settings.mcp.writes)
    server = build_server(memory, _caller_of)
    return StreamableHTTPSessionManager(server, json_response=True, stateless=True, security_settings=None)


def _caller_of(ctx: Any) -> Identity | None:
    request = ctx.request
    found = request.scope.get(CALLER) if request is not None else None
    return found if isinstance(found, Identity) else None


def _bearer(raw: list[tuple[bytes, bytes]]) -> bytes | None:
    for name, value in raw:
        if name.lower() == b"authorization":
            scheme, _, token = value.partition(b" ")
            if scheme.lower() == b"bearer" and token.strip():
                return token.strip()
    return None
