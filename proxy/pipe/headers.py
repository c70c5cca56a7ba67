"""Which headers cross the proxy, in each direction (COMPAT F5, A7, A8, I5)."""

from __future__ import annotations

from collections.abc import Iterable

RawHeaders = list[tuple[bytes, bytes]]

HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
    }
)
# Set by the proxy itself on the way up: the body may be re-encoded, and we ask for identity.
_NOT_FORWARDED_UP = HOP_BY_HOP | {b"host", b"content-length", b"accept-encoding"}
# Our own identity headers describe the caller to memproxy, not to the model provider.
_OWN_PREFIX = b"x-memory-"
# The proxy frames bodies itself (buffered or re-chunked) and relays them decoded (COMPAT A8).
_FRAMING = HOP_BY_HOP | {b"content-length", b"content-encoding"}

STREAM_HEADERS: RawHeaders = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def upstream_request_headers(
    raw: Iterable[tuple[bytes, bytes]],
    api_key: str | None,
    strip: frozenset[bytes] = frozenset(),
    *,
    key_header: bytes = b"authorization",
) -> RawHeaders:
    """The client's headers as the upstream should see them; a configured key replaces the client's.

    ``strip``: headers that carried memproxy's own key, which the upstream must never see. ``key_header``:
    where the upstream takes its key (``authorization`` as a bearer token, or Anthropic's ``x-api-key``).
    """
    replaced = (b"authorization", b"x-api-key") if api_key is not None else ()
    headers = [
        (name, value)
        for name, value in ((n.lower(), v) for n, v in raw)
        if name not in _NOT_FORWARDED_UP
        and name not in strip
        and not name.startswith(_OWN_PREFIX)
        and name not in replaced
    ]
    headers.append((b"accept-encoding", b"identity"))
    if api_key is not None:
        value = api_key.encode("latin-1")
        headers.append((key_header, b"Bearer " + value if key_header == b"authorization" else value))
    return headers


def relayed_response_headers(raw: Iterable[tuple[bytes, bytes]]) -> RawHeaders:
    """The upstream's response headers for the client: all but framing."""
    return [(name, value) for name, value in ((n.lower(), v) for n, v in raw) if name not in _FRAMING]
