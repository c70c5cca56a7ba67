"""The load generator's HTTP client: asyncio protocol + httptools' C parser, one keep-alive connection per worker,
the request bytes built once. It costs a few tens of microseconds per request, so at concurrency 16 on two cores
it stays well clear of being the bottleneck (the "gen cpu" column shows its share of a core)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from typing import cast
from urllib.parse import urlsplit

import httptools

from .cases import APIS


class HttpConnection(asyncio.Protocol):
    def __init__(self, keep_body: bool = False) -> None:
        self._parser = httptools.HttpResponseParser(self)
        self._transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._keep_body = keep_body
        self.closed = False
        self.status = 0
        self.keep_alive = True
        self.body_bytes = 0
        self.body = bytearray()
        self.tail = b""  # the body's last bytes: a finished stream ends with "data: [DONE]"
        self.end_marker = b""  # set per request: seen_end says whether the body held it (a stream's last event)
        self.seen_end = False
        self.first_body_at = 0.0

    @classmethod
    async def open(cls, host: str, port: int, timeout_s: float, keep_body: bool = False) -> HttpConnection:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout_s):
            _, conn = await loop.create_connection(lambda: cls(keep_body), host, port)
        return conn

    async def request(self, data: bytes, end_marker: bytes = b"") -> None:
        """Send one request and wait for the whole response; then read status, body_bytes, first_body_at, and
        seen_end: whether the body held ``end_marker`` (at most 32 bytes)."""
        if self.closed or self._transport is None:
            raise ConnectionResetError("connection is closed")
        self.end_marker = end_marker
        self._waiter = asyncio.get_running_loop().create_future()
        self._transport.write(data)
        await self._waiter

    def close(self) -> None:
        self.closed = True
        if self._transport is not None:
            self._transport.close()

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's transports are not subclasses
        with contextlib.suppress(OSError):
            transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(exc)
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(exc or ConnectionResetError("connection closed by the server"))

    def _fail(self, exc: Exception) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc)

    # httptools callbacks
    def on_message_begin(self) -> None:
        self.body_bytes = 0
        self.first_body_at = 0.0
        self.tail = b""
        self.seen_end = False
        self.body.clear()

    def on_body(self, body: bytes) -> None:
        if not self.first_body_at:
            self.first_body_at = time.perf_counter()
        self.body_bytes += len(body)
        joined = self.tail + body
        if self.end_marker and not self.seen_end:
            self.seen_end = self.end_marker in joined  # the tail's 32 bytes catch a marker split across chunks
        self.tail = joined[-32:]
        if self._keep_body:
            self.body += body

    def on_message_complete(self) -> None:
        self.status = self._parser.get_status_code()
        self.keep_alive = self._parser.should_keep_alive()
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


def build_request(
    base_url: str, stream: bool, api_key: str, question: str | None = None, api: str = "chat", body: bytes | None = None
) -> tuple[str, int, bytes]:
    """(host, port, the raw request): the benchmark's request in ``api``'s format (chat completion, Responses or
    Anthropic Messages), with ``question`` as its user message. Messages carry the key in ``x-api-key``, as
    Anthropic's clients do; memproxy takes the same user from it as from the bearer token."""
    parts = urlsplit(base_url)
    assert parts.hostname is not None and parts.port is not None
    path, template, _ = APIS[api]
    if body is None:  # else the caller's own body, sent as it is (bench/payload_cost.py)
        payload = {**template, "stream": stream}
        if question is not None:
            if api == "chat":
                payload["messages"] = [template["messages"][0], {"role": "user", "content": question}]
            elif api == "responses":
                payload["input"] = [{"role": "user", "content": question}]
            else:
                payload["messages"] = [{"role": "user", "content": question}]
        body = json.dumps(payload, separators=(",", ":")).encode()
    auth = (
        f"x-api-key: {api_key}\r\nanthropic-version: 2023-06-01\r\n"
        if api == "messages"
        else f"Authorization: Bearer {api_key}\r\n"
    )
    head = (
        f"POST {parts.path.rstrip('/')}{path} HTTP/1.1\r\n"
        f"Host: {parts.hostname}:{parts.port}\r\n"
        "User-Agent: memproxy-bench/1\r\n"
        "Accept: application/json, text/event-stream\r\n"
        "Content-Type: application/json\r\n"
        f"{auth}"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    return parts.hostname, parts.port, head.encode() + body
