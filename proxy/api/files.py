"""Memory files over HTTP: the ``/memories`` directory Anthropic's memory tool keeps, per user and workspace.

``GET /memory/files`` (``?q=``: passages that answer it), ``GET|PUT|DELETE /memory/files/{path}`` (a path under
``/memories``: ``notes.md``, ``projects/a.md``; a DELETE of a directory takes every file under it; a file's ``GET``
and ``PUT`` answer with its ``ETag``, ``"file.v3"``, and ``PUT`` and ``DELETE`` honour ``If-Match`` as a memory's
``PATCH`` does, and ``If-None-Match: *`` on a ``PUT`` that creates: a stale one is a 412 and changes nothing),
``GET /memory/file-proposals`` (changes held for approval, each beside the file as it stands) and
``POST /memory/file-proposals/{id}/approve|reject``. Same identity rules as the rest of ``/memory``. Thin:
:class:`~proxy.memory.file_service.FileService` does the work.
"""

from __future__ import annotations

import re
from types import EllipsisType

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import InvalidRequest, VersionMismatch
from ..memory.caller import Identity
from ..memory.file_service import FileNotFound, FileService
from ..memory.memory_files import MemoryFile
from ..memory.service import MAX_SEARCH_LIMIT
from ..memory.versions import parse_if_match
from ..pipe.relay import buffered_response
from ..services import Services
from .bodies import json_body, json_response

PASSAGES_DEFAULT = 10
_FILE_TAG = re.compile(r"file\.v([0-9]{1,9})")


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
        return _tagged({"file": found.to_json()}, found)

    async def write_file(request: Request) -> Response:
        who = caller(request)
        path = request.path_params["path"]
        expect = await _expected(request, files, who, path)
        fields = await json_body(request, services.settings.server.max_body_bytes)
        written = await files.write(who, path, fields.get("text"), expect=expect)
        if written.proposal is not None:
            proposal = written.proposal
            body = {"ok": True, "path": proposal.path, "held": True, "reason": proposal.provenance.reason}
            return json_response(body | {"proposal": proposal.to_json()}, status=202)
        assert written.file is not None
        created = written.file.version == 1 and not written.unchanged
        body = {"ok": True, "path": written.file.path, "held": False, "file": written.file.to_json()}
        return _tagged(body, written.file, status=201 if created else 200)

    async def delete_file(request: Request) -> Response:
        who = caller(request)
        path = request.path_params["path"]
        deleted = await files.delete(who, path, expect=await _expected(request, files, who, path))
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


def _tagged(body: dict[str, object], file: MemoryFile, status: int = 200) -> Response:
    headers = [(b"content-type", b"application/json"), (b"etag", f'"file.v{file.version}"'.encode())]
    return buffered_response(status, headers, orjson.dumps(body))


async def _expected(request: Request, files: FileService, who: Identity, path: str) -> int | None | EllipsisType:
    """The file's version a change is made from, for the store to check in its write: the version an ``If-Match``
    tag names when it is the current one (``*``: whichever is current), None for ``If-None-Match: *`` (only if
    there is no file), ``...`` without either. A tag naming another version is a 412 here already."""
    values = request.headers.getlist("if-match")
    parsed = parse_if_match(", ".join(values) if values else None)
    if request.headers.get("if-none-match", "").strip() == "*":
        if parsed is not None:
            raise InvalidRequest("send If-Match or If-None-Match: *, not both", param="If-None-Match")
        return None
    if parsed is None:
        return ...
    try:
        current = (await files.read(who, path)).version
    except FileNotFound:
        raise VersionMismatch(f"{path} is not there: If-Match needs the file it names", param="If-Match") from None
    accepted = {int(m[1]) for tag in parsed.tags if (m := _FILE_TAG.fullmatch(tag)) is not None}
    if not parsed.any and current not in accepted:
        shown = ", ".join(f"version {v}" for v in sorted(accepted)) or "no version of this file"
        raise VersionMismatch(f"{path} is at version {current}, and If-Match names {shown}", param="If-Match")
    return current
