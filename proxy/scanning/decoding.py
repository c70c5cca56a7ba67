"""Text hidden in an encoding a model can read but a pattern cannot: base64, percent-encoding, HTML entities and
backslash escapes. Each decoded text is folded like the text around it; binary and garbage are dropped."""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Iterator
from itertools import islice
from urllib.parse import unquote

from .normalise import fold
from .rules import has_run, key_runs

_MIN_BASE64 = 20
_BASE64 = re.compile(rf"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{{{_MIN_BASE64},}}={{0,2}}")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});")
_ESCAPE = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|U[0-9A-Fa-f]{8})")
MAX_BLOBS = 8  # base64 candidates decoded per text
MIN_ESCAPES = 3  # fewer percent signs, entities or escapes than this are ordinary text ("100%", "&amp;")


def readable_base64(blob: str) -> str | None:
    """`blob` decoded from base64 when that gives printable UTF-8 text, else None."""
    padded = blob.rstrip("=") + "=" * (-len(blob.rstrip("=")) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_" if "-" in blob or "_" in blob else None, validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if len(text) >= 8 and all(c.isprintable() or c in "\t\r\n" for c in text) else None


def _unescape(m: re.Match[str]) -> str:
    code = int(m[0][2:], 16)
    return chr(code) if code <= 0x10FFFF else ""


def base64_texts(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, folded text) of each base64 run in `text` that decodes to readable text."""
    if not has_run(key_runs(text), _MIN_BASE64):  # the regex would step through every position for nothing
        return
    for m in islice(_BASE64.finditer(text), MAX_BLOBS):
        if (inner := readable_base64(m[0])) is not None:
            yield m.start(), m.end(), fold(inner)


def decoded(text: str) -> Iterator[str]:
    """The folded texts hidden in `text` by an encoding, if any."""
    for _, _, inner in base64_texts(text):
        yield inner
    if len(_PERCENT.findall(text)) >= MIN_ESCAPES:
        yield fold(unquote(text))
    if len(_ENTITY.findall(text)) >= MIN_ESCAPES:
        yield fold(html.unescape(text))
    if len(_ESCAPE.findall(text)) >= MIN_ESCAPES:
        yield fold(_ESCAPE.sub(_unescape, text))
