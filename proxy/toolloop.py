"""The tool loop: upstream calls until the model answers the client, the proxy running its memory tools between.

One chat request may take several upstream calls ("hops"). When the model calls only memory tools,
the proxy runs them, appends the turn and its results, and calls again; at ``tools.max_hops`` the
last call goes without the memory tools, so the client always gets an answer. The client sees one
response: the first call's ``id`` and ``created``, usage summed over the calls, only its own tool
calls (COMPAT E1, E7). A turn that mixes memory and client calls ends the loop: the memory calls are
run and kept (:mod:`proxy.hiddenturns`), the client gets its calls.

Upstream calls go through a :class:`Hops`: the OpenAI-compatible upstream (httpx) or litellm. An
upstream error on the first call is relayed as the upstream said it; on a later call of a stream it
becomes the stream's error event (COMPAT I1, I2).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
import orjson
from starlette.responses import Response

from .chunks import ChunkNormaliser, HopEnd, encode_event, error_event
from .errors import BadUpstreamResponse
from .headers import RawHeaders, relayed_response_headers
from .hiddenturns import HiddenTurns
from .identity import Identity
from .memory.tools import MemoryTools
from .metrics import Metrics
from .providers import LiteLLMRoute
from .relay import (
    Continue,
    EventBatches,
    Fail,
    Finish,
    buffered_response,
    chat_stream_response,
    close_quietly,
    sse_batches,
)
from .sse import Event
from .toolplan import Call, ToolPlan, add_usage, assistant_turn, split_calls, tool_result, visible_reason
from .upstream import Upstream

log = logging.getLogger("proxy.toolloop")
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
    """Calls to the OpenAI-compatible upstream; ``body``, when given, is sent as it is (the client's own bytes)."""

    upstream: Upstream
    path: str
    query: bytes
    headers: RawHeaders

    async def answer(self, payload: dict[str, Any], body: bytes | None = None) -> Answer:
        response = await self._send(payload, body)
        try:
            content = await response.aread()
        finally:
            await close_quietly(response)
        return Answer(response.status_code, relayed_response_headers(response.headers.raw), content)

    async def stream(self, payload: dict[str, Any], body: bytes | None = None) -> Stream | Answer:
        response = await self._send(payload, body)
        headers = relayed_response_headers(response.headers.raw)
        if response.status_code >= 400 or not _is_event_stream(response):
            try:
                content = await response.aread()
            finally:
                await close_quietly(response)
            return Answer(response.status_code, headers, content)
        return Stream(headers, sse_batches(response), lambda: close_quietly(response))

    async def _send(self, payload: dict[str, Any], body: bytes | None) -> httpx.Response:
        content = body if body is not None else orjson.dumps(payload)
        return await self.upstream.send("POST", self.path, query=self.query, headers=self.headers, content=content)


@dataclass(slots=True)
class LiteLLMHops:
    """Calls through litellm (non-OpenAI providers); its errors are raised as ours."""

    route: LiteLLMRoute
    api_key: str | None

    async def answer(self, payload: dict[str, Any], body: bytes | None = None) -> Answer:
        return Answer(200, list(JSON_HEADERS), await self.route.complete(payload, self.api_key))

    async def stream(self, payload: dict[str, Any], body: bytes | None = None) -> Stream | Answer:
        chunks = await self.route.stream(payload, self.api_key)

        async def batches() -> EventBatches:
            async for chunk in chunks:
                yield [Event(chunk)]

        async def close() -> None:
            await chunks.aclose()  # type: ignore[attr-defined]

        return Stream([], batches(), close)


@dataclass(slots=True)
class ToolLoop:
    """One request's loop: what it offers, whose memory it runs on, how far it may go."""

    plan: ToolPlan
    tools: MemoryTools
    hidden_turns: HiddenTurns
    caller: Identity
    max_hops: int
    metrics: Metrics
    session: str
    history: list[dict[str, Any]] = field(default_factory=list)  # the hidden turns and results so far
    hop: int = 0  # upstream calls made after the first

    async def run(self, calls: list[Call]) -> list[dict[str, Any]]:
        """Run the memory calls in order (a store then a search sees the store); one result message each."""
        return [
            tool_result(call, await self.tools.run(self.caller, self.session, call.name, call.arguments))
            for call in calls
        ]

    def keep(self, order: list[str], calls: list[Call], results: list[dict[str, Any]]) -> None:
        self.hidden_turns.keep((self.caller.user, self.caller.workspace), order, calls, results)

    def next_payload(
        self, payload: dict[str, Any], content: str | None, calls: list[Call], results: list[dict[str, Any]]
    ) -> dict[str, Any]:
        self.history += [assistant_turn(content, calls), *results]
        self.hop += 1
        self.metrics.tool_hops.inc()
        following = {**payload, "messages": [*payload["messages"], *self.history]}
        return self.plan.withdraw(following) if self.hop >= self.max_hops else following

    @property
    def offers_tools(self) -> bool:
        return self.hop < self.max_hops

    def mentioned_in(self, body: bytes) -> bool:
        """A cheap look before parsing: no memory tool's name in the body, no memory call in it."""
        return any(name.encode() in body for name in self.plan.names)


async def complete(
    hops: Hops, payload: dict[str, Any], body: bytes | None, loop: ToolLoop | None, extra: RawHeaders
) -> Response:
    """A non-streamed chat completion, through the loop when there is one."""
    first = await hops.answer(payload, body)
    if loop is None or first.status >= 400 or not loop.mentioned_in(first.body):
        return buffered_response(first.status, first.headers + extra, first.body)
    completion = _completion(first.body)
    if completion is None:
        return buffered_response(first.status, first.headers + extra, first.body)
    first_id, first_created = completion.get("id"), completion.get("created")
    usage = None
    contents: list[str] = []
    while True:
        choice = completion["choices"][0]
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        usage = add_usage(usage, completion.get("usage"))
        mine, theirs = split_calls(message, loop.plan.names)
        if isinstance(message.get("content"), str) and message["content"]:
            contents.append(message["content"])
        if not mine:
            if loop.hop == 0:
                return buffered_response(first.status, first.headers + extra, first.body)  # untouched
            break
        reason = choice.get("finish_reason")
        if not loop.offers_tools or reason == "length":
            break  # calls made without the tools on offer, or cut short: dropped, never run
        results = await loop.run(mine)
        if theirs:
            loop.keep([call.get("id") for call in message.get("tool_calls") or ()], mine, results)
            break
        answer = await hops.answer(loop.next_payload(payload, message.get("content"), mine, results))
        if answer.status >= 400:
            return buffered_response(answer.status, answer.headers + extra, answer.body)
        completion = _completion(answer.body)
        if completion is None:
            raise BadUpstreamResponse("the upstream answered with something that is not a chat completion")
    if theirs:
        message["tool_calls"] = theirs
    else:
        message.pop("tool_calls", None)
    message["content"] = "".join(contents) if contents else message.get("content")
    choice["finish_reason"] = visible_reason(choice.get("finish_reason"), len(theirs))
    completion["id"], completion["created"] = first_id, first_created
    if usage is not None:
        completion["usage"] = usage
    return buffered_response(200, first.headers + extra, orjson.dumps(completion))


async def stream(
    hops: Hops,
    payload: dict[str, Any],
    body: bytes | None,
    loop: ToolLoop | None,
    extra: RawHeaders,
    *,
    include_usage: bool,
) -> Response:
    """A streamed chat completion: every upstream call of the loop relayed into one client stream."""
    first = await hops.stream(payload, body)
    if isinstance(first, Answer):
        return buffered_response(first.status, first.headers + extra, first.body)
    normaliser = ChunkNormaliser(include_usage=include_usage, hidden=loop.plan.names if loop else frozenset())
    after = None
    if loop is not None:

        def after(normaliser: ChunkNormaliser) -> Awaitable[Continue | Finish | Fail] | None:
            end = normaliser.hop_end()
            return _after_hop(hops, payload, loop, normaliser, end) if end.hidden else None

    return chat_stream_response(first.batches, normaliser, first.headers + extra, first.close, after)


async def _after_hop(
    hops: Hops, payload: dict[str, Any], loop: ToolLoop, normaliser: ChunkNormaliser, end: HopEnd
) -> Continue | Finish | Fail:
    if not loop.offers_tools or end.reason == "length":
        return Finish(normaliser.finish_chunk(visible_reason(end.reason, end.relayed)))
    results = await loop.run(end.hidden)
    if end.relayed:
        loop.keep(end.order, end.hidden, results)
        return Finish(normaliser.finish_chunk(end.reason))
    following = await hops.stream(loop.next_payload(payload, end.content, end.hidden, results))
    if isinstance(following, Answer):
        return Fail(_error_event(following))
    normaliser.next_hop()
    return Continue(following.batches, following.close)


def _completion(body: bytes) -> dict[str, Any] | None:
    """A completion with a first choice, or None for anything else."""
    try:
        completion = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(completion, dict):
        return None
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    return completion


def _error_event(answer: Answer) -> bytes:
    """An upstream's error status, met mid-stream: its error object as the stream's last event (COMPAT I2)."""
    try:
        error = orjson.loads(answer.body).get("error")
    except (orjson.JSONDecodeError, AttributeError):
        error = None
    if not isinstance(error, dict):
        text = answer.body.decode("utf-8", "replace")[:500]
        return error_event(f"upstream answered {answer.status}: {text}", code="upstream_error")
    return encode_event(orjson.dumps({"error": error}))


def _is_event_stream(response: httpx.Response) -> bool:
    return response.headers.get("content-type", "").startswith("text/event-stream")
