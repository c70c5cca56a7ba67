"""The load generator: ``concurrency`` workers sending one case's requests to one server, and what they saw."""

from __future__ import annotations

import asyncio
import gc
import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httptools

from .cases import APIS, QUESTIONS, Case
from .connection import HttpConnection, build_request
from .servers import Server

# Numbers the questions over the whole run, not per load: numbered from 1 again for every round and case, the same
# questions came back, and memproxy took each for a retry of a conversation it had seen (its block frozen, nothing
# ranked) from the second load on.
_SERIALS = itertools.count(1)


@dataclass
class RunStats:
    n_ok: int
    errors: int
    wall_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    rps: float
    ttfb_p50_ms: float | None
    gen_cpu_pct: float  # the load generator's own CPU time, in % of one core
    target_cpu_ms_per_req: float  # the target process (the proxy, or for direct the upstream)
    upstream_cpu_ms_per_req: float
    error_samples: list[str]
    latencies_ms: list[float] = field(repr=False)


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


async def run_load(
    target: Server,
    case: Case,
    n_requests: int,
    *,
    timeout_s: float,
    max_seconds: float,
    upstream: Server,
    body: Callable[[str], bytes] | None = None,
) -> RunStats:
    """Send ``n_requests`` (fewer if ``max_seconds`` runs out) with ``case.concurrency`` workers.

    Every request of the run carries a new user message (a question from the retrieval dataset and a serial number
    over the whole run), so each is a new conversation's first request to memproxy: it ranks its memories and
    renders a block for every one, the costliest request a conversation makes. ``body``: the request body for a
    question, instead of the case's own (bench/payload_cost.py sends memproxy's upstream requests).
    """
    host, port, _ = build_request(target.base_url, case.stream, target.client_key, api=case.api)
    end_marker = APIS[case.api][2] if case.stream and case.api != "chat" else b""
    latencies: list[float] = []
    ttfbs: list[float] = []
    error_samples: list[str] = []
    errors = 0
    issued = 0

    def note_error(message: str) -> None:
        nonlocal errors
        errors += 1
        if len(error_samples) < 5:
            error_samples.append(message)

    conns: list[HttpConnection | None] = []
    for _ in range(case.concurrency):
        try:
            conns.append(await HttpConnection.open(host, port, timeout_s=5.0))
        except (OSError, TimeoutError) as exc:
            conns.append(None)
            note_error(f"connect: {exc!r}")
    deadline = time.perf_counter() + max_seconds

    async def worker(conn: HttpConnection | None) -> None:
        nonlocal issued
        try:
            while issued < n_requests and time.perf_counter() < deadline:
                issued += 1
                if conn is None or conn.closed:
                    try:
                        conn = await HttpConnection.open(host, port, timeout_s=5.0)
                    except (OSError, TimeoutError) as exc:
                        conn = None
                        note_error(f"connect: {exc!r}")
                        await asyncio.sleep(0.05)
                        continue
                serial = next(_SERIALS)
                question = f"{QUESTIONS[serial % len(QUESTIONS)]} (#{serial})"
                own = body(question) if body is not None else None
                data = build_request(target.base_url, case.stream, target.client_key, question, case.api, own)[2]
                started = time.perf_counter()
                try:
                    async with asyncio.timeout(timeout_s):
                        await conn.request(data, end_marker)
                except (OSError, TimeoutError, httptools.HttpParserError) as exc:
                    note_error(f"request: {exc!r}")
                    conn.close()
                    conn = None
                    continue
                finished = time.perf_counter()
                if conn.status != 200:
                    note_error(f"HTTP {conn.status}")
                elif conn.body_bytes == 0:
                    note_error("HTTP 200 with an empty body")
                elif case.stream and case.api == "chat" and not conn.tail.rstrip().endswith(b"data: [DONE]"):
                    note_error(f"stream did not end with data: [DONE]: ...{conn.tail!r}")
                elif end_marker and not conn.seen_end:
                    note_error(f"stream has no {end_marker.strip().decode()!r}: ...{conn.tail!r}")
                else:
                    latencies.append((finished - started) * 1000)
                    if case.stream:
                        ttfbs.append((conn.first_body_at - started) * 1000)
                if not conn.keep_alive:
                    conn.close()
                    conn = None
        finally:
            if conn is not None:
                conn.close()

    gc.collect()
    gc.disable()
    target_cpu0, upstream_cpu0 = target.cpu_seconds(), upstream.cpu_seconds()
    cpu0, started = time.process_time(), time.perf_counter()
    try:
        await asyncio.gather(*(worker(conn) for conn in conns))
    finally:
        gc.enable()
    wall = time.perf_counter() - started
    gen_cpu = time.process_time() - cpu0
    target_cpu, upstream_cpu = target.cpu_seconds() - target_cpu0, upstream.cpu_seconds() - upstream_cpu0
    latencies.sort()
    ttfbs.sort()
    n_ok = len(latencies)
    per_req = max(n_ok + errors, 1)
    return RunStats(
        n_ok=n_ok,
        errors=errors,
        wall_s=wall,
        p50_ms=percentile(latencies, 0.50),
        p90_ms=percentile(latencies, 0.90),
        p99_ms=percentile(latencies, 0.99),
        max_ms=latencies[-1] if latencies else float("nan"),
        rps=n_ok / wall if wall > 0 else 0.0,
        ttfb_p50_ms=percentile(ttfbs, 0.50) if case.stream else None,
        gen_cpu_pct=100 * gen_cpu / wall if wall > 0 else 0.0,
        target_cpu_ms_per_req=1000 * target_cpu / per_req,
        upstream_cpu_ms_per_req=1000 * upstream_cpu / per_req,
        error_samples=error_samples,
        latencies_ms=latencies,
    )


def summarize(runs: list[RunStats]) -> dict[str, Any]:
    """Medians across rounds, plus percentiles over all rounds' requests pooled."""

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    pooled = sorted(lat for run in runs for lat in run.latencies_ms)
    ttfb = [run.ttfb_p50_ms for run in runs if run.ttfb_p50_ms is not None]
    return {
        "p50_ms": med([r.p50_ms for r in runs if r.n_ok]),
        "p99_ms": med([r.p99_ms for r in runs if r.n_ok]),
        "rps": med([r.rps for r in runs]),
        "ttfb_p50_ms": med(ttfb) if ttfb else None,
        "gen_cpu_pct": med([r.gen_cpu_pct for r in runs]),
        "target_cpu_ms_per_req": med([r.target_cpu_ms_per_req for r in runs]),
        "upstream_cpu_ms_per_req": med([r.upstream_cpu_ms_per_req for r in runs]),
        "requests_ok": sum(r.n_ok for r in runs),
        "errors": sum(r.errors for r in runs),
        "error_samples": [sample for r in runs for sample in r.error_samples][:5],
        "pooled": {
            "p50_ms": percentile(pooled, 0.5),
            "p90_ms": percentile(pooled, 0.9),
            "p99_ms": percentile(pooled, 0.99),
            "max_ms": pooled[-1] if pooled else float("nan"),
        },
    }
