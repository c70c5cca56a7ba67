"""The review queue over HTTP: ``GET /memory/review`` (held memories and episodes with their evidence, newest first,
paged) and ``POST /memory/memories/{id}/reject`` (a held memory deleted; approving is ``.../approve``, and an
episode's buttons are ``/memory/episodes/{id}/approve|reject``). Thin: :class:`~proxy.memory.review.ReviewQueue`
and :class:`~proxy.memory.service.MemoryService` do the work."""

from __future__ import annotations

from dataclasses import replace

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..memory.caller import Identity
from ..services import Services
from .params import json_response, page_limit


def review_routes(services: Services) -> list[Route]:
    def caller(request: Request) -> Identity:
        return services.auth.require(request.headers.raw)

    async def review(request: Request) -> Response:
        who = caller(request)
        params = request.query_params
        limit, before = page_limit(params.get("limit")), params.get("before") or None
        found = await services.review.page(who, limit=limit, before=before)
        held = replace(await services.memory.held_count(who), files=await services.files.held_count(who))
        items = [item.to_json() for item in found.items]
        return json_response({"count": len(items), "held": held.to_json(), "items": items, "next": found.next})

    async def reject_memory(request: Request) -> Response:
        rejected = await services.memory.reject(caller(request), request.path_params["memory_id"])
        return json_response({"ok": True, "id": rejected.id, "deleted": True})

    return [
        Route("/memory/review", review, methods=["GET"]),
        Route("/memory/memories/{memory_id}/reject", reject_memory, methods=["POST"]),
    ]
