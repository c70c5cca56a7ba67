"""The console mounted at ``/ui``: its pages' routes, its static files, and the layer every answer passes.

Every answer under ``/ui`` passes :class:`Guarded`, which sets the security headers (static files and 404s
included) and, in open mode, refuses any request that is not from this machine by a loopback name. The app mounts
this after its hot chat routes, which never reach a router: nothing here runs on a ``/v1`` request.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import ProxyError
from ..services import Services
from .account import account_routes
from .admin import admin_routes
from .context import Console
from .files import file_routes
from .memories import memory_routes
from .render import page, secure
from .review import review_routes
from .security import HEADERS, PAGE_CACHE, STATIC_CACHE, loopback_only
from .sessions import session_routes
from .signin import COOKIE, SignIns

STATIC = Path(__file__).parent / "static"
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
OPEN_MODE_REFUSAL = (
    "memproxy's console is served to this machine only in auth.mode: open: open it as http://127.0.0.1:PORT/ui/ or "
    "http://localhost:PORT/ui/ there, or run memproxy with auth.mode: keys to share it"
)


def console_routes(services: Services) -> list[BaseRoute]:
    """``/ui`` and everything under it; nothing when ``console.enabled`` is false."""
    if not services.settings.console.enabled:
        return []
    sign_ins = SignIns(services.console_sessions, services.auth, services.settings.console.session_ttl_s)
    console = Console(services, sign_ins)

    async def unknown(request: Request) -> Response:
        viewer = await sign_ins.viewer(request.cookies.get(COOKIE))
        if viewer is None:
            return console.signed_out(request)
        return await console.not_found(request, viewer, "There is no console page here.")

    async def slash(request: Request) -> Response:
        return secure(RedirectResponse("/ui/", status_code=308))

    routes = [
        *account_routes(console),
        *memory_routes(console),
        *file_routes(console),
        *review_routes(console),
        *session_routes(console),
        *admin_routes(console),
        Mount("/static", StaticFiles(directory=STATIC)),
        Route("/{rest:path}", unknown, methods=ALL_METHODS),
    ]
    guarded = Guarded(Router(routes), open_mode=not sign_ins.keys_mode)
    return [Route("/ui", slash, methods=["GET", "HEAD"]), Mount("/ui", app=guarded)]


class Guarded:
    """The console's headers on every answer under ``/ui``; in open mode, this machine only."""

    def __init__(self, app: ASGIApp, *, open_mode: bool) -> None:
        self.app = app
        self.open_mode = open_mode

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.open_mode:
            client = scope.get("client")
            host = next((value.decode("latin-1") for name, value in scope["headers"] if name == b"host"), None)
            if not loopback_only(client[0] if client else None, host):
                await secure(PlainTextResponse(OPEN_MODE_REFUSAL, status_code=403))(scope, receive, send)
                return
        cache = STATIC_CACHE if scope["path"].startswith("/ui/static/") else PAGE_CACHE
        started = False

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _OURS]
                message = {**message, "headers": [*headers, *HEADERS, cache]}
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except ProxyError as exc:  # the store failed before a page could say so (looking the sign-in up): a page
            if started:
                raise
            context = {"viewer": None, "identity": None, "csrf": "", "active": "", "waiting": 0, "notice": None,
                       "keys_mode": True, "path": scope["path"], "title": "Not available", "status": exc.status,
                       "message": exc.message}  # fmt: skip
            await page("error.html", context, status=exc.status)(scope, receive, send)


_OURS = frozenset(name for name, _ in (*HEADERS, PAGE_CACHE))
