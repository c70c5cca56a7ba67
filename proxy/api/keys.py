"""``/memory/keys``: memproxy keys over HTTP, for admins only (the CLI's ``memproxy keys`` does the same).

Thin: the caller, the body, then :class:`~proxy.admin.service.AdminService`, which checks the caller is an admin.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..auth.key_service import key_json
from ..errors import InvalidRequest
from ..services import Services
from .bodies import json_body, json_response

KEY_FIELDS = ("user", "kind")


def key_routes(services: Services) -> list[Route]:
    admin = services.admin

    async def list_keys(request: Request) -> Response:
        keys = await admin.list_keys(services.auth.manager(request.headers.raw))
        return json_response({"count": len(keys), "keys": [key_json(record) for record in keys]})

    async def create_key(request: Request) -> Response:
        caller = services.auth.manager(request.headers.raw)
        fields = await json_body(request, services.settings.server.max_body_bytes)
        unknown = sorted(set(fields) - set(KEY_FIELDS))
        if unknown:
            raise InvalidRequest(f"a new key takes user and kind only, not {', '.join(unknown)}", param=unknown[0])
        if "user" not in fields:
            raise InvalidRequest("'user' is required: whose key it is", param="user")
        made = await admin.create_key(caller, fields["user"], fields.get("kind", "personal"))
        return json_response({"ok": True, **key_json(made.record), "key": made.key}, status=201)

    async def revoke_key(request: Request) -> Response:
        caller = services.auth.manager(request.headers.raw)
        record = await admin.revoke_key(caller, request.path_params["key_id"])
        return json_response({"ok": True, **key_json(record)})

    return [
        Route("/memory/keys", list_keys, methods=["GET"]),
        Route("/memory/keys", create_key, methods=["POST"]),
        Route("/memory/keys/{key_id}", revoke_key, methods=["DELETE"]),
    ]
