"""Moving bytes between the client and the upstream: bodies in, responses out, disconnects watched.

When the client goes away (ASGI spec 2.3: uvicorn says so only through ``receive``), one
:class:`Departure` per request cancels it: during the wait for the upstream (:func:`unless_disconnected`,
COMPAT J1, J3) and then during the stream it relays (:class:`EventStream`). Starlette's
``StreamingResponse`` does the same for bodies passed through untouched. Upstream responses are always
closed, so an abandoned request stops costing tokens.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Protocol, TypeVar

import anyio
import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from ..errors import ProxyError, RequestTooLarge
from ..logs import redact
from .headers import STREAM_HEADERS, RawHeaders, relayed_response_headers
from .sse import MAX_EVENT_BYTES, Comment, Event, SSEDecoder, StreamProtocolError
from .upstream import once_sent, translate_transport_error

log = logging.getLogger("proxy.relay")
T = TypeVar("T")
KEEPALIVE_S = 10.0  # an SSE comment this often while the proxy works between upstream calls (COMPAT E4)
KEEPALIVE = b": keep-alive\n\n"
EventBatches = AsyncIterator[list[Event | Comment]]


class ClientGone(Exception):
    """The client disconnected before the response started."""


async def read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestTooLarge(f"request body of {declared} bytes is over the limit of {limit} bytes")
    parts: list[bytes] = []
    size = 0
    async for part in request.stream():
        size += len(part)
        if size > limit:
            raise RequestTooLarge(f"request body is over the limit of {limit} bytes")
        parts.append(part)
    return b"".join(parts)


class Departure:
    """The client's disconnect, watched by one task for as long as the request runs: the wait for the upstream and
    the stream after it share it. When the client leaves, the request's task is cancelled (COMPAT J1), unless
    ``settled`` says nothing is left to stop.

    Only for requests whose body has been read: the watcher consumes ASGI messages.
    """

    __slots__ = ("gone", "settled", "_task", "_watcher", "_receive")

    def __init__(self, receive: Receive) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._task = task
        self.gone = False
        self.settled = False
        self._watcher: asyncio.Future[None] | None = None
        # The watcher starts while the upstream works: a disconnect is only noticed at a wait anyway.
        self._receive: Receive | None = receive
        once_sent(self._start)

    def _start(self) -> None:
        receive, self._receive = self._receive, None
        if receive is not None:  # else stopped before it started
            self._watcher = asyncio.ensure_future(self._watch(receive))

    async def _watch(self, receive: Receive) -> None:
        await _disconnected(receive)
        if not self.settled:
            self.gone = True
            self._task.cancel()

    def left(self) -> bool:
        """Whether a ``CancelledError`` just met was the client leaving; that cancel is then taken back."""
        return self.gone and self._task.uncancel() == 0

    def stop(self) -> None:
        self._receive = None
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            # Not kept: the cancelled watcher's traceback holds its frame, the frame this object, and a reference
            # back would make a cycle only the garbage collector can free, a few dozen objects per request.
            watcher.cancel()


async def unless_disconnected(receive: Receive, work: Awaitable[T]) -> T:
    """Await ``work`` unless the client disconnects first; then cancel it and raise :class:`ClientGone`.

    An :class:`EventStream` it returns goes on watching with the same task.
    """
    departure = Departure(receive)
    try:
        result = await work
    except asyncio.CancelledError:
        departure.stop()
        if departure.left():
            raise ClientGone from None
        raise
    except BaseException:
        departure.stop()
        raise
    if departure.gone:  # the client left just as the work finished: its cancel is pending, and nobody wants the answer
        departure.stop()
        departure.left()
        raise ClientGone
    if isinstance(result, EventStream) and result.departure is None:
        result.departure = departure
    else:
        departure.stop()
    return result


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def close_quietly(response: httpx.Response, *, shielded: bool = True) -> None:
    """Close an upstream response, never raising. ``shielded`` from anyio's cancellation, which Starlette's
    ``StreamingResponse`` delivers again at every await until the task leaves its scope. The relay's own responses
    (:class:`EventStream`, :func:`unless_disconnected`) are cancelled natively and once, so their close runs to its
    end unshielded: the shield's cancel scope cost more than the close itself."""
    if not shielded:
        await _close(response)
        return
    with anyio.CancelScope(shield=True):
        await _close(response)


async def _close(response: httpx.Response) -> None:
    try:
        await response.aclose()
    except Exception:  # noqa: BLE001 - closing a broken connection must not mask the real outcome
        log.debug("closing the upstream response failed", exc_info=True)


Before = Callable[[], Awaitable[None]]  # what an answer waits for, done while the upstream worked on the request


async def answered(sending: Awaitable[httpx.Response], before: Before | None) -> httpx.Response:
    """The upstream's response once ``before`` is done too; closed when that wait is cancelled (the client left) or
    fails, as the relay would have closed it."""
    response = await sending
    if before is not None:
        try:
            await before()
        except BaseException:
            await close_quietly(response, shielded=False)
            raise
    return response


