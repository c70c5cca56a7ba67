"""One HTTP request as the operator sees it: when it started, what it became, how long the upstream took.

An :class:`Exchange` is made when a request comes in and read once when its response has ended (metrics, the access
log, the trace). It is the request task's :data:`CURRENT` exchange, so the few places that know something about it
(the upstream client, the tool loop, the relay's failure paths) note it without being handed it: the request's task
and the tasks it starts share the context. Noting is a few attribute writes; nothing here allocates per chunk.
"""

from __future__ import annotations

from contextvars import ContextVar
from itertools import count
from os import urandom
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tracing import RequestTrace

MAX_REQUEST_ID = 128
_ID_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:/+=@")
# A process's request ids: a random prefix (unique across replicas and restarts) and a counter (no syscall per id).
_PREFIX = "mp-" + urandom(6).hex() + "-"
_NEXT = count(1)


class Exchange:
    """What is known of one request so far. Times are ``perf_counter_ns`` readings; 0 means "not yet"."""

    __slots__ = (
        "started",
        "request_id",
        "route",
        "format",
        "status",
        "stream",
        "stream_requested",
        "first_byte",
        "upstream_ns",
        "hop_began",
        "upstream_status",
        "upstream_error",
        "upstream_request_id",
        "user",
        "model",
        "session",
        "injected",
        "loop",
        "trace",
    )

    def __init__(self, request_id: str, route: str, format: str) -> None:
        self.started = perf_counter_ns()
        self.request_id = request_id
        self.route = route  # a route's template (/memory/memories/{id}), passthrough, or a model API's path
        self.format = format  # chat | responses | messages | openai | anthropic | none
        self.status = 0
        self.stream = False  # the response was an event stream
        self.stream_requested = False  # the client asked for one
        self.first_byte = 0
        self.upstream_ns = 0  # summed over the hops that have ended
        self.hop_began = 0  # the hop under way, if one is
        self.upstream_status = 0  # the last upstream answer's status
        self.upstream_error: str | None = None  # timeout | unreachable | status_5xx | rate_limited | stream
        self.upstream_request_id: str | None = None  # the upstream's own id for its last answer
        self.user: str | None = None
        self.model: Any = None  # as the client sent it: checked before it is shown anywhere
        self.session: str | None = None
        self.injected = 0  # memories placed in the request (block and notes)
        self.loop: Any = None  # the request's tool loop, whose hop count is read at the end
        self.trace: RequestTrace | None = None  # with tracing on

    @property
    def hops(self) -> int:
        """Hidden upstream calls made after the first (memory tool calls answered by the proxy)."""
        loop = self.loop
        return loop.hop if loop is not None else 0

    def end_hop(self, now: int = 0) -> None:
        """The upstream call under way has given its whole answer (a stream: its last event)."""
        began = self.hop_began
        if began:
            now = now or perf_counter_ns()
            self.upstream_ns += now - began
            self.hop_began = 0
            trace = self.trace
            if trace is not None:
                trace.end_hop(self.upstream_error)


CURRENT: ContextVar[Exchange | None] = ContextVar("memproxy_exchange", default=None)


def request_id(raw: list[tuple[bytes, bytes]]) -> str:
    """The client's ``X-Request-Id`` when it is a sane one (1-128 URL-safe characters), else a new one."""
    for name, value in raw:
        if name == b"x-request-id":
            if 0 < len(value) <= MAX_REQUEST_ID and _ID_CHARS.issuperset(value):
                return value.decode("ascii")
            break
    return _PREFIX + format(next(_NEXT), "x")


def sane_id(value: str | None) -> str | None:
    """An id another party chose (the upstream's request id), if it is one to show."""
    if value is None or not 0 < len(value) <= MAX_REQUEST_ID or not value.isascii():
        return None
    return value if _ID_CHARS.issuperset(value.encode()) else None


# What the upstream client, the tool loop and the relay note. Each looks the exchange up; outside a request (the
# CLI, extraction, tests calling a piece on its own) there is none and nothing happens.


def upstream_sent(server: tuple[str, int] | None = None) -> Exchange | None:
    """An upstream call to ``server`` (host, port) is going out now."""
    exchange = CURRENT.get()
    if exchange is not None:
        exchange.end_hop()
        exchange.hop_began = perf_counter_ns()
        trace = exchange.trace
        if trace is not None:
            trace.begin_hop(exchange, server)
    return exchange


def upstream_answered(exchange: Exchange | None, status: int, upstream_id: str | None) -> None:
    if exchange is None:
        return
    exchange.upstream_status = status
    if upstream_id is not None:
        exchange.upstream_request_id = sane_id(upstream_id)
    if status >= 500:
        exchange.upstream_error = "status_5xx"
    elif status == 429:
        exchange.upstream_error = "rate_limited"
    trace = exchange.trace
    if trace is not None:
        trace.hop_status(status)


def upstream_failed(kind: str) -> None:
    """The upstream could not be reached, did not answer in time, or broke off a stream it had begun."""
    exchange = CURRENT.get()
    if exchange is not None:
        exchange.upstream_error = kind
        exchange.end_hop()


def answer_read(body: bytes) -> None:
    """The upstream call under way has given its whole answer, ``body`` (traced: its id, model and usage)."""
    exchange = CURRENT.get()
    if exchange is not None:
        trace = exchange.trace
        if trace is not None:
            trace.hop_answer(body)
        exchange.end_hop()


def hop_ended() -> None:
    exchange = CURRENT.get()
    if exchange is not None:
        exchange.end_hop()
