"""What the app calls at a request's start and end: the exchange made, then read into metrics, the access log and the
trace. Also the held-items gauge, read from the census when ``/metrics`` is scraped (never on a request's path)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

from .access import AccessLog, LineWriter
from .exchange import Exchange, request_id
from .http_metrics import HttpMetrics

if TYPE_CHECKING:
    from .tracing import Tracing

log = logging.getLogger("proxy.telemetry")
HELD_EVERY_S = 5.0  # the census is read at most this often, however often /metrics is scraped
HELD_DEADLINE_S = 2.0  # a scrape waits this long for it, else shows the last counts
PASSTHROUGH = "/{path:path}"
UNTRACED = frozenset({"/healthz", "/metrics"})  # probes and scrapes
HeldCounts = Callable[[], Awaitable[tuple[int, int]]]  # memories and episodes waiting for review, store-wide


class Telemetry:
    def __init__(
        self,
        metrics: HttpMetrics,
        access: AccessLog | None = None,
        tracing: Tracing | None = None,
        held: HeldCounts | None = None,
    ) -> None:
        self.metrics = metrics
        self.access = access if access is not None else AccessLog()
        self.tracing = tracing
        self.held = held
        self._held_at = -HELD_EVERY_S
        self._held_reading: asyncio.Future[None] | None = None

    def begin(self, scope: MutableMapping[str, Any], route: str | None, format: str) -> Exchange:
        """``route``: a model API's (known before routing); None for the others, whose route the router finds."""
        exchange = Exchange(request_id(scope["headers"]), route or "", format)
        self.metrics.in_flight += 1
        tracing = self.tracing
        if tracing is not None and scope["path"] not in UNTRACED:
            exchange.trace = tracing.begin(exchange, scope["method"], scope["path"], scope["headers"])
        return exchange

    def end(self, exchange: Exchange, scope: MutableMapping[str, Any], tail: bytes | None = None) -> None:
        """The response has ended (or failed): ``tail`` is a traced stream's last write."""
        now = perf_counter_ns()
        exchange.end_hop(now)
        metrics = self.metrics
        metrics.in_flight -= 1
        if exchange.stream:
            metrics.streams -= 1
        if not exchange.status:
            exchange.status = 500  # an exception reached the server, which answers 500
        if not exchange.route:
            self._routed(exchange, scope)
        went_up = exchange.upstream_status or exchange.upstream_error is not None
        upstream = exchange.upstream_ns if went_up else None
        total = now - exchange.started
        first_byte = (exchange.first_byte or now) - exchange.started
        metrics.record(metrics.series(exchange.route, exchange.format, exchange.stream), exchange.status, total,
                       first_byte, upstream)  # fmt: skip
        if exchange.upstream_error is not None:
            metrics.upstream_error(exchange.format, exchange.upstream_error)
        access = self.access
        if access.sink is not None:
            access.log(exchange, scope["method"], scope["path"], total, first_byte, upstream)
        trace = exchange.trace
        if trace is not None:
            user = access.user(exchange.user) if exchange.user is not None else None
            trace.end(exchange, scope["method"], user, tail)

    @staticmethod
    def _routed(exchange: Exchange, scope: MutableMapping[str, Any]) -> None:
        """A route the router matched: its template, never the path itself (clients choose paths)."""
        template = getattr(scope.get("route"), "path", None)
        if template == PASSTHROUGH:
            exchange.route = "passthrough"
            path = scope["path"]
            exchange.format = "anthropic" if path.startswith(("/v1/messages", "/messages")) else "openai"
        else:
            exchange.route = template if isinstance(template, str) and template else "unmatched"
            exchange.format = "none"

    # -- held items ------------------------------------------------------------------------------------------------

    async def refresh_held(self) -> None:
        """Reads what waits for review from the census, unless it was read in the last few seconds; a slow or failing
        store leaves the last counts (the scrape still answers)."""
        if self.held is None or time.monotonic() - self._held_at < HELD_EVERY_S:
            return
        if self._held_reading is None or self._held_reading.done():
            self._held_reading = asyncio.ensure_future(self._read_held())
        try:
            await asyncio.wait_for(asyncio.shield(self._held_reading), HELD_DEADLINE_S)
        except TimeoutError:
            log.warning("reading the held counts for /metrics took over %.0f s; showing the last ones", HELD_DEADLINE_S)

    async def _read_held(self) -> None:
        assert self.held is not None
        try:
            memories, episodes = await self.held()
        except Exception as exc:  # noqa: BLE001 - a scrape must answer even when the store does not
            log.warning("could not read the held counts for /metrics: %s", type(exc).__name__)
            return
        self.metrics.held_memories, self.metrics.held_episodes = memories, episodes
        self._held_at = time.monotonic()

    def log_to(self, writer: LineWriter) -> None:
        """Access log lines go to ``writer`` (``memproxy serve``: stdout); without one, none are made."""
        self.access.sink = writer
        self.metrics.access_dropped = lambda: writer.dropped

    def close(self) -> None:
        writer = self.access.sink
        close = getattr(writer, "close", None)
        if close is not None:
            close()
        if self.tracing is not None:
            self.tracing.shutdown()
