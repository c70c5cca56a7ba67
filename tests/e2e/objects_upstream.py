"""An upstream that keeps what users make with its key, as OpenAI's and Anthropic's do: stored responses,
conversations, files, vector stores, batches and Anthropic message batches, every one listed to whoever asks.
Chat, Responses and Messages calls go to the fake upstream it wraps. Every request it got is noted."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from proxy.testing import FakeUpstream
from proxy.testing.runner import run_fake_upstream, serve_in_background

COLLECTIONS = {
    "files": "file-",
    "conversations": "conv_",
    "vector_stores": "vs_",
    "batches": "batch_",
    "messages/batches": "msgbatch_",
}
ALL = ["GET", "POST", "DELETE", "PUT", "PATCH"]


class ObjectsUpstream:
    def __init__(self, fake: FakeUpstream) -> None:
        self.fake = fake
        self.base_url = ""
        self.objects: dict[str, dict[str, Any]] = {}
        self.seen: list[tuple[str, str, dict[str, str]]] = []  # (method, path, headers) of object calls
        routes = []
        for collection in sorted(COLLECTIONS, key=len, reverse=True):
            routes.append(Route(f"/v1/{collection}", self._collection, methods=ALL))
            routes.append(Route(f"/v1/{collection}/{{ident}}", self._object, methods=ALL))
            routes.append(Route(f"/v1/{collection}/{{ident}}/{{rest:path}}", self._object, methods=ALL))
        routes.append(Route("/v1/responses/{ident}", self._object, methods=ALL))
        routes.append(Route("/v1/responses/{ident}/{rest:path}", self._object, methods=ALL))
        self._mine = Starlette(routes=routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        ours = path.startswith(tuple(f"/v1/{c}" for c in COLLECTIONS)) or path.startswith("/v1/responses/")
        await (self._mine if scope["type"] == "http" and ours else self.fake.app)(scope, receive, send)

    def _note(self, request: Request) -> None:
        self.seen.append((request.method, request.url.path, dict(request.headers)))

    async def _collection(self, request: Request) -> Response:
        self._note(request)
        collection = request.url.path.removeprefix("/v1/")
        if request.method == "POST":
            ident = COLLECTIONS[collection] + uuid.uuid4().hex[:12]
            made = {"id": ident, "object": collection.rstrip("s"), "collection": collection}
            self.objects[ident] = made
            return JSONResponse(made)
        listed = [o for o in self.objects.values() if o["collection"] == collection]
        first, last = (listed[0]["id"], listed[-1]["id"]) if listed else (None, None)
        return JSONResponse({"object": "list", "data": listed, "first_id": first, "last_id": last, "has_more": False})

    async def _object(self, request: Request) -> Response:
        self._note(request)
        ident = request.path_params["ident"]
        if request.url.path.startswith("/v1/responses/"):
            return JSONResponse({"id": ident, "object": "response", "read": request.url.path})
        if ident not in self.objects:
            return JSONResponse({"error": {"message": "No such object", "type": "invalid_request_error"}}, 404)
        if request.method == "DELETE":
            self.objects.pop(ident)
            return JSONResponse({"id": ident, "deleted": True})
        return JSONResponse(self.objects[ident])


@contextmanager
def run_objects_upstream() -> Iterator[ObjectsUpstream]:
    with run_fake_upstream() as fake:
        upstream = ObjectsUpstream(fake)
        with serve_in_background(upstream, name="objects-upstream", lifespan="off") as root:
            upstream.base_url = f"{root}/v1"
            yield upstream
