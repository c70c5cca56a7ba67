"""One upstream call of a request, whole or streamed: to the OpenAI-compatible upstream or through litellm.

The tool loop makes several per request; these are what it calls, whatever the wire format.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

import httpx
import orjson

from ..telemetry.exchange import answer_read, upstream_answered, upstream_sent
from .headers import RawHeaders, relayed_response_headers
from .providers import LiteLLMRoute
from .relay import Before, EventBatches, answered, close_quietly, sse_batches
from .sse import MAX_EVENT_BYTES, Event
from .upstream import Upstream

JSON_HEADERS: RawHeaders = [(b"content-type", b"application/json")]


@dataclass(slots=True)
class Answer:
    """An upstream call's whole answer: a completion, an error, or anything that is not a stream."""

    status: int
    headers: RawHeaders
    body: bytes


@dataclass(slots=True)
class Stream:
    headers: RawHeaders
    batches: EventBatches
    close: Callable[[], Awaitable[None]]


class Hops(Protocol):
    async def answer(self, payload: dict[str, Any], body: bytes | None = None) -> Answer: ...

    async def stream(self, payload: dict[str, Any], body: bytes | None = None) -> Stream | Answer: ...


@dataclass(slots=True)
class UpstreamHops:
    """Calls to the OpenAI-compatible upstream; ``body``, when given, is sent as it is (the client's own bytes).
    ``before``: what the first call's answer waits for once the upstream has it (:func:`~.relay.answered`)."""

    upstream: Upstream
    path: str
    query: bytes
    headers: RawHeaders
    max_event_bytes: int = MAX_EVENT_BYTES  # upstream.max_event_bytes
    before: Before | None = None

    async def answer(self, payload: dict[str, Any], body: bytes | None = None) -> Answer:
        response = await self._send(payload, body)
        try:
            content = await response.aread()
        finally:
            await close_quietly(response, shielded=False)
        answer_read(content)
        return Answer(response.status_code, relayed_response_headers(response.headers.raw), content)

    async def stream(self, payload: dict[str, Any], body: bytes | None = None) -> Stream | Answer:
        response = await self._send(payload, body)
        headers = relayed_response_headers(response.headers.raw)
        if response.status_code >= 400 or not _is_event_stream(response):
            try:
                content = await response.aread()
            finally:
                await close_quietly(response, shielded=False)
            answer_read(content)
            return Answer(response.status_code, headers, content)
        close = partial(close_quietly, response, shielded=False)  # cancelled natively, once: see close_quietly
        return Stream(headers, sse_batches(response, self.max_event_bytes), close)

    async def _send(self, payload: dict[str, Any], body: bytes | None) -> httpx.Response:
        content = body if body is not None else orjson.dumps(payload)
        sending = self.upstream.send("POST", self.path, query=self.query, headers=self.headers, content=content)
        if self.before is None:
            return await sending
        before, self.before = self.before, None
        return await answered(sending, before)


@dataclass(slots=True)
class LiteLLMHops:
    """Calls through litellm (non-OpenAI providers); its errors are raised as ours."""

    route: LiteLLMRoute
    api_key: str | None
    before: Before | None = None  # as UpstreamHops'

    async def answer(self, payload: dict[str, Any], body: bytes | None = None) -> Answer:
        exchange = upstream_sent()
        answer = Answer(200, list(JSON_HEADERS), await self.route.complete(payload, self.api_key))
        upstream_answered(exchange, 200, None)
        answer_read(answer.body)
        before, self.before = self.before, None
        if before is not None:
            await before()
        return answer

    async def stream(self, payload: dict[str, Any], body: bytes | None = None) -> Stream | Answer:
        exchange = upstream_sent()
        chunks = await self.route.stream(payload, self.api_key)
        upstream_answered(exchange, 200, None)
        before, self.before = self.before, None
        if before is not None:
            try:
                await before()
            except BaseException:
                await chunks.aclose()  # type: ignore[attr-defined]
                raise

        async def batches() -> EventBatches:
            async for chunk in chunks:
                yield [Event(chunk)]

        async def close() -> None:
            await chunks.aclose()  # type: ignore[attr-defined]

        return Stream([], batches(), close)


def _is_event_stream(response: httpx.Response) -> bool:
    return response.headers.get("content-type", "").startswith("text/event-stream")