def buffered_response(status: int, headers: RawHeaders, body: bytes) -> Response:
    response = Response(body, status_code=status)
    response.raw_headers = [*headers, (b"content-length", str(len(body)).encode())]
    return response


SNIFFED_BYTES = 8 * 1024


def streamed_passthrough(
    upstream: httpx.Response, *, first: Callable[[bytes], None] | None = None
) -> StreamingResponse:
    """Relay any response byte for byte, as it arrives. ``first``: called with the opening bytes of a successful
    answer (up to ``SNIFFED_BYTES``, once they have gone to the client), to learn what it made."""

    async def body() -> AsyncIterator[bytes]:
        opening = b"" if first is not None and upstream.status_code < 400 else None
        try:
            async for chunk in upstream.aiter_bytes():
                yield chunk
                if opening is not None:
                    opening += chunk[: SNIFFED_BYTES - len(opening)]
                    if len(opening) >= SNIFFED_BYTES:
                        assert first is not None
                        first(opening)
                        opening = None
            if opening is not None:
                assert first is not None
                first(opening)
        except (httpx.TransportError, TimeoutError) as exc:
            log.warning("upstream failed mid-body: %s", redact(str(translate_transport_error(exc))))
        finally:
            await close_quietly(upstream)

    response = StreamingResponse(body(), status_code=upstream.status_code)
    response.raw_headers = relayed_response_headers(upstream.headers.raw)
    return response


@dataclass(frozen=True, slots=True)
class Continue:
    """The response goes on with another upstream call's events."""

    batches: EventBatches
    close: Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Finish:
    """The response ends: ``tail`` (a held-back finish chunk), then usage and ``[DONE]``."""

    tail: bytes = b""


@dataclass(frozen=True, slots=True)
class Fail:
    """The response ends with this error event."""

    event: bytes


class StreamSplitter(Protocol):
    """A wire format's stream editor: what to relay of each upstream event, and how a stream ends."""

    @property
    def ended(self) -> bool:
        """The upstream said the stream is over (or failed)."""
        ...

    @property
    def failed(self) -> bool: ...

    @property
    def complete(self) -> bool:
        """Everything the upstream started has finished, so a close without an end marker is still a success."""
        ...

    def push(self, data: bytes) -> bytes:
        """The bytes to relay for one upstream event's data (possibly nothing)."""
        ...

    def finish(self) -> bytes:
        """The end of a successful stream."""
        ...

    def error_event(
        self, message: str, *, code: str | None = "upstream_stream_error", type: str = "server_error"
    ) -> bytes:
        """The one event that ends a failed stream, in the format's own error shape."""
        ...


# Called when an upstream call has ended cleanly: None to end the response, else what to do next (the tool loop).
AfterHop = Callable[[], Awaitable[Continue | Finish | Fail] | None]


def stream_response(
    batches: EventBatches,
    normaliser: StreamSplitter,
    headers: RawHeaders,
    close: Callable[[], Awaitable[None]],
    after: AfterHop | None = None,
    ended: Callable[[], None] | None = None,
) -> EventStream:
    """``ended`` is called once the stream is over, however it ended (the client gone too)."""
    response = EventStream(partial(relay_events, batches, normaliser, close, after, ended))
    response.raw_headers = [*(header for header in headers if header[0] != b"content-type"), *STREAM_HEADERS]
    return response


Write = Callable[[bytes, bool], Awaitable[None]]  # a chunk of the body, and whether it is the last


class EventStream(Response):
    """A streamed body written by ``relay(write)`` as it comes, the client's disconnect ending it (COMPAT J1).

    Starlette's ``StreamingResponse`` does the same with an anyio task group and a second task per response, and one
    ASGI message more (the empty last one, a write of its own); this goes on with the :class:`Departure` that watched
    the wait for the upstream, and sends the stream's end with its last events."""

    def __init__(self, relay: Callable[[Write], Awaitable[None]], status_code: int = 200) -> None:
        self.relay = relay
        self.status_code = status_code
        self.background = None
        self.raw_headers: RawHeaders = []
        self.departure: Departure | None = None  # the watch begun while the upstream was awaited, if one was

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        departure = self.departure or Departure(receive)

        async def write(chunk: bytes, last: bool) -> None:
            if last:
                departure.settled = True  # from here on a disconnect changes nothing: the upstream is closed anyway
            await send({"type": "http.response.body", "body": chunk, "more_body": not last})

        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            await self.relay(write)
        except asyncio.CancelledError:
            if departure.left():
                return  # the client left: the relay closed the upstream on its way out
            raise
        finally:
            departure.stop()


