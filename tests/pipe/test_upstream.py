"""The pooled upstream client against a real socket: a connection the upstream closed as the proxy took it from the
pool is not the upstream failing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from proxy.errors import UpstreamUnreachable
from proxy.pipe.upstream import Upstream

pytestmark = pytest.mark.anyio
ANSWER = b'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}'


async def serve() -> tuple[asyncio.Server, list[bytes]]:
    """An upstream that answers every request on a connection and counts what reached it."""
    seen: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                sized = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
                seen.append(head + await reader.readexactly(int(sized[0].split(b":")[1]) if sized else 0))
                writer.write(ANSWER)
                await writer.drain()
        except asyncio.IncompleteReadError:  # the client closed the connection
            writer.close()

    return await asyncio.start_server(answer, "127.0.0.1", 0), seen


def closing_first(upstream: Upstream) -> None:
    """The first request finds its pooled connection closing, as when the upstream's keep-alive ran out."""
    session = upstream._open()
    request = session.request
    tries = {"n": 0}

    async def flaky(*args: Any, **kwargs: Any) -> aiohttp.ClientResponse:
        tries["n"] += 1
        if tries["n"] == 1:
            raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")
        return await request(*args, **kwargs)

    session.request = flaky  # type: ignore[method-assign,assignment]


async def test_a_request_on_a_connection_closing_under_it_goes_once_more_and_is_answered() -> None:
    server, seen = await serve()
    port = server.sockets[0].getsockname()[1]
    upstream = Upstream(f"http://127.0.0.1:{port}/v1", timeout_s=10)
    closing_first(upstream)
    try:
        response = await upstream.send("POST", "/v1/chat/completions", headers=[], content=b'{"model":"m"}')
        assert response.status_code == 200 and await response.aread() == b'{"ok":true}'
        assert len(seen) == 1 and seen[0].endswith(b'{"model":"m"}')
    finally:
        await upstream.aclose()
        server.close()


async def test_a_streamed_body_is_not_sent_twice() -> None:
    server, seen = await serve()
    port = server.sockets[0].getsockname()[1]
    upstream = Upstream(f"http://127.0.0.1:{port}/v1", timeout_s=10)
    closing_first(upstream)

    async def body() -> AsyncIterator[bytes]:
        yield b'{"model":"m"}'

    try:
        with pytest.raises(UpstreamUnreachable, match="closing transport"):
            await upstream.send("POST", "/v1/chat/completions", headers=[], content=body())
        assert seen == []
    finally:
        await upstream.aclose()
        server.close()
