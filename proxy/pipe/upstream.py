"""The one pooled client for the OpenAI-compatible upstream.

httpx's API over aiohttp: httpx's own pool collapses under concurrency (encode/httpx#3215). Without a transport given
(tests and record/replay give one), requests go straight to an aiohttp session and come back as ``httpx.Response``
objects over ``httpx-aiohttp``'s body stream: building an ``httpx.Request`` and translating it back for aiohttp was
a tenth of a streamed request's CPU. Transport failures are translated here into :class:`UpstreamUnreachable` /
:class:`UpstreamTimeout`; error *statuses* are not errors at this layer, they are relayed to the client as the
upstream said them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import httpx
import yarl
from httpx_aiohttp.transport import map_aiohttp_exceptions

from ..errors import ProxyError, UpstreamTimeout, UpstreamUnreachable
from ..telemetry.exchange import upstream_answered, upstream_failed, upstream_sent
from .headers import RawHeaders
from .paths import checked_path

MAX_URLS = 1_000
MAX_CONNECTIONS = 1_000
KEEPALIVE_S = 30.0


def once_sent(callback: Callable[[], object]) -> None:
    """Run ``callback`` while the upstream works on the request about to be sent, not before it goes out.

    A request is written by a task of aiohttp's own (on Python 3.11 it cannot start eagerly), which first runs on the
    loop's next turn, after whatever was ready before it: a callback scheduled for that turn would hold the request
    back. One scheduled from that turn runs after it. (When something awaited before the send really waits, the
    callback runs then: early, never wrong.)
    """
    loop = asyncio.get_running_loop()
    loop.call_soon(loop.call_soon, callback)


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
        parts = urlsplit(self.base_url)
        self.server = (parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))  # for traces
        self._transport = transport  # None: aiohttp directly
        self._ssl = httpx.create_ssl_context() if transport is None else None  # certifi, or SSL_CERT_FILE
        self._session: aiohttp.ClientSession | None = None  # made on first use, inside the event loop
        timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 30.0))
        self._timeout = timeout.as_dict()
        # As httpx-aiohttp maps httpx's timeouts: connect per socket, read between reads, the pool's wait overall.
        self._client_timeout = aiohttp.ClientTimeout(
            sock_connect=timeout.connect, sock_read=timeout.read, connect=timeout.pool
        )
        # Parsed once per path: parsing was a fifth of a request.
        self._urls: dict[str, tuple[httpx.URL, yarl.URL]] = {}

    def url(self, path: str, query: bytes = b"") -> httpx.URL:
        """Map a client path onto the base URL: ``/v1/x`` and ``/x`` both mean ``<base>/x`` (COMPAT K4).

        ``path`` is the path as it came on the wire, percent-encoding intact (``scope["raw_path"]``): it is checked
        in that form (:func:`checked_path`) and sent in it, never decoded and re-encoded on the way."""
        url = self._parsed(path)[0]
        return url.copy_with(query=query) if query else url

    def _parsed(self, path: str) -> tuple[httpx.URL, yarl.URL]:
        found = self._urls.get(path)
        if found is None:
            checked = checked_path(path)
            rest = checked[3:] if checked == "/v1" or checked.startswith("/v1/") else checked
            text = self.base_url + rest
            if len(self._urls) >= MAX_URLS:  # clients choose paths: keep the cache bounded
                self._urls.clear()
            found = self._urls[path] = (httpx.URL(text), yarl.URL(text, encoded=True))
        return found

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

        A proxy wants none of a client's default headers (httpx's would add its own ``User-Agent``), redirects,
        auth or cookies (a cookie from one user's upstream response must never ride on another's request), and
        skipping them is a large share of the per-request cost.
        """
        if self._transport is not None:
            return await self._send_through(self._transport, method, path, query, headers, content)
        url = yarl.URL(str(self.url(path, query)), encoded=True) if query else self._parsed(path)[1]
        session = self._session or self._open()
        exchange = upstream_sent(self.server)
        for again in (True, False):
            try:
                answer = await session.request(
                    method,
                    url,
                    headers=_text(headers),
                    data=None if content == b"" else content,
                    allow_redirects=False,
                    auto_decompress=False,  # relayed as it came, or decoded by httpx where the proxy reads it
                    compress=False,
                    timeout=self._client_timeout,
                )
                break
            except aiohttp.ClientConnectionResetError as exc:
                # A pooled connection the upstream closed as we took it (its keep-alive ran out first): the request
                # never went out whole, so a body we hold goes once more, on a fresh connection. aiohttp does this
                # for idempotent methods only; a half-written request cannot have been acted on either.
                if not again or not (content is None or isinstance(content, bytes)):
                    raise _failed(exc) from exc
            except (aiohttp.ClientError, TimeoutError, OSError) as exc:
                raise _failed(exc) from exc
        answered = answer.headers
        upstream_answered(exchange, answer.status, answered.get("x-request-id") or answered.get("request-id"))
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if answer.reason:
            extensions["reason_phrase"] = answer.reason.encode()
        return httpx.Response(
            answer.status, headers=answer.raw_headers, stream=UpstreamBody(answer), extensions=extensions
        )

    async def _send_through(
        self,
        transport: httpx.AsyncBaseTransport,
        method: str,
        path: str,
        query: bytes,
        headers: RawHeaders,
        content: bytes | AsyncIterator[bytes] | None,
    ) -> httpx.Response:
        """A bare ``httpx.Request`` straight to the transport (a mock, or record/replay)."""
        request = httpx.Request(
            method, self.url(path, query), headers=headers, content=content, extensions={"timeout": self._timeout}
        )
        exchange = upstream_sent(self.server)
        try:
            response = await transport.handle_async_request(request)
        except (httpx.TransportError, TimeoutError, OSError) as exc:
            raise _failed(exc) from exc
        response.request = request
        answered = response.headers
        upstream_answered(exchange, response.status_code, answered.get("x-request-id") or answered.get("request-id"))
        return response

    def _open(self) -> aiohttp.ClientSession:
        """The pool, as httpx-aiohttp would make it, without a cookie jar: upstream cookies are never kept."""
        ssl = self._ssl if self._ssl is not None else True
        connector = aiohttp.TCPConnector(limit=MAX_CONNECTIONS, keepalive_timeout=KEEPALIVE_S, ssl=ssl)
        self._session = aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar())
        return self._session

    async def aclose(self) -> None:
        if self._transport is not None:
            await self._transport.aclose()
        if self._session is not None:
            await self._session.close()