async def relay_events(
    batches: EventBatches,
    normaliser: StreamSplitter,
    close: Callable[[], Awaitable[None]],
    after: AfterHop | None,
    ended: Callable[[], None] | None,
    write: Write,
) -> None:
    """Normalise and forward each batch of events as it arrives; end with ``[DONE]`` or one error event.

    With ``after``, an upstream call that ends may be followed by another, relayed into the same response;
    the client gets SSE comments while it waits (COMPAT E4). Each read from the upstream is one write to the
    client, and the stream's end goes out with its last events.
    """
    closers = [close]
    try:
        await write(await _relay(batches, normaliser, closers, after, write), True)
    finally:
        for closer in closers:
            await closer()
        if ended is not None:
            ended()


async def _relay(
    batches: EventBatches,
    normaliser: StreamSplitter,
    closers: list[Callable[[], Awaitable[None]]],
    after: AfterHop | None,
    write: Write,
) -> bytes:
    """Everything but the stream's last write, which it returns."""
    while True:
        tail = b""
        try:
            async for batch in batches:
                out = b"".join(
                    normaliser.push(item.data) if isinstance(item, Event) else b":" + item.text + b"\n\n"
                    for item in batch
                    if not normaliser.ended
                )
                if normaliser.ended:
                    tail = out
                    break
                if out:
                    await write(out, False)
        except StreamProtocolError as exc:
            return normaliser.error_event(str(exc))
        except (httpx.TransportError, TimeoutError) as exc:
            log.warning("upstream stream failed: %s", redact(str(exc)))
            return normaliser.error_event(f"the upstream stream failed: {translate_transport_error(exc).message}")
        except Exception as exc:  # noqa: BLE001 - the stream has started: an error event is all we can send
            log.warning("stream failed: %s", redact(str(exc)))
            return normaliser.error_event(f"the stream failed: {getattr(exc, 'message', exc)}")
        if normaliser.failed:
            return tail
        # The upstream closed without [DONE]: fine if every choice finished, a failure if not.
        if not normaliser.ended and not normaliser.complete:
            return tail + normaliser.error_event("the upstream closed the stream before it finished")
        step = after() if after is not None else None
        if step is None:
            return tail + normaliser.finish()  # [DONE] in the same write as the last batch
        if tail:
            await write(tail, False)
        outcome = None
        async for comment in _waiting(step, normaliser):
            if isinstance(comment, bytes):
                await write(comment, False)
            else:
                outcome = comment
        if isinstance(outcome, Fail):
            return outcome.event
        if isinstance(outcome, Finish):
            return outcome.tail + normaliser.finish()
        assert isinstance(outcome, Continue)
        batches = outcome.batches
        closers.append(outcome.close)


async def _waiting(
    step: Awaitable[Continue | Finish | Fail], splitter: StreamSplitter
) -> AsyncIterator[bytes | Continue | Finish | Fail]:
    """Await ``step``, yielding a keep-alive comment every ``KEEPALIVE_S``; then its outcome."""
    task = asyncio.ensure_future(step)
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=KEEPALIVE_S)
            if not task.done():
                yield KEEPALIVE
        try:
            yield task.result()
        except ProxyError as exc:
            log.warning("tool loop failed: %s", redact(exc.message))
            yield Fail(splitter.error_event(exc.message, code=exc.code, type=exc.type))
        except Exception as exc:  # noqa: BLE001 - the stream has started: an error event is all we can send
            log.exception("tool loop failed")
            yield Fail(splitter.error_event(f"the stream failed: {type(exc).__name__}"))
    finally:
        if not task.done():
            task.cancel()


def sse_batches(upstream: httpx.Response, max_event_bytes: int = MAX_EVENT_BYTES) -> EventBatches:
    """The upstream's events as they arrive; an event over ``max_event_bytes`` raises :class:`StreamProtocolError`,
    which :func:`relay_events` turns into the stream's error event."""
    return _SSEBatches(_body(upstream), SSEDecoder(max_event_bytes))


class _SSEBatches:
    """Each read's whole events. An iterator object, not an async generator: the relay stops at a stream's last
    event, and an unfinished async generator costs a task and a loop wake-up to finalize (see ``UpstreamBody``)."""

    def __init__(self, chunks: AsyncIterator[bytes], decoder: SSEDecoder) -> None:
        self._chunks = chunks
        self._decoder = decoder
        self._done = False

    def __aiter__(self) -> _SSEBatches:
        return self

    async def __anext__(self) -> list[Event | Comment]:
        while not self._done:
            try:
                raw = await anext(self._chunks)
            except StopAsyncIteration:
                self._done = True
                tail = self._decoder.flush()
                if tail:
                    return tail
                break
            items = self._decoder.feed(raw)
            if items:
                return items
        raise StopAsyncIteration


def _body(upstream: httpx.Response) -> AsyncIterator[bytes]:
    """The body as it arrives: straight from the transport, unless it is compressed (httpx decodes it then)."""
    stream = upstream.stream
    if upstream.headers.get("content-encoding", "identity") == "identity" and isinstance(stream, httpx.AsyncByteStream):
        return stream.__aiter__()
    return upstream.aiter_bytes()
