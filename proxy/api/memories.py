"""The management API under ``/memory``: the same identity rules as chat, OpenAI-style errors.

Thin: parse the request, call :class:`~proxy.memory.service.MemoryService`, render JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route

from .. import client_json
from ..errors import InvalidRequest, MethodNotAllowed, UnknownRoute
from ..memory.browse import Filters, Page
from ..memory.caller import Identity
from ..memory.provenance import ORIGINS
from ..memory.records import SCOPES
from ..memory.service import FILE_LINE, MAX_SEARCH_LIMIT, SEARCH_LIMIT, MemoryService, search_limit
from ..memory.store import Owner
from ..memory.versions import Actor
from ..pipe.relay import buffered_response, read_body
from ..services import Services
from .openapi import document_bytes
from .versions import expected, tagged, version_routes

JSON = (b"content-type", b"application/json")
HISTORY_LIMIT = 10
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def memory_routes(services: Services) -> list[Route]:
    memory: MemoryService = services.memory
    history = services.episodes.history

    def caller(request: Request) -> Identity:
        return services.auth.require(request.headers.raw)

    async def list_memories(request: Request) -> Response:
        who = caller(request)
        params = request.query_params
        query = params.get("q") or None
        filters = browse_filters(params)
        offset = _offset(params.get("offset"))
        await memory.flush_uses()  # show use counts as of now
        page = await memory.browse(who, query, filters, offset=offset, limit=_limit(params.get("limit")))
        return _json(page_json(page, scored=query is not None))

    async def add_memory(request: Request) -> Response:
        who = caller(request)
        fields = await _json_body(request, services.settings.server.max_body_bytes)
        stored = await memory.add(who, fields, origin="api")
        body = {"ok": True, "id": stored.memory.id, "memory": stored.memory.to_json()}
        if stored.superseded is not None:
            body["superseded"] = stored.superseded.id
        if stored.memory.held:  # stored, but not replayed until a person approves it: say so, and why
            body |= {"held": True, "reason": stored.memory.provenance.reason}
        return tagged(body, stored.memory, status=200 if stored.unchanged else 201)

    async def delete_memory(request: Request) -> Response:
        who, memory_id = caller(request), request.path_params["memory_id"]
        expect = expected(request, memory_id)  # If-Match: checked in the store's write
        deleted = await memory.delete(who, memory_id, actor=Actor.person(who), expect=expect)
        return _json({"ok": True, "id": deleted.id})

    async def edit_memory(request: Request) -> Response:
        who, memory_id = caller(request), request.path_params["memory_id"]
        expect = expected(request, memory_id)
        fields = await _json_body(request, services.settings.server.max_body_bytes)
        edited = await memory.edit(who, memory_id, fields, actor=Actor.person(who), expect=expect)
        return tagged({"ok": True, "id": edited.id, "memory": edited.to_json()}, edited)

    async def list_pinned(request: Request) -> Response:
        places = await memory.pinned(caller(request))
        return _json({place.scope: place.to_json() for place in places})

    async def approve_memory(request: Request) -> Response:
        who = caller(request)
        approved = await memory.approve(who, request.path_params["memory_id"], actor=Actor.person(who))
        body = {"ok": True, "id": approved.memory.id, "memory": approved.memory.to_json()}
        if approved.superseded is not None:
            body["superseded"] = approved.superseded.id
        return tagged(body, approved.memory)

    async def export(request: Request) -> Response:
        who = caller(request)
        lines = b"".join(orjson.dumps(m.to_json()) + b"\n" for m in await memory.export(who))
        lines += b"".join(await services.files.export(who))  # the memory tool's files: an import writes them back
        if history is not None:  # after the memories: an import reads those and skips these
            lines += b"".join(orjson.dumps(h.to_json()) + b"\n" for h in await history.export(who))
        headers = [(b"content-type", b"application/x-ndjson")]
        if memory.details is not None:  # offloaded tool outputs are not memories: counted, not exported
            count = await memory.details.count(Owner(who.user, who.workspace))
            headers.append((b"x-memproxy-details", str(count).encode()))
        return buffered_response(200, headers, lines)

    async def search_history(request: Request) -> Response:
        who = caller(request)
        params = request.query_params
        query = params.get("q") or ""
        if not query.strip():
            raise InvalidRequest(
                "'q' (the words to look for in your past sessions) is required; GET /memory/sessions/{id} gives one "
                "session's turns",
                param="q",
            )
        limit = _limit(params.get("limit"), default=HISTORY_LIMIT)
        if history is None:
            return _json({"count": 0, "history": []})
        found = await history.search(who, query, limit=limit, person=True)
        cited = [{**f.citation(), "untrusted": f.untrusted} for f in found]
        return _json({"count": len(cited), "history": cited})

    async def import_memories(request: Request) -> Response:
        who = caller(request)
        data = await read_body(request, services.settings.server.max_body_bytes)
        files = [(n, line) for n, line in enumerate(data.splitlines(), 1) if line.startswith(FILE_LINE)]
        report = await memory.import_lines(who, data, actor=Actor.importer(who, via="api"))
        written = await services.files.import_lines(who, files)  # after the memories' checks: a 400 imports nothing
        body = {"ok": not report.errors and not written.errors, "imported": report.imported}
        body |= {"unchanged": report.unchanged, "errors": report.errors}
        return _json(body | {"files": asdict(written)})

    async def forget_all(request: Request) -> Response:
        who = caller(request)
        fields = await _json_body(request, services.settings.server.max_body_bytes)
        if fields.get("confirm") is not True:
            raise InvalidRequest(
                "forget-all deletes every memory of this user in this workspace and their user-wide ones; "
                'send {"confirm": true} to do it',
                param="confirm",
            )
        counted = await memory.forget_counted(who)
        services.context.forget(who.user, who.workspace)
        await services.hidden_turns.forget((who.user, who.workspace))
        forgotten = await services.episodes.forget(who)
        return _json({"ok": True, "deleted": counted["memories"], "files": counted["files"], "forgotten": forgotten})

    async def end_session(request: Request) -> Response:
        ended = await services.episodes.end(caller(request), request.path_params["session_id"])
        body = {"ok": True, "id": ended.session.id, "turns": ended.session.turns, "extraction": None}
        if ended.job is not None:
            body["extraction"] = {"job": ended.job.id, "state": "queued", "untrusted": ended.job.untrusted}
        return _json(body)

    async def list_episodes(request: Request) -> Response:
        episodes, jobs = await services.episodes.of(caller(request))
        return _json(
            {
                "count": len(episodes),
                "episodes": [e.to_json() for e in episodes],
                "jobs": [j.status_json() for j in jobs],
            }
        )

    async def approve_episode(request: Request) -> Response:
        episode = await services.episodes.approve(caller(request), request.path_params["episode_id"])
        return _json({"ok": True, "id": episode.id, "episode": episode.to_json()})

    async def reject_episode(request: Request) -> Response:
        episode = await services.episodes.reject(caller(request), request.path_params["episode_id"])
        return _json({"ok": True, "id": episode.id, "deleted": True})

    async def openapi(request: Request) -> Response:
        return buffered_response(200, [JSON], document_bytes())

    routes = [
        Route("/memory/openapi.json", openapi, methods=["GET"]),
        Route("/memory/sessions/{session_id}/end", end_session, methods=["POST"]),
        Route("/memory/episodes", list_episodes, methods=["GET"]),
        Route("/memory/episodes/{episode_id}/approve", approve_episode, methods=["POST"]),
        Route("/memory/episodes/{episode_id}/reject", reject_episode, methods=["POST"]),
        Route("/memory/episodes/{episode_id}", reject_episode, methods=["DELETE"]),
        Route("/memory/memories", list_memories, methods=["GET"]),
        Route("/memory/memories", add_memory, methods=["POST"]),
        Route("/memory/memories/{memory_id}", delete_memory, methods=["DELETE"]),
        Route("/memory/memories/{memory_id}", edit_memory, methods=["PATCH"]),
        *version_routes(memory, caller, lambda request: _json_body(request, services.settings.server.max_body_bytes)),
        Route("/memory/pinned", list_pinned, methods=["GET"]),
        Route("/memory/memories/{memory_id}/approve", approve_memory, methods=["POST"]),
        Route("/memory/export", export, methods=["GET"]),
        Route("/memory/history", search_history, methods=["GET"]),
        Route("/memory/import", import_memories, methods=["POST"]),
        Route("/memory/forget-all", forget_all, methods=["POST"]),
    ]

    async def unknown(request: Request) -> Response:
        """/memory belongs to memproxy: a mistyped management call gets an answer here, and never reaches the
        upstream with the caller's credentials."""
        served = [r for r in request.app.router.routes if isinstance(r, Route)]  # the admin modules' routes too
        allowed = sorted({m for r in served if r.matches(request.scope)[0] is Match.PARTIAL for m in r.methods or ()})
        where = f"{request.method} {request.url.path}"
        if allowed:
            raise MethodNotAllowed(f"{where} is not served; this path takes {', '.join(allowed)}", allow=allowed)
        raise UnknownRoute(f"{where} is not a management route; GET /memory/openapi.json lists them")

    return [
        *routes,
        Route("/memory", unknown, methods=ALL_METHODS),
        Route("/memory/{rest:path}", unknown, methods=ALL_METHODS),
    ]