def _text(headers: RawHeaders) -> list[tuple[str, str]]:
    """Headers as aiohttp takes them (it writes them back as UTF-8), decoded as httpx decodes them: ASCII, else UTF-8,
    else Latin-1, all of them alike."""
    for encoding in ("ascii", "utf-8"):
        try:
            return [(name.decode(encoding), value.decode(encoding)) for name, value in headers]
        except UnicodeDecodeError:
            continue
    return [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers]


def _failed(exc: BaseException) -> ProxyError:
    """The error a failed send raises, noted for the request's metrics and log."""
    error = translate_transport_error(exc)
    upstream_failed("timeout" if isinstance(error, UpstreamTimeout) else "unreachable")
    return error


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


class UpstreamBody(httpx.AsyncByteStream):
    """An aiohttp answer's body for httpx, as httpx-aiohttp's ``AiohttpResponseStream`` but an iterator object
    rather than an async generator.

    The relay stops reading a stream at its last event; an async generator left unfinished like that is handed,
    once dropped, to the event loop's finalizer hook, which wakes the loop from "another thread" and runs a task
    just to close it: a few percent of a streamed request's cost, every request. An iterator object is simply freed.
    """

    CHUNK_SIZE = 16 * 1024

    def __init__(self, answer: aiohttp.ClientResponse) -> None:
        self._answer = answer

    def __aiter__(self) -> UpstreamBody:
        return self

    async def __anext__(self) -> bytes:
        with map_aiohttp_exceptions():
            chunk = await self._answer.content.read(self.CHUNK_SIZE)
        if not chunk:
            raise StopAsyncIteration
        return chunk

    async def aclose(self) -> None:
        with map_aiohttp_exceptions():
            await self._answer.__aexit__(None, None, None)
