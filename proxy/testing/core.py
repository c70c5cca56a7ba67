"""The fake's state (reply queue, seen requests, counters) and the request plumbing its OpenAI and Anthropic routes
share, kept apart from the routes so each wire format lives in its own module."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .replies import Reply, SeenRequest, loads_or_none
from .streams import client_left_during


class FakeCore:
    """The state behind `FakeUpstream`: what to answer next, what was asked, and how often."""

    def __init__(self, *, record_requests: bool = True, keep_requests: int | None = None, strict: bool = False) -> None:
        self.requests: list[SeenRequest] = []
        self.strict = strict  # refuse what strict servers refuse (proxy.testing.strict), as they do: with a 500
        self._strict_default = strict
        self.cancelled_streams = 0  # streams (or delay_s waits) whose client went away before the end
        self.base_url = ""  # set by the runner once the server listens
        self.record_requests = record_requests  # off for load tests, where the list would grow without bound
        self.keep_requests = keep_requests  # None: all of them (a test's); else the newest N (a long-running fake's)
        # What a long-running fake answers with when nothing is queued (`python -m proxy.testing --memory-hop`):
        # `POST /_fake/reset` starts a fresh one, so resetting over HTTP restores the fake as it was started.
        self.default_responder: Callable[[], Callable[[dict[str, Any]], Reply]] | None = None
        self._queue: deque[Reply] = deque()
        self._responder: Callable[[dict[str, Any]], Reply] | None = None
        self._request_n = 0
        self._completion_n = 0

    @property
    def root_url(self) -> str:
        """`base_url` without the `/v1` suffix (what litellm's anthropic provider wants as api_base)."""
        return self.base_url.removesuffix("/v1")

    def reply(self, reply: Reply | None = None, /, **fields: Any) -> Reply:
        """Queue a reply, given either as a `Reply` or as its fields; returns it."""
        if reply is not None and fields:
            raise TypeError("pass either a Reply or its fields, not both")
        queued = reply if reply is not None else Reply(**fields)
        self._queue.append(queued)
        return queued

    def respond_with(self, responder: Callable[[dict[str, Any]], Reply] | None) -> None:
        """Answer from a function of the request body whenever no reply is queued (a tiny scripted model)."""
        self._responder = responder

    @property
    def pending(self) -> int:
        """Replies queued and not answered yet."""
        return len(self._queue)

    def reset(self) -> None:
        """Forget queued replies, seen requests, counters and a strict mode set since (between tests); the responder
        goes back to `default_responder` (none for the fixture's fake)."""
        self._queue.clear()
        self._responder = self.default_responder() if self.default_responder is not None else None
        self.strict = self._strict_default
        self.requests.clear()
        self.cancelled_streams = 0
        self._request_n = 0
        self._completion_n = 0

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self._queue:
            return self._queue.popleft()
        return self._responder(body) if self._responder is not None else Reply()

    async def _record(self, request: Request) -> tuple[Any, dict[str, str]]:
        """Reads the body, records the request, and returns (parsed JSON or None, the base response headers)."""
        body = await request.body()
        parsed = loads_or_none(body)
        if self.record_requests:
            headers: dict[str, str] = {}
            for name, value in request.headers.items():
                headers[name] = f"{headers[name]}, {value}" if name in headers else value
            self.requests.append(
                SeenRequest(request.method, request.url.path, request.url.query, headers, body, parsed)
            )
            if self.keep_requests is not None and len(self.requests) > self.keep_requests:
                del self.requests[0]
        self._request_n += 1
        return parsed, {"x-request-id": f"req_{self._request_n}"}

    async def _delay(self, request: Request, reply: Reply) -> bool:
        """Sleeps `reply.delay_s`; returns False (and counts it) if the client went away meanwhile."""
        if reply.delay_s <= 0:
            return True
        if await client_left_during(request, reply.delay_s):
            self.cancelled_streams += 1
            return False
        return True


def json_response(obj: Any, status: int, headers: dict[str, str]) -> Response:
    """A JSON response serialised with orjson (the fake's hot path in the benchmark)."""
    return Response(orjson.dumps(obj), status_code=status, headers=headers, media_type="application/json")


def timed(headers: dict[str, str], started: float) -> dict[str, str]:
    """Adds OpenAI's processing-time header, which clients and the proxy may log."""
    headers["openai-processing-ms"] = str(int((time.perf_counter() - started) * 1000))
    return headers
