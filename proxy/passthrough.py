"""Every path memproxy does not serve itself goes to the upstream as it came (COMPAT K), in keys mode only for a
known key; through a shared upstream key, only to objects the caller made.

With ``upstream.api_key`` set every user's upstream objects (stored responses, conversations, files, batches,
Anthropic message batches) sit in one account. So, for a caller the proxy knows: a path naming an object another
user made (or one nobody made through this proxy) is a 404 in the API's own shape; an object a POST to a collection
creates is bound to its caller; a list of a collection shows the caller's own objects only; and a JSON body naming
an object (a ``file_id``, ``vector_store_ids``) is checked like a path.
"""

from __future__ import annotations

from urllib.parse import quote

import httpx
import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from .auth.object_refs import Reference, object_path, references
from .auth.objects import UpstreamObjects
from .errors import BadUpstreamResponse
from .pipe.headers import relayed_response_headers, upstream_request_headers
from .pipe.paths import checked_path
from .pipe.relay import ClientGone, buffered_response, close_quietly, streamed_passthrough, unless_disconnected
from .pipeline import CLIENT_CLOSED, require_owned
from .services import Services

# Bodies up to this size are read before forwarding, so a disconnect can be watched for; larger ones stream.
READ_FIRST_BYTES = 1024 * 1024
# An answer the proxy reads to bind what it created or to filter a list: larger ones pass as they are.
READ_ANSWER_BYTES = 8 * 1024 * 1024


def anthropic_path(path: str) -> bool:
    """Anthropic's API: ``/v1/messages`` and what lies under it (``count_tokens``, ``batches``)."""
    return path.startswith(("/v1/messages", "/messages"))


def wire_path(scope: Scope) -> str:
    """The path as the client sent it, percent-encoding intact: what the upstream gets is checked in this form
    (:func:`proxy.pipe.paths.checked_path`). Latin-1 keeps every byte as one character, for the check to refuse."""
    raw = scope.get("raw_path")
    return raw.decode("latin-1") if raw else quote(scope["path"], safe="/;:@!$&'()*+,=~")


async def passthrough(request: Request, services: Services) -> Response:
    auth = services.auth.authenticate(request.headers.raw)
    upstream = services.anthropic if anthropic_path(request.url.path) else services.upstream
    headers = upstream_request_headers(
        request.headers.raw, auth.upstream_key, auth.strip, key_header=upstream.key_header
    )
    path = checked_path(wire_path(request.scope))  # a path that leaves the base path is a 400 before anything else
    caller = auth.identity
    owner = caller.user if caller is not None and auth.upstream_key is not None else None
    named = object_path(request.url.path) if owner is not None else None
    if owner is not None and named is not None and named.id is not None:
        await require_owned(services.objects, owner, [Reference(named.collection, named.id)])
    declared = request.headers.get("content-length")
    small = declared is not None and declared.isdigit() and int(declared) <= READ_FIRST_BYTES
    bodiless = declared is None and "transfer-encoding" not in request.headers
    if small or bodiless:
        content = await request.body() if small else None
        if owner is not None and content and request.headers.get("content-type", "").startswith("application/json"):
            try:
                payload = orjson.loads(content)
            except orjson.JSONDecodeError:
                payload = None
            await require_owned(services.objects, owner, references(payload))
        send = upstream.send(
            request.method, path, query=request.scope["query_string"], headers=headers, content=content
        )
        try:
            answer = await unless_disconnected(request.receive, send)
        except ClientGone:
            return Response(status_code=CLIENT_CLOSED)
    else:
        answer = await upstream.send(
            request.method, path, query=request.scope["query_string"], headers=headers, content=request.stream()
        )
    if owner is not None and named is not None and named.id is None:
        return await _owned_answer(answer, request.method, services.objects, owner)
    return streamed_passthrough(answer)


async def _owned_answer(answer: httpx.Response, method: str, objects: UpstreamObjects, owner: str) -> Response:
    """A collection's answer: what a POST created is bound to its caller; a GET's list keeps the caller's own."""
    declared = answer.headers.get("content-length")
    readable = (
        200 <= answer.status_code < 300
        and method in ("POST", "GET")
        and answer.headers.get("content-type", "").startswith("application/json")
    )
    if not readable:
        return streamed_passthrough(answer)
    if declared is not None and (not declared.isdigit() or int(declared) > READ_ANSWER_BYTES):
        await close_quietly(answer)
        raise BadUpstreamResponse("the upstream's answer is too large for memproxy to check whose objects it holds")
    body = b""
    try:
        async for chunk in answer.aiter_bytes():
            body += chunk
            if len(body) > READ_ANSWER_BYTES:
                raise BadUpstreamResponse(
                    "the upstream's answer is too large for memproxy to check whose objects it holds"
                )
    finally:
        await close_quietly(answer)
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        parsed = None
    if method == "POST" and isinstance(parsed, dict) and isinstance(parsed.get("id"), str):
        objects.bind(owner, (parsed["id"],))
    elif method == "GET" and isinstance(parsed, dict) and isinstance(parsed.get("data"), list):
        body = orjson.dumps(await _own_only(parsed, objects, owner))
    return buffered_response(answer.status_code, relayed_response_headers(answer.headers.raw), body)


async def _own_only(listed: dict[str, object], objects: UpstreamObjects, owner: str) -> dict[str, object]:
    """A list with only the caller's objects; its cursors name the first and last of those."""
    items = listed["data"]
    assert isinstance(items, list)
    ids = [item["id"] for item in items if isinstance(item, dict) and isinstance(item.get("id"), str)]
    owners = await objects.owners(ids)
    kept = [item for item in items if isinstance(item, dict) and owners.get(str(item.get("id"))) == owner]
    shown: dict[str, object] = {**listed, "data": kept}
    if "first_id" in listed:
        shown["first_id"] = kept[0]["id"] if kept else None
    if "last_id" in listed:
        shown["last_id"] = kept[-1]["id"] if kept else None
    return shown
