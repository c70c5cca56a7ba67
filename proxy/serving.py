"""The HTTP protocol memproxy serves with: uvicorn's, with a deadline for a request's headers.

uvicorn arms no timer while a connection waits for a request's headers: its keep-alive timeout runs only between
requests, and any byte received cancels it. A client that connects and sends nothing, or a header line now and then,
held its socket (and a file descriptor, and memory) forever, before any authentication: 1,100 of them after 40 s.
Here a connection gets ``server.header_timeout_s`` to finish each request's headers, from its first byte (or from
the connection, for the first request); then it is closed. Bodies and responses are not limited by it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - uvicorn[standard] brings httptools; plain uvicorn speaks h11
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


class _HeaderDeadline:
    """The deadline, for either of uvicorn's protocols (each says when a request's headers are complete)."""

    header_timeout_s = 10.0
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    _header_timer: asyncio.TimerHandle | None = None
    _awaiting_headers = True

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _disarm(self) -> None:
        timer, self._header_timer = self._header_timer, None
        if timer is not None:
            timer.cancel()

    def _headers_done(self) -> None:
        self._awaiting_headers = False
        self._disarm()

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._awaiting_headers and not self.transport.is_closing():
            self.transport.close()


class HttpToolsWithDeadline(_HeaderDeadline, HttpToolsProtocol):  # type: ignore[misc,valid-type]
    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._awaiting_headers:
            self._arm()  # a new request's first bytes (after a response, the keep-alive timer stood alone)
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._headers_done()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        self._awaiting_headers = True  # the next request's headers; until its first byte, the keep-alive timeout
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


class H11WithDeadline(_HeaderDeadline, H11Protocol):
    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._awaiting_headers:
            self._arm()
        super().data_received(data)
        if self._awaiting_headers and self.conn.their_state in (h11.SEND_BODY, h11.DONE):
            self._headers_done()

    def on_response_complete(self) -> None:
        self._awaiting_headers = True
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def http_protocol(header_timeout_s: float) -> type[asyncio.Protocol]:
    """uvicorn's protocol (httptools when installed, as its ``http="auto"`` picks), closing a connection that takes
    longer than ``header_timeout_s`` to send a request's headers."""
    base = HttpToolsWithDeadline if HttpToolsProtocol is not None else H11WithDeadline
    return type(base.__name__, (base,), {"header_timeout_s": header_timeout_s})
