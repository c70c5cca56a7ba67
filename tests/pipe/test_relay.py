"""The streamed response: what reaches the client's socket, and what happens when the client leaves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from proxy.dialects.chat_stream import ChunkNormaliser
from proxy.pipe.relay import EventBatches, answered, stream_response
from proxy.pipe.sse import Event

pytestmark = pytest.mark.anyio

CHUNK = b'{"id":"c-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[%s]}'
TEXT = CHUNK % b'{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}'
STOP = CHUNK % b'{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}'


class Upstream:
    """An upstream stream that sends ``batches``, then waits (for ever, unless ``more`` are given)."""

    def __init__(self, *batches: list[bytes], hang: bool = False) -> None:
        self.batches = batches
        self.hang = hang
        self.closed = False

    async def events(self) -> EventBatches:
        for batch in self.batches:
            yield [Event(data) for data in batch]
        if self.hang:
            await asyncio.Event().wait()

    async def close(self) -> None:
        self.closed = True


async def serve(response: Any, receive: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await response({"type": "http", "asgi": {"spec_version": "2.3"}}, receive, send)
    return sent


async def never() -> AsyncIterator[dict[str, Any]]:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def test_the_streams_end_goes_out_with_its_last_events_in_one_message() -> None:
    upstream = Upstream([TEXT], [STOP, b"[DONE]"])
    ended: list[bool] = []
    response = stream_response(
        upstream.events(), ChunkNormaliser(include_usage=False), [], upstream.close, None, lambda: ended.append(True)
    )
    sent = await serve(response, never)
    bodies = [message for message in sent if message["type"] == "http.response.body"]
    assert [message["more_body"] for message in bodies] == [True, False]
    assert bodies[-1]["body"] == b"data: " + STOP + b"\n\ndata: [DONE]\n\n"
    assert upstream.closed and ended == [True]


async def test_a_client_leaving_mid_stream_closes_the_upstream_and_ends_the_answer() -> None:
    upstream = Upstream([TEXT], hang=True)
    ended: list[bool] = []
    response = stream_response(
        upstream.events(), ChunkNormaliser(include_usage=False), [], upstream.close, None, lambda: ended.append(True)
    )
    relayed = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await relayed.wait()  # the client reads the first events, then leaves
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message.get("body"):
            relayed.set()

    await asyncio.wait_for(response({"type": "http"}, receive, send), timeout=60)
    assert upstream.closed and ended == [True]


class Watched(httpx.AsyncByteStream):
    """An upstream body that notes its close."""

    def __init__(self) -> None:
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"{}"

    async def aclose(self) -> None:
        self.closed = True


async def sent_upstream(body: Watched) -> httpx.Response:
    return httpx.Response(200, stream=body)


async def test_an_answer_waiting_on_work_of_its_own_closes_the_upstream_when_the_client_leaves() -> None:
    body, started = Watched(), asyncio.Event()

    async def before() -> None:  # the session's state, still being written when the client goes
        started.set()
        await asyncio.Event().wait()

    waiting = asyncio.ensure_future(answered(sent_upstream(body), before))
    await started.wait()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert body.closed


async def test_an_answer_waits_for_the_work_before_it_is_relayed() -> None:
    body, done = Watched(), asyncio.Event()

    async def before() -> None:
        done.set()

    response = await answered(sent_upstream(body), before)
    assert done.is_set() and response.status_code == 200 and not body.closed
