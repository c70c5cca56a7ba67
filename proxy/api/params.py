"""What the management routes read from a query string and how they answer: one place, so every route refuses
a bad value the same way (a 400 naming the parameter) and answers in the same JSON."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from ..errors import InvalidRequest
from ..memory.pages import DEFAULT_LIMIT, MAX_LIMIT
from ..pipe.relay import buffered_response

JSON = (b"content-type", b"application/json")


def json_response(obj: Any, status: int = 200) -> Response:
    return buffered_response(status, [JSON], orjson.dumps(obj))


def page_limit(value: str | None) -> int:
    """``limit`` of a paged list: 1 to ``MAX_LIMIT``, ``DEFAULT_LIMIT`` when absent; anything else is a 400."""
    if value is None or value == "":
        return DEFAULT_LIMIT
    try:
        limit = int(value)
    except ValueError:
        raise InvalidRequest(f"'limit' must be an integer from 1 to {MAX_LIMIT}", param="limit") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(f"'limit' must be from 1 to {MAX_LIMIT}, got {limit}", param="limit")
    return limit


def flag(value: str | None, name: str) -> bool | None:
    """An optional true/false parameter: None when absent."""
    if value is None or value == "":
        return None
    if value.lower() in ("true", "1", "yes"):
        return True
    if value.lower() in ("false", "0", "no"):
        return False
    raise InvalidRequest(f"'{name}' must be true or false", param=name)
