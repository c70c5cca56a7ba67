"""Which client paths may be appended to an upstream's base URL: checked as they came on the wire, sent as checked.

With ``upstream.api_key`` set, a path that leaves the base path (``/v1/../admin``) would carry the server's own key
to any path of the upstream host. The check therefore runs on the raw, still percent-encoded path, and the upstream
gets exactly those bytes (never a decoded and re-encoded form): whatever a server on the way decodes or normalises
(once, twice, backslashes as slashes, full-width dots, overlong UTF-8, ``;`` parameters), it cannot make a dot
segment out of what is let through.
"""

from __future__ import annotations

import re
import unicodedata

from ..errors import InvalidRequest

# RFC 3986 pchar and "/": what a path may hold literally. Anything else (a backslash, a space, '?', '#', non-ASCII,
# a control character) is refused rather than encoded on the way.
_LITERAL = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*")
_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")  # a '%' not followed by two hex digits (%u002e, a lone %)
# Bytes never accepted percent-encoded: a dot (an encoded dot segment), '%' itself (a second decoding), a
# backslash (a slash to some servers), control characters.
_REFUSED_BYTES = frozenset(b".%\\\x7f") | frozenset(range(0x20))
_DOT_SEGMENTS = frozenset((".", ".."))
REFUSAL = (
    "the request path may not contain dot segments ('.', '..', encoded or not), encoded '.', '%' or '\\', "
    "or characters outside a URL path"
)


def checked_path(raw: str) -> str:
    """``raw`` (the request target's path as received, percent-encoding intact) when it is safe to append to a base
    URL as it is; else :class:`InvalidRequest`."""
    if not raw.startswith("/") or _LITERAL.fullmatch(raw) is None or _ESCAPE.search(raw) is not None:
        raise InvalidRequest(REFUSAL, param="path")
    decoded = _decoded(raw)
    if decoded is None or _has_dot_segment(decoded):
        raise InvalidRequest(REFUSAL, param="path")
    return raw


def _decoded(raw: str) -> str | None:
    """The path with its escapes decoded, as UTF-8 (overlong forms are not UTF-8), and NFKC-normalised (``．`` is
    ``.`` there); None when an escape is refused or the bytes are not UTF-8."""
    if "%" not in raw:
        return raw  # ASCII: the literal check let nothing else through
    out = bytearray()
    parts = raw.split("%")
    out += parts[0].encode("ascii")
    for part in parts[1:]:
        byte = int(part[:2], 16)
        if byte in _REFUSED_BYTES:
            return None
        out.append(byte)
        out += part[2:].encode("ascii")
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError:
        return None
    normal = unicodedata.normalize("NFKC", text)
    if "%" in normal or "\\" in normal or not normal.isprintable():  # a full-width '%' or '\' is one once normalised
        return None
    return normal


def _has_dot_segment(decoded: str) -> bool:
    """Whether any segment, once decoded and with its ``;parameters`` dropped (Tomcat reads ``..;`` as ``..``), is a
    dot segment, encoded slashes counted as slashes."""
    return any(segment.split(";", 1)[0] in _DOT_SEGMENTS for segment in decoded.split("/"))
