"""Sessions over HTTP: ``GET /memory/sessions`` (live and past, newest first, paged) and ``GET
/memory/sessions/{id}`` (what one said, what it was given and why). The caller's own only: another user's session
id is a 404, as an unknown one is. Thin: :class:`~proxy.episodes.session_records.SessionRecords` does the work."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..memory.caller import Identity
from ..services import Services
from .params import flag, json_response, page_limit


def session_routes(services: Services) -> list[Route]:
    def caller(request: Request) -> Identity:
        return services.auth.require(request.headers.raw)

    async def list_sessions(request: Request) -> Response:
        who = caller(request)
        params = request.query_params
        found = await services.session_records.page(
            who,
            limit=page_limit(params.get("limit")),
            before=params.get("before") or None,
            live=flag(params.get("live"), "live"),
        )
        sessions = [info.to_json() for info in found.items]
        return json_response({"count": len(sessions), "sessions": sessions, "next": found.next})

    async def get_session(request: Request) -> Response:
        record = await services.session_records.get(caller(request), request.path_params["session_id"])
        return json_response(record.to_json())

    return [
        Route("/memory/sessions", list_sessions, methods=["GET"]),
        Route("/memory/sessions/{session_id}", get_session, methods=["GET"]),
    ]
