"""A memory's versions over HTTP: one memory with its ``ETag``, its history, a restore, and ``If-Match``.

Every change to a memory is a version (:mod:`proxy.memory.versions`); the ETag names the current one
(``"m-12.v3"``). ``PATCH``, ``DELETE`` and ``restore`` honour ``If-Match`` (``*`` or tags): the versions it names
go down to the store, which compares them in its write, so of two writers holding the same tag one wins and the
other gets a 412 (``version_mismatch``) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import InvalidRequest
from ..memory.caller import Identity
from ..memory.records import Memory
from ..memory.service import MemoryService
from ..memory.versions import Actor, etag, parse_if_match
from ..pipe.relay import buffered_response

JSON = (b"content-type", b"application/json")


def expected(request: Request, memory_id: str) -> Collection[int] | None:
    """The versions of ``memory_id`` the request's ``If-Match`` accepts; None without one (or for ``*``)."""
    values = request.headers.getlist("if-match")
    parsed = parse_if_match(", ".join(values) if values else None)
    return None if parsed is None else parsed.versions(memory_id)


def tagged(obj: Any, memory: Memory, status: int = 200) -> Response:
    """A JSON answer about one memory, with the ETag of its current version."""
    headers = [JSON, (b"etag", etag(memory.id, memory.version).encode())]
    return buffered_response(status, headers, orjson.dumps(obj))


def version_routes(
    memory: MemoryService,
    caller: Callable[[Request], Identity],
    read_json: Callable[[Request], Awaitable[dict[str, Any]]],
) -> list[Route]:
    async def get_memory(request: Request) -> Response:
        found = await memory.get(caller(request), request.path_params["memory_id"], held=True)
        return tagged(found.to_json(), found)

    async def list_versions(request: Request) -> Response:
        memory_id = request.path_params["memory_id"]
        versions = await memory.versions(caller(request), memory_id)
        body = {
            "id": memory_id,
            "deleted": versions[0].change == "deleted",
            "count": len(versions),
            "versions": [version.to_json() for version in versions],
        }
        headers = [JSON, (b"etag", etag(memory_id, versions[0].version).encode())]
        return buffered_response(200, headers, orjson.dumps(body))

    async def restore(request: Request) -> Response:
        who = caller(request)
        memory_id = request.path_params["memory_id"]
        expect = expected(request, memory_id)
        fields = await read_json(request)
        version = fields.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidRequest("'version' must be a whole number from 1: the version to restore", param="version")
        restored = await memory.restore(who, memory_id, version, actor=Actor.person(who), expect=expect)
        return tagged({"ok": True, "id": restored.id, "restored": version, "memory": restored.to_json()}, restored)

    return [
        Route("/memory/memories/{memory_id}", get_memory, methods=["GET"]),
        Route("/memory/memories/{memory_id}/versions", list_versions, methods=["GET"]),
        Route("/memory/memories/{memory_id}/restore", restore, methods=["POST"]),
    ]