async def _json_body(request: Request, limit: int) -> dict[str, Any]:
    body = await read_body(request, limit)
    fields = client_json.loads(body) if body.strip() else {}
    if not isinstance(fields, dict):
        raise InvalidRequest("the request body must be a JSON object")
    return fields


def browse_filters(params: Mapping[str, str]) -> Filters:
    """The list filters of ``GET /memory/memories`` (the console's too): unknown values are a 400."""
    scope, origin = params.get("scope") or None, params.get("origin") or None
    if scope is not None and scope not in SCOPES:
        raise InvalidRequest(f"'scope' must be one of {', '.join(SCOPES)}", param="scope")
    if origin is not None and origin not in ORIGINS:
        raise InvalidRequest(f"'origin' must be one of {', '.join(ORIGINS)}", param="origin")
    pinned = params.get("pinned")
    return Filters(
        tag=params.get("tag") or None,
        category=params.get("category") or None,
        origin=origin,
        scope=scope,
        pinned=None if pinned in (None, "") else _bool(pinned, "pinned"),
        session=params.get("session") or None,
        held=_bool(params.get("held"), "held"),
    )


def page_json(page: Page, *, scored: bool) -> dict[str, Any]:
    """A page of memories; searched (``scored``), each with its score (null: a substring hit) and matched words."""
    memories = [
        {**item.memory.to_json(), "score": _score(item.score), "matched": list(item.matched)} if scored
        else item.memory.to_json()
        for item in page.items
    ]  # fmt: skip
    return {
        "count": len(memories),
        "total": page.total,
        "offset": page.offset,
        "next_offset": page.next_offset,
        "capped": page.capped,
        "memories": memories,
    }


def _score(score: float | None) -> float | None:
    return None if score is None else round(score, 4)


MAX_OFFSET = 1_000_000


def _offset(value: str | None) -> int:
    if value is None or value == "":
        return 0
    if not value.isascii() or not value.isdigit() or int(value) > MAX_OFFSET:
        raise InvalidRequest(f"'offset' must be an integer from 0 to {MAX_OFFSET}", param="offset")
    return int(value)


def _limit(value: str | None, *, default: int = SEARCH_LIMIT) -> int:
    if value is None or value == "":
        return default
    try:
        limit = int(value)
    except ValueError:
        raise InvalidRequest(f"'limit' must be an integer from 1 to {MAX_SEARCH_LIMIT}", param="limit") from None
    return search_limit(limit)


def _bool(value: str | None, name: str) -> bool:
    if value is None or value.lower() in ("", "false", "0", "no"):
        return False
    if value.lower() in ("true", "1", "yes"):
        return True
    raise InvalidRequest(f"'{name}' must be true or false", param=name)


def _json(obj: Any, status: int = 200) -> Response:
    return buffered_response(status, [JSON], orjson.dumps(obj))
