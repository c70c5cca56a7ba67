"""The one pooled client for the OpenAI-compatible upstream.

httpx's API over the ``httpx-aiohttp`` transport: httpx's own pool collapses under
concurrency (encode/httpx#3215). Transport failures are translated here into
:class:`UpstreamUnreachable` / :class:`UpstreamTimeout`; error *statuses* are not errors at
this layer, they are relayed to the client as the upstream said them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import httpx
from httpx_aiohttp import AiohttpTransport

from ..errors import InvalidRequest, ProxyError, UpstreamTimeout, UpstreamUnreachable
from .headers import RawHeaders

MAX_URLS = 1_000


class Upstream:
    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float,
        transport: httpx.AsyncBaseTransport | None = None,
        key_header: bytes = b"authorization",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.key_header = key_header  # where this upstream takes a configured key: bearer, or Anthropic's x-api-key
        limits = httpx.Limits(max_connections=1000, max_keepalive_connections=200, keepalive_expiry=30)
        self._transport = transport if transport is not None else AiohttpTransport(limits=limits)
        self._timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 30.0)).as_dict()
        self._urls: dict[str, httpx.URL] = {}  # parsed once per path: parsing was a fifth of building a request

    def url(self, path: str, query: bytes = b"") -> httpx.URL:
        """Map a client path onto the base URL: ``/v1/x`` and ``/x`` both mean ``<base>/x`` (COMPAT K4)."""
        url = self._urls.get(path)
        if url is None:
            check_path(path)
            rest = path[3:] if path == "/v1" or path.startswith("/v1/") else path
            url = httpx.URL(self.base_url + rest)
            if len(self._urls) >= MAX_URLS:  # clients choose paths: keep the cache bounded
                self._urls.clear()
            self._urls[path] = url
        return url.copy_with(query=query) if query else url

    async def send(
        self,
        method: str,
        path: str,
        *,
        query: bytes = b"",
        headers: RawHeaders,
        content: bytes | AsyncIterator[bytes] | None = None,
    ) -> httpx.Response:
        """Send a request and return once the status and headers are in; the body is left to stream.

        A bare ``httpx.Request`` straight to the transport: a proxy wants none of a client's default headers
        (httpx's would add its own ``User-Agent``), redirects, auth or cookies (a cookie from one user's upstream
        response must never ride on another's request), and skipping them is a large share of the per-request cost.
        """
        request = httpx.Request(
            method, self.url(path, query), headers=headers, content=content, extensions={"timeout": self._timeout}
        )
        try:
            response = await self._transport.handle_async_request(request)
        except (httpx.TransportError, TimeoutError, OSError) as exc:
            raise translate_transport_error(exc) from exc
        response.request = request
        return response

    async def aclose(self) -> None:
        await self._transport.aclose()


def check_path(path: str) -> None:
    """Refuse a path that could leave the base URL's path once the URL is built: dot segments (``..``, also when
    sent as ``%2e%2e``), or a query or fragment smuggled in encoded. With ``upstream.api_key`` set, such a path
    would carry the server's own key to any path of the upstream host."""
    segments = path.split("/")
    if any(segment in (".", "..") for segment in segments) or any(c in path for c in "?#\\") or not path.isprintable():
        raise InvalidRequest("the request path may not contain '.' or '..' segments, '?', '#' or '\\'", param="path")


def translate_transport_error(exc: BaseException) -> ProxyError:
    """A timeout is a 504; anything else that kept us from an answer is a 502 (COMPAT I3)."""
    if _timed_out(exc):
        return UpstreamTimeout("the upstream did not answer in time")
    cause = exc.__cause__ if isinstance(exc.__cause__, aiohttp.ClientError) else exc
    return UpstreamUnreachable(f"cannot reach the upstream: {type(cause).__name__}: {cause}".rstrip(": "))


def _timed_out(exc: BaseException) -> bool:
    cause = exc.__cause__
    if isinstance(exc, TimeoutError) or isinstance(cause, TimeoutError):
        return True
    # httpx-aiohttp maps a refused connection to ConnectTimeout; the aiohttp cause tells the truth.
    return isinstance(exc, httpx.TimeoutException) and not isinstance(cause, aiohttp.ClientError)
