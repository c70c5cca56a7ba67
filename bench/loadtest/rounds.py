"""The measuring itself: warm-up, the first extraction, idle CPU, then the interleaved rounds, in which every live
target runs every case once per round, starting with a different target each round so drift favours none."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass
from typing import Any

from .cases import Case
from .extraction_load import ExtractionDriver, drain, first_extraction, jobs, metrics_of
from .load import RunStats, run_load
from .paths import LOG_DIR
from .probes import fake_counters
from .servers import Server
from .targets import MEMPROXY, Target


@dataclass
class Measurements:
    """What the run measured, before any summary."""

    rounds: dict[str, dict[str, list[RunStats]]]  # by case and target name, one entry per round
    idle_cpu_pct: dict[str, float]  # by target: what it burns idle is noise for the others
    hops: dict[str, Any] | None  # what the --memory-hop fake counted while memproxy ran the hop cases
    extraction: dict[str, Any] | None  # the first extraction, memproxy's windows under load, the driver, the drain


class Measurer:
    """One target's run of one case; counts memproxy's requests in the hop cases, each of which must make a hop."""

    def __init__(self, args: argparse.Namespace, direct: Target) -> None:
        self.args = args
        self.direct = direct  # its servers are the fake upstreams, whose CPU is measured alongside
        self.hop_requests = 0

    async def __call__(
        self, target: Target, server: Server, case: Case, n_requests: int, window_s: float | None = None
    ) -> RunStats:
        """``n_requests`` (at most ``--max-seconds``' worth), or with ``window_s`` as many as that many seconds take."""
        upstream = self.direct.server_for(case)
        assert upstream is not None
        max_seconds = self.args.max_seconds
        if window_s is not None:
            n_requests, max_seconds = 10**9, window_s
        stats = await run_load(
            server, case, n_requests, timeout_s=self.args.timeout, max_seconds=max_seconds, upstream=upstream
        )
        if case.hops and target.name == MEMPROXY:
            self.hop_requests += stats.n_ok + stats.errors
        return stats


async def benchmark(args: argparse.Namespace, targets: list[Target], cases: tuple[Case, ...]) -> Measurements:
    """Warm-up, the first extraction, idle CPU, then the interleaved rounds; also what the hop fake counted while
    memproxy ran, and what the extraction driver did."""
    live = [t for t in targets if t.status == "ok"]
    if not live:
        raise SystemExit("no target is up; see the logs in " + str(LOG_DIR))
    direct = targets[0]
    hop_upstream = direct.hop_server
    assert hop_upstream is not None
    counted = fake_counters(hop_upstream) if any(t.name == MEMPROXY for t in live) else None
    memproxy = next((t.server for t in live if t.name == MEMPROXY), None)
    extracting = memproxy if any(case.extraction for case in cases) else None  # memproxy, when it gets the load
    measure = Measurer(args, direct)

    for target in live:
        for case in cases:
            server = target.server_for(case)
            if server is not None:
                await measure(target, server, case, args.warmup)

    extraction: dict[str, Any] | None = None
    drivers: list[ExtractionDriver] = []
    if extracting is not None:
        first, first_driver = await first_extraction(args, extracting, direct.server)
        drivers.append(first_driver)
        extraction = {"first": first, "windows": [], "settle_s": 1 / args.extraction_rate}
        print(
            f"first extraction done after {first['seconds_to_done']:.1f}s (litellm's import in memproxy); "
            f"chat c=1 meanwhile: p50 {first['p50_ms']:.2f} ms, p99 {first['p99_ms']:.2f} ms, "
            f"max {first['max_ms']:.1f} ms over {first['requests']} requests",
            file=sys.stderr,
        )

    idle_cpu_pct = await idle_cpu(live, 1.0 if args.quick else 2.0)
    rounds = await run_rounds(args, live, cases, measure, extracting, extraction, drivers)

    if extracting is not None and extraction is not None:
        extraction["drain"] = await drain(extracting, sum(d.queued for d in drivers))
        extraction["driver"] = {
            "rate_per_s": args.extraction_rate,
            "sessions_started": sum(d.started for d in drivers),
            "sessions_queued": sum(d.queued for d in drivers),
            "requests": sum(d.requests for d in drivers),
            "errors": sum(d.errors for d in drivers),
            "error_samples": [sample for d in drivers for sample in d.error_samples][:5],
        }
        extraction["metrics_after"] = await metrics_of(extracting)

    hops = None
    if counted is not None:
        now = fake_counters(hop_upstream)
        hops = {"memproxy_requests": measure.hop_requests, **{key: now[key] - counted[key] for key in now}}
        hops["ok"] = hops["memory_calls"] == hops["tool_results"] == measure.hop_requests
    return Measurements(rounds, idle_cpu_pct, hops, extraction)


async def idle_cpu(live: list[Target], seconds: float) -> dict[str, float]:
    """Background CPU of the idle servers (% of a core): whatever they burn while others are measured is noise."""
    before = {t.name: t.server.cpu_seconds() for t in live}
    await asyncio.sleep(seconds)
    return {t.name: round(100 * (t.server.cpu_seconds() - before[t.name]) / seconds, 1) for t in live}


async def run_rounds(
    args: argparse.Namespace,
    live: list[Target],
    cases: tuple[Case, ...],
    measure: Measurer,
    extracting: Server | None,
    extraction: dict[str, Any] | None,
    drivers: list[ExtractionDriver],
) -> dict[str, dict[str, list[RunStats]]]:
    """``--rounds`` rounds of every case for every live target; during ``chat +ex`` a driver makes ``extracting``
    (memproxy) extract, and each of memproxy's windows records the extractions that finished in it."""
    rounds: dict[str, dict[str, list[RunStats]]] = {
        case.name: {t.name: [] for t in live if t.server_for(case)} for case in cases
    }
    timed = [case for case in cases if case.timed]
    for r in range(args.rounds):
        order = live[r % len(live) :] + live[: r % len(live)]
        started = time.perf_counter()
        # The two extraction cases swap places every round: drift over the run does not favour either.
        for case in [case for case in cases if not case.timed] + (timed if r % 2 == 0 else timed[::-1]):
            driver = None
            if case.extraction and extracting is not None:
                assert extraction is not None
                driver = ExtractionDriver(extracting, args.extraction_rate, args.timeout)
                drivers.append(driver)
                driver.start()
                await asyncio.sleep(extraction["settle_s"])  # its first session is under way before anyone is measured
            for target in order:
                server = target.server_for(case)
                if server is None:
                    continue
                window: dict[str, Any] | None = None
                before: dict[str, float] = {}
                if driver is not None and target.name == MEMPROXY:
                    assert extracting is not None
                    before = await metrics_of(extracting)
                    window = {"round": r + 1, "sessions_before": driver.queued}
                window_s = args.extraction_window if case.timed else None
                stats = await measure(target, server, case, args.requests, window_s)
                rounds[case.name][target.name].append(stats)
                if window is not None:
                    assert extracting is not None and extraction is not None and driver is not None
                    after = await metrics_of(extracting)
                    window |= {
                        outcome: jobs(after, outcome) - jobs(before, outcome) for outcome in ("done", "retry", "failed")
                    }
                    window |= {"sessions_ended": driver.queued - window.pop("sessions_before"), "seconds": stats.wall_s}
                    extraction["windows"].append(window)
            if driver is not None:
                await driver.stop()
        print(f"round {r + 1}/{args.rounds} done in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return rounds
