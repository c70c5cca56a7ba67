"""Errors in Anthropic's shape, ``{"type": "error", "error": {"type", "message"}}``, for ``/v1/messages``.

Anthropic's SDKs map the status to an exception and read ``error.type``; an OpenAI envelope would
leave them without a message (DESIGN "Errors"). The proxy's own errors and upstream bodies in another
shape are translated by status; an Anthropic upstream's own errors pass as they are.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..errors import ProxyError

BY_STATUS = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}
TYPES = frozenset({*BY_STATUS.values(), "api_error"})


def error_type(status: int | None, kind: str | None = None) -> str:
    """Anthropic's error type: the given one when Anthropic knows it, else the status's, else ``api_error``."""
    if kind in TYPES:
        return kind
    return BY_STATUS.get(status or 0, "api_error")


def error_object(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def error_body(error: ProxyError) -> bytes:
    """The proxy's own error: its status says more in Anthropic's terms than its OpenAI ``type``."""
    kind = BY_STATUS.get(error.status) or error_type(None, error.type)
    return orjson.dumps(error_object(kind, error.message))


def upstream_error_object(status: int, body: bytes) -> dict[str, Any]:
    """An upstream's error body as Anthropic's error object, whatever shape it came in."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = error.get("type")
        return error_object(error_type(status, kind if isinstance(kind, str) else None), error["message"])
    text = body.decode("utf-8", "replace")[:500]
    return error_object(error_type(status), f"upstream answered {status}: {text}")
