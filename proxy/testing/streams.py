"""Streaming plumbing: SSE bodies that can be slowed down or cut off on cue, and a count of clients that left early,
so tests can script the upstream failures the proxy must survive."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from .replies import Reply

if TYPE_CHECKING:
    from .core import FakeCore


class AbortStream(Exception):
    """Raised inside a stream to make uvicorn drop the connection mid-body (scripted upstream failure)."""


class _QuietAborts(logging.Filter):
    """Keeps uvicorn from logging a traceback for the deliberate `AbortStream` failures."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, BaseExceptionGroup):
            return exc.subgroup(AbortStream) is None
        return not isinstance(exc, AbortStream)


def quiet_deliberate_aborts() -> None:
    """Installs the filter once on uvicorn's error logger, so scripted aborts do not look like crashes."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietAborts) for f in logger.filters):
        logger.addFilter(_QuietAborts())


class FakeStream(StreamingResponse):
    """A StreamingResponse that tells the fake when its client went away before the stream finished."""

    def __init__(self, fake: FakeCore, events: list[bytes], reply: Reply, headers: dict[str, str]) -> None:
        super().__init__(_iterate(events, reply), media_type="text/event-stream", headers=headers)
        self._fake = fake
        self._delayed = reply.chunk_delay_s > 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._delayed:
            await super().__call__(scope, receive, send)  # watches for the client leaving between events
        else:
            await self.stream_response(send)  # nothing to wait on, so skip the watcher: the benchmark's hot path

    async def stream_response(self, send: Send) -> None:
        finished = False
        try:
            await super().stream_response(send)
            finished = True
        except AbortStream:
            finished = True
            raise
        finally:
            if not finished:  # cancelled on disconnect (ASGI 2.3) or failed to send (ASGI 2.4)
                self._fake.cancelled_streams += 1
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                await aclose()


async def _iterate(events: list[bytes], reply: Reply) -> AsyncIterator[bytes]:
    for i, event in enumerate(events):
        if reply.fail_after_events is not None and i >= reply.fail_after_events:
            raise AbortStream(f"scripted abort after {i} events")
        if i and reply.chunk_delay_s:
            await asyncio.sleep(reply.chunk_delay_s)
        yield event


async def client_left_during(request: Request, seconds: float) -> bool:
    """Sleeps, but returns True early if the client disconnects (uvicorn sends http.disconnect)."""

    async def disconnected() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(disconnected())
    try:
        await asyncio.wait_for(asyncio.shield(watcher), timeout=seconds)
    except TimeoutError:
        return False
    finally:
        watcher.cancel()
    return True
