"""The store as a whole: ``/memory/users`` (with counts), forgetting a user, ``/memory/held`` and ``/memory/health``.

Thin: the caller, the body, then :class:`~proxy.admin.service.AdminService`, which decides what the caller may see
(users: an admin everyone, a service key its users, anyone else themself) or do (forget, health: admins only).
A user's name is a path segment taken whole (``{user:path}``): names are ``X-Memory-User`` values, any printable
characters, ``/`` included, sent URL-encoded.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..admin.scope import require_admin
from ..errors import InvalidRequest
from ..memory.caller import Identity
from ..services import Services
from .bodies import json_body, json_response


def admin_routes(services: Services) -> list[Route]:
    admin = services.admin

    def caller(request: Request) -> Identity:
        return services.auth.manager(request.headers.raw)

    async def list_users(request: Request) -> Response:
        who = caller(request)
        users = await admin.users(who)
        return json_response({"count": len(users), "scope": _scope(who), "users": [u.to_json() for u in users]})

    async def held(request: Request) -> Response:
        who = caller(request)
        waiting = await admin.held(who)
        return json_response({"scope": _scope(who), **waiting.to_json()})

    async def forget_preview(request: Request) -> Response:
        preview = await admin.forget_preview(caller(request), request.path_params["user"])
        return json_response(preview.to_json())

    async def forget_user(request: Request) -> Response:
        who = caller(request)
        require_admin(who, "forgetting a user")  # before the body: a non-admin learns nothing more from it
        user = request.path_params["user"]
        fields = await json_body(request, services.settings.server.max_body_bytes)
        if fields.get("confirm") is not True:
            raise InvalidRequest(
                f"forgetting {user!r} deletes everything of theirs in every workspace; "
                f'GET /memory/users/{{user}}/forget says what, and {{"confirm": true}} does it',
                param="confirm",
            )
        return json_response((await admin.forget_user(who, user)).to_json())

    async def health(request: Request) -> Response:
        return json_response((await admin.health(caller(request))).to_json())

    return [
        Route("/memory/users", list_users, methods=["GET"]),
        Route("/memory/users/{user:path}/forget", forget_preview, methods=["GET"]),
        Route("/memory/users/{user:path}/forget", forget_user, methods=["POST"]),
        Route("/memory/held", held, methods=["GET"]),
        Route("/memory/health", health, methods=["GET"]),
    ]


def _scope(caller: Identity) -> str:
    return "all" if caller.admin else "service" if caller.key_kind == "service" else "user"
