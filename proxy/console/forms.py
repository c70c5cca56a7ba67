"""A console form's fields, read from an ``application/x-www-form-urlencoded`` body (what browsers and htmx send).

Read here rather than through Starlette's form parser, which needs an extra package for this one format: bounded in
size and in fields, strict about UTF-8, and one value per name unless the form means a list (checked ids).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl

from starlette.requests import Request

from ..errors import InvalidRequest, RequestTooLarge

MAX_FORM_BYTES = 64 * 1024  # a memory is 500 characters; a bulk review posts a few hundred ids
MAX_FIELDS = 1000


@dataclass(frozen=True, slots=True)
class Form:
    fields: tuple[tuple[str, str], ...]

    def get(self, name: str, default: str = "") -> str:
        for key, value in self.fields:
            if key == name:
                return value
        return default

    def all(self, name: str) -> list[str]:
        return [value for key, value in self.fields if key == name]


async def read_form(request: Request, max_bytes: int = MAX_FORM_BYTES) -> Form:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in ("application/x-www-form-urlencoded", ""):
        raise InvalidRequest("the console's forms are sent as application/x-www-form-urlencoded")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise RequestTooLarge(f"a console form is at most {max_bytes} bytes")
    try:
        text = body.decode("ascii")  # percent-encoded: anything else is not a browser's form
        pairs = parse_qsl(text, keep_blank_values=True, errors="strict", max_num_fields=MAX_FIELDS)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidRequest("the form could not be read") from exc
    return Form(tuple(pairs))
