"""Reading a management call's JSON body and writing its JSON answer, in the API's error shape."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .. import client_json
from ..errors import InvalidRequest
from ..pipe.relay import buffered_response, read_body

JSON = (b"content-type", b"application/json")


async def json_body(request: Request, limit: int) -> dict[str, Any]:
    """The body as a JSON object (an empty body: {}); anything else is a 400, too large a 413."""
    body = await read_body(request, limit)
    fields = client_json.loads(body) if body.strip() else {}
    if not isinstance(fields, dict):
        raise InvalidRequest("the request body must be a JSON object")
    return fields


def json_response(obj: Any, status: int = 200) -> Response:
    return buffered_response(status, [JSON], orjson.dumps(obj))
