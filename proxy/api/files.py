"""Memory files over HTTP: the ``/memories`` directory Anthropic's memory tool keeps, per user and workspace.

``GET /memory/files`` (``?q=``: passages that answer it), ``GET|PUT|DELETE /memory/files/{path}`` (a path under
``/memories``: ``notes.md``, ``projects/a.md``; a DELETE of a directory takes every file under it),
``GET /memory/file-proposals`` (changes held for approval, each beside the file as it stands) and
``POST /memory/file-proposals/{id}/approve|reject``. Same identity rules as the rest of ``/memory``. Thin:
:class:`~proxy.memory.file_service.FileService` does the work.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import InvalidRequest
from ..memory.caller import Identity
from ..memory.service import MAX_SEARCH_LIMIT
from ..services import Services
from .bodies import json_body, json_response

PASSAGES_DEFAULT = 10


def file_routes(services: Services) -> list[Route]:
    files = services.files

    def caller(request: Request) -> Identity:
        return services.auth.require(request.headers.raw)

    async def list_files(request: Request) -> Response:
        who = caller(request)
        query = request.query_params.get("q") or ""
        if query.strip():
            limit = _limit(request.query_params.get("limit"))
            found = await files.search(who, query, limit=limit)
            return json_response({"count": len(found), "passages": [p.to_json() for p in found]})
        listed = await files.files(who)
        held = await files.held_count(who)
        return json_response({"count": len(listed), "files": [f.listed() for f in listed], "held": held})

    async def read_file(request: Request) -> Response:
        found = await files.read(caller(request), request.path_params["path"])
        return json_response({"file": found.to_json()})

    async def write_file(request: Request) -> Response:
        who = caller(request)
        fields = await json_body(request, services.settings.server.max_body_bytes)
        written = await files.write(who, request.path_params["path"], fields.get("text"))
        if written.proposal is not None:
            proposal = written.proposal
            body = {"ok": True, "path": proposal.path, "held": True, "reason": proposal.provenance.reason}
            return json_response(body | {"proposal": proposal.to_json()}, status=202)
        assert written.file is not None
        created = written.file.version == 1 and not written.unchanged
        body = {"ok": True, "path": written.file.path, "held": False, "file": written.file.to_json()}
        return json_response(body, status=201 if created else 200)

    async def delete_file(request: Request) -> Response:
        deleted = await files.delete(caller(request), request.path_params["path"])
        return json_response({"ok": True, "deleted": deleted})

    async def list_proposals(request: Request) -> Response:
        waiting = await files.proposals(caller(request))
        shown = [p.to_json() | {"current": f.text if f is not None else None} for p, f in waiting]
        return json_response({"count": len(shown), "proposals": shown})

    async def approve(request: Request) -> Response:
        approved = await files.approve(caller(request), request.path_params["proposal_id"])
        return json_response({"ok": True, "id": approved.id, "path": approved.path, "deleted": approved.text is None})

    async def reject(request: Request) -> Response:
        rejected = await files.reject(caller(request), request.path_params["proposal_id"])
        return json_response({"ok": True, "id": rejected.id, "deleted": True})

    return [
        Route("/memory/files", list_files, methods=["GET"]),
        Route("/memory/files/{path:path}", read_file, methods=["GET"]),
        Route("/memory/files/{path:path}", write_file, methods=["PUT"]),
        Route("/memory/files/{path:path}", delete_file, methods=["DELETE"]),
        Route("/memory/file-proposals", list_proposals, methods=["GET"]),
        Route("/memory/file-proposals/{proposal_id}/approve", approve, methods=["POST"]),
        Route("/memory/file-proposals/{proposal_id}/reject", reject, methods=["POST"]),
    ]


def _limit(value: str | None) -> int:
    if value is None or value == "":
        return PASSAGES_DEFAULT
    if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= MAX_SEARCH_LIMIT:
        raise InvalidRequest(f"'limit' must be an integer from 1 to {MAX_SEARCH_LIMIT}", param="limit")
    return int(value)
