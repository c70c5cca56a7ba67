"""The HTTP side of ``/metrics``: requests, latencies, upstream errors, what is in flight, what waits for review.

prometheus-client's own metric objects take a lock per update and search their buckets in Python: a histogram
observation cost about 6 us, and a request makes four. Here each series is plain counters that only the event loop's
thread updates (the one thread serving requests), exported through a collector when ``/metrics`` is read: an
observation is a ``bisect`` and two additions.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

# Seconds: a proxy's own time is a millisecond or two, a long generation minutes.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
_BOUNDS_NS = tuple(int(bound * 1e9) for bound in BUCKETS)
UPSTREAM_ERRORS = ("timeout", "unreachable", "status_5xx", "rate_limited", "stream")
MAX_SERIES = 500  # label sets past it (clients choose paths) are folded into route "other"


class Latency:
    """One histogram series, in nanoseconds until it is exported."""

    __slots__ = ("counts", "total")

    def __init__(self) -> None:
        self.counts = [0] * (len(_BOUNDS_NS) + 1)  # the last: above every bound
        self.total = 0

    def observe(self, ns: int) -> None:
        self.counts[bisect_left(_BOUNDS_NS, ns)] += 1
        self.total += ns

    def buckets(self) -> list[tuple[str, float]]:
        cumulative, out = 0, list[tuple[str, float]]()
        for bound, count in zip((*(str(b) for b in BUCKETS), "+Inf"), self.counts, strict=True):
            cumulative += count
            out.append((bound, cumulative))
        return out


class Series:
    """A route, format and kind of response (streamed or whole): its requests by status and its latencies."""

    __slots__ = ("labels", "statuses", "duration", "first_byte", "upstream", "own")

    def __init__(self, route: str, format: str, stream: bool) -> None:
        self.labels = (route, format, "true" if stream else "false")
        self.statuses: dict[int, int] = {}
        self.duration = Latency()
        self.first_byte = Latency()
        self.upstream = Latency()  # only requests that went upstream
        self.own = Latency()


class HttpMetrics(Collector):
    def __init__(self) -> None:
        self._series: dict[tuple[str, str, bool], Series] = {}
        self.in_flight = 0
        self.streams = 0
        self.upstream_errors: dict[tuple[str, str], int] = {}
        self.held_memories: int | None = None  # unknown until first read
        self.held_episodes: int | None = None
        self.access_dropped: Callable[[], int] = lambda: 0  # access log lines its writer dropped (a stalled stdout)

    def series(self, route: str, format: str, stream: bool) -> Series:
        key = (route, format, stream)
        found = self._series.get(key)
        if found is None:
            if len(self._series) >= MAX_SERIES:
                return self.series("other", format, stream)
            found = self._series[key] = Series(route, format, stream)
        return found

    def record(self, series: Series, status: int, total: int, first_byte: int, upstream: int | None) -> None:
        """One finished request: ``upstream`` None when it made no upstream call."""
        statuses = series.statuses
        statuses[status] = statuses.get(status, 0) + 1
        series.duration.observe(total)
        series.first_byte.observe(first_byte)
        if upstream is not None:
            series.upstream.observe(upstream)
            series.own.observe(total - upstream)

    def upstream_error(self, format: str, kind: str) -> None:
        key = (format, kind)
        self.upstream_errors[key] = self.upstream_errors.get(key, 0) + 1

    def collect(self) -> Iterator[Metric]:
        labels = ["route", "format", "stream"]
        requests = CounterMetricFamily(
            "memproxy_http_requests", "HTTP requests answered, by route, format and status.", labels=[*labels, "status"]
        )
        histograms = {
            "duration": HistogramMetricFamily(
                "memproxy_http_request_duration_seconds",
                "From the request's arrival to its response's last byte (a stream's end).",
                labels=labels,
            ),
            "first_byte": HistogramMetricFamily(
                "memproxy_http_time_to_first_byte_seconds",
                "From the request's arrival to the first byte of its response body (a stream's first event).",
                labels=labels,
            ),
            "upstream": HistogramMetricFamily(
                "memproxy_http_upstream_duration_seconds",
                "Time spent on the upstream, summed over a request's upstream calls: each from its sending to its "
                "whole answer (a stream's last event). Requests that went upstream only.",
                labels=labels,
            ),
            "own": HistogramMetricFamily(
                "memproxy_http_proxy_duration_seconds",
                "The proxy's own time: the request's duration less its upstream time (reading the request, identity, "
                "recall, the hidden tool calls between hops, writing the answer). Requests that went upstream only.",
                labels=labels,
            ),
        }
        for series in list(self._series.values()):
            for status, count in sorted(series.statuses.items()):
                requests.add_metric([*series.labels, str(status)], count)
            for name, family in histograms.items():
                latency: Latency = getattr(series, name)
                if any(latency.counts):
                    family.add_metric(list(series.labels), latency.buckets(), latency.total / 1e9)
        yield requests
        yield from histograms.values()
        errors = CounterMetricFamily(
            "memproxy_upstream_errors",
            "Requests that met an upstream failure, by format and kind (timeout, unreachable: no answer; status_5xx; "
            "rate_limited: a 429; stream: a stream that broke off).",
            labels=["format", "kind"],
        )
        for (format, kind), count in sorted(self.upstream_errors.items()):
            errors.add_metric([format, kind], count)
        yield errors
        yield GaugeMetricFamily("memproxy_http_requests_in_flight", "HTTP requests being answered.", self.in_flight)
        yield GaugeMetricFamily("memproxy_http_streams_in_flight", "Event streams being relayed.", self.streams)
        held = GaugeMetricFamily(
            "memproxy_held_waiting",
            "Memories and episodes waiting for a person's approval in the whole store (as last read, at most a few "
            "seconds before the scrape).",
            labels=["kind"],
        )
        if self.held_memories is not None and self.held_episodes is not None:
            held.add_metric(["memories"], self.held_memories)
            held.add_metric(["episodes"], self.held_episodes)
        yield held
        yield CounterMetricFamily(
            "memproxy_access_log_dropped",
            "Access log lines dropped because their output could not take them (a stalled stdout).",
            self.access_dropped(),
        )
