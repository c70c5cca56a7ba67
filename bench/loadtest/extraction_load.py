"""Extraction load for ``chat +ex``: a driver that ends sessions through memproxy, so its worker extracts episodes
while requests are measured, and memproxy's /metrics counters that say how many extractions ran meanwhile."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import time
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import httptools

from .cases import CHAT_BODY, FIRST_EXTRACTION_CASE, MODEL, QUESTIONS
from .connection import HttpConnection
from .load import percentile, run_load
from .servers import Server

EXTRACTION_USER = "bench-extraction"  # the driver's sessions and their memories stay out of the measured user's
EXTRACTION_TURNS = 3  # memproxy's default sessions.min_turns_for_extraction
FIRST_EXTRACTION_TIMEOUT_S = 120.0
DRAIN_TIMEOUT_S = 30.0


def read_metrics(server: Server) -> dict[str, float]:
    """memproxy's extraction and session counters from /metrics, keyed like ``name{label="value"}``."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://127.0.0.1:{server.port}/metrics", timeout=10) as response:
        text = response.read().decode()
    found = {}
    for line in text.splitlines():
        if line.startswith(("memproxy_extraction_", "memproxy_sessions_ended")):
            name, _, value = line.rpartition(" ")
            found[name] = float(value)
    return found


def jobs(metrics: dict[str, float], outcome: str) -> int:
    return int(metrics.get(f'memproxy_extraction_jobs_total{{outcome="{outcome}"}}', 0))


async def metrics_of(server: Server) -> dict[str, float]:
    return await asyncio.to_thread(read_metrics, server)


class ExtractionDriver:
    """Ends sessions of ``EXTRACTION_TURNS`` turns through memproxy at ``rate`` per second, so its worker runs an
    extraction for each meanwhile: three chat requests with a fresh ``X-Memory-Session``, then the session's end."""

    _serial = itertools.count(1)

    def __init__(self, server: Server, rate: float, timeout_s: float, limit: int | None = None) -> None:
        self.server = server
        self.rate = rate
        self.timeout_s = timeout_s
        self.limit = limit  # sessions to end, then stop; None: until stop()
        self.started = 0  # sessions begun
        self.queued = 0  # ended with an extraction job queued
        self.requests = 0
        self.errors = 0
        self.error_samples: list[str] = []
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._conn: HttpConnection | None = None

    def start(self) -> None:
        self._stop.clear()
        self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        """Finishes the session under way (a half-driven session would end at shutdown instead), then returns."""
        self._stop.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def _run(self) -> None:
        next_at = time.perf_counter()
        try:
            while not self._stop.is_set() and (self.limit is None or self.started < self.limit):
                await self._session()
                next_at += 1 / self.rate
                delay = next_at - time.perf_counter()
                if delay < 0:  # behind (a slow end or reply): carry on at the rate, no burst to catch up
                    next_at = time.perf_counter()
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), delay)
        finally:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _note(self, message: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(message)

    async def _send(self, path: str, session: str, payload: dict[str, Any] | None) -> tuple[int, bytes]:
        body = b"" if payload is None else json.dumps(payload, separators=(",", ":")).encode()
        head = (
            f"POST {path} HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{self.server.port}\r\n"
            "User-Agent: memproxy-bench/1\r\n"
            "Content-Type: application/json\r\n"
            f"Authorization: Bearer {self.server.client_key}\r\n"
            f"X-Memory-User: {EXTRACTION_USER}\r\n"
            f"X-Memory-Session: {session}\r\n"
            f"Content-Length: {len(body)}\r\n"
            "\r\n"
        )
        if self._conn is None or self._conn.closed:
            self._conn = await HttpConnection.open("127.0.0.1", self.server.port, timeout_s=5.0, keep_body=True)
        conn = self._conn
        self.requests += 1
        async with asyncio.timeout(self.timeout_s):
            await conn.request(head.encode() + body)
        if not conn.keep_alive:
            conn.close()
        return conn.status, bytes(conn.body)

    async def _session(self) -> None:
        n = next(self._serial)
        self.started += 1
        session = f"bench-ex-{os.getpid()}-{n}"
        messages: list[dict[str, Any]] = [CHAT_BODY["messages"][0]]
        try:
            for turn in range(EXTRACTION_TURNS):
                question = QUESTIONS[(n * EXTRACTION_TURNS + turn) % len(QUESTIONS)]
                messages.append({"role": "user", "content": question})
                payload = {"model": MODEL, "messages": messages, "max_tokens": 256}
                status, body = await self._send(
                    f"{urlsplit(self.server.base_url).path}/chat/completions", session, payload
                )
                if status != 200:
                    self._note(f"chat: HTTP {status}: {body[:200]!r}")
                    return
                messages.append({"role": "assistant", "content": json.loads(body)["choices"][0]["message"]["content"]})
            status, body = await self._send(f"/memory/sessions/{session}/end", session, None)
            if status != 200:
                self._note(f"end: HTTP {status}: {body[:200]!r}")
            elif not (json.loads(body).get("extraction") or {}).get("job"):
                self._note(f"end: no extraction job queued: {body[:200]!r}")
            else:
                self.queued += 1
        except (OSError, TimeoutError, httptools.HttpParserError, ValueError, KeyError, IndexError, TypeError) as exc:
            self._note(f"{type(exc).__name__}: {exc}")
            if self._conn is not None:
                self._conn.close()
                self._conn = None


async def first_extraction(
    args: argparse.Namespace, memproxy: Server, upstream: Server
) -> tuple[dict[str, Any], ExtractionDriver]:
    """One session ended, and `chat c=1` requests measured until its extraction is done: the first one imports
    litellm in memproxy. Returns what the requests saw meanwhile and the driver (its counts)."""
    before = jobs(await metrics_of(memproxy), "done")
    driver = ExtractionDriver(memproxy, args.extraction_rate, args.timeout, limit=1)
    latencies: list[float] = []
    errors = 0
    started = time.perf_counter()
    driver.start()
    done = before
    while time.perf_counter() - started < FIRST_EXTRACTION_TIMEOUT_S:
        stats = await run_load(
            memproxy, FIRST_EXTRACTION_CASE, 10**9, timeout_s=args.timeout, max_seconds=0.25, upstream=upstream
        )
        latencies += stats.latencies_ms
        errors += stats.errors
        metrics = await metrics_of(memproxy)
        done = jobs(metrics, "done")
        if done > before or jobs(metrics, "failed") or driver.errors:
            break
    elapsed = time.perf_counter() - started
    await driver.stop()
    latencies.sort()
    return {
        "done": done - before,
        "seconds_to_done": elapsed,
        "requests": len(latencies),
        "errors": errors,
        "p50_ms": percentile(latencies, 0.5),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": latencies[-1] if latencies else float("nan"),
    }, driver


async def drain(memproxy: Server, queued: int) -> dict[str, Any]:
    """Waits until memproxy has run every job the drivers queued, so it exits with none left."""
    started = time.perf_counter()
    while True:
        metrics = await metrics_of(memproxy)
        finished = jobs(metrics, "done") + jobs(metrics, "failed")
        if finished >= queued or time.perf_counter() - started > DRAIN_TIMEOUT_S:
            return {"queued": queued, "finished": finished, "seconds": time.perf_counter() - started}
        await asyncio.sleep(0.1)
