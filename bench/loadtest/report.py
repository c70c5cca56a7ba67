"""What the run prints on stdout, and the JSON results document (everything, for a later look)."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.metadata
import os
import platform
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from proxy import DISTRIBUTION, __version__

from .cases import APIS, CHAT_BODY, Case, plain_case
from .checks import Findings
from .extraction_load import EXTRACTION_TURNS
from .rounds import Measurements
from .targets import MEMPROXY, MEMPROXY_KEYS, MEMPROXY_PG, Target


def print_report(
    args: argparse.Namespace,
    targets: list[Target],
    cases: tuple[Case, ...],
    measured: Measurements,
    findings: Findings,
    rss: dict[str, float],
    idle_cpus: str,
) -> None:
    """The table, the checks, whatever went wrong, the extraction load's comparison, memory and idle CPU."""
    summary, hops, extraction = findings.summary, measured.hops, measured.extraction
    print()
    print_table(findings, cases)
    print()
    for check in findings.checks:
        verdict = "PASS" if check["pass"] else "MISS"
        print(f"{verdict}  {check['name']}: {check['value']:.2f} (target {check['target']})")
    for target in targets:
        if target.status != "ok":
            print(f"{target.name}: {target.status.upper()}: {target.reason}")
    for case in cases:
        for name, row in summary[case.name].items():
            if row["errors"]:
                print(f"{name}, {case.name}: {row['errors']} errors, e.g. {'; '.join(row['error_samples'][:3])}")
    if hops is not None:
        print(
            f"memory hops: {hops['memproxy_requests']} memproxy requests in the hop cases, {hops['memory_calls']} "
            f"memory_search calls and {hops['tool_results']} tool results at the fake upstream"
            + ("" if hops["ok"] else ": NOT one hop per request")
        )
    if extraction is not None and findings.extraction_summary is not None:
        print()
        print_extraction(extraction, findings.extraction_summary, args)
    for problem in findings.extraction_problems:
        print(f"FAIL  {problem}")
    print(f"rss after the run (MB): {', '.join(f'{k} {v}' for k, v in rss.items())}")
    idle = measured.idle_cpu_pct
    print(f"idle cpu before the rounds (% of a core): {', '.join(f'{k} {v}' for k, v in idle.items())}")
    print(f"idle CPUs while measuring: {idle_cpus}")


def print_table(findings: Findings, cases: tuple[Case, ...]) -> None:
    summary, derived, names = findings.summary, findings.derived, findings.names
    width = max([10, *map(len, names)])  # the target column
    case_width = max([12, *(len(case.name) for case in cases)])
    header = (
        f"{'case':<{case_width}} {'target':<{width}} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8} {'+p50 ms':>8} "
        f"{'ttfb p50':>8} {'cpu ms/req':>10} {'gen cpu%':>8} {'errors':>6}"
    )
    print(header)
    print("-" * len(header))
    for case in cases:
        for i, name in enumerate(names):
            row = summary[case.name].get(name)
            if row is None:
                continue
            added = derived[case.name]["added_p50_ms"].get(name)
            ttfb = row["ttfb_p50_ms"]
            print(
                f"{case.name if i == 0 else '':<{case_width}} {name:<{width}} "
                f"{row['p50_ms']:>8.2f} {row['p99_ms']:>8.2f} "
                f"{row['rps']:>8.0f} {'-' if added is None else f'{added:+.2f}':>8} "
                f"{'-' if ttfb is None else f'{ttfb:.2f}':>8} {row['target_cpu_ms_per_req']:>10.2f} "
                f"{row['gen_cpu_pct']:>8.0f} {row['errors']:>6}"
            )
    print("(medians across rounds; +p50 = p50 minus direct's p50; cpu ms/req = the target process's own CPU,")
    print(" for direct the fake upstream's; gen cpu% = the load generator's share of one core;")
    print(" responses/messages: the same request streamed through /v1/responses and Anthropic's /v1/messages;")
    print(" hop cases: memproxy makes two upstream calls and one memory_search per request, direct one call;")
    print(" chat no-ex/+ex: time windows, +ex while sessions end through memproxy and it extracts episodes)")
    hop_cases = [case for case in cases if "per_hop_ms" in derived[case.name]]
    if hop_cases:
        print()
        print("memproxy's own time (p50 minus direct's p50 for each upstream call):")
        for case in hop_cases:
            entry = derived[case.name]
            print(
                f"  {case.name:<10} {entry['hop_own_ms']:.2f} ms with {case.hops} hop(s), "
                f"{entry['plain_own_ms']:.2f} ms without ({plain_case(case).name}): "
                f"{entry['per_hop_ms']:.2f} ms per hop"
            )
    comparisons = (
        ("keys_vs_open", MEMPROXY_KEYS, f"keys vs open: {MEMPROXY_KEYS} (auth.mode: keys, a memproxy key per request)"),
        ("files_vs_postgres", MEMPROXY_PG, f"files vs postgres: {MEMPROXY_PG} (store.backend: postgres)"),
    )
    for key, name, title in comparisons:
        compared = [case for case in cases if key in derived[case.name]]
        if not compared:
            continue
        print()
        print(f"{title} against {MEMPROXY}:")
        for case in compared:
            e = derived[case.name][key]
            this, open_ = summary[case.name][name], summary[case.name][MEMPROXY]
            print(
                f"  {case.name:<{case_width}} p50 {this['p50_ms']:.2f} vs {open_['p50_ms']:.2f} ms "
                f"(x{e['p50_ratio']:.2f}, "
                f"{e['p50_diff_ms']:+.2f} ms), req/s {this['rps']:.0f} vs {open_['rps']:.0f} (x{e['rps_ratio']:.2f}), "
                f"cpu {e['cpu_ms_per_req_diff']:+.2f} ms/req"
            )


def print_extraction(extraction: dict[str, Any], report: dict[str, Any], args: argparse.Namespace) -> None:
    compare = report["compare"]
    print(
        f"extraction load: chat c=1 for {args.extraction_window:g}s per target and round, without (no-ex) and with "
        f"(+ex) a driver ending {args.extraction_rate:g} sessions/s of {EXTRACTION_TURNS} turns through memproxy"
    )
    width = max([10, *map(len, compare)])  # the target column
    header = (
        f"  {'target':<{width}} {'p50 no-ex':>9} {'p50 +ex':>8} {'ratio':>6} {'p99 no-ex':>9} {'p99 +ex':>8} "
        f"{'ratio':>6} {'max no-ex':>9} {'max +ex':>8} {'+p50 no-ex':>10} {'+p50 +ex':>8}"
    )
    print(header)
    for name, e in compare.items():
        added = (
            f"{e['added_p50_ms_off']:>+10.2f} {e['added_p50_ms_on']:>+8.2f}"
            if "added_p50_ms_off" in e
            else f"{'-':>10} {'-':>8}"
        )
        print(
            f"  {name:<{width}} {e['p50_ms_off']:>9.2f} {e['p50_ms_on']:>8.2f} {e['p50_ms_ratio']:>6.2f} "
            f"{e['p99_ms_off']:>9.2f} {e['p99_ms_on']:>8.2f} {e['p99_ms_ratio']:>6.2f} "
            f"{e['max_ms_off']:>9.1f} {e['max_ms_on']:>8.1f} {added}"
        )
    windows = extraction["windows"]
    seconds = report["memproxy_window_seconds"]
    print(
        f"  extractions memproxy finished while it was measured: {report['done_while_memproxy_measured']} in "
        f"{seconds:.1f}s (per window: {', '.join(str(w['done']) for w in windows) or 'none'}); "
        f"retries {report['retries_while_memproxy_measured']}, gave up {report['failed_while_memproxy_measured']}"
    )
    driver, drained = extraction.get("driver", {}), extraction.get("drain", {})
    left = drained.get("queued", 0) - drained.get("finished", 0)
    print(
        f"  driver: {driver.get('sessions_queued', 0)} sessions ended with a job queued, {driver.get('requests', 0)} "
        f"requests, {driver.get('errors', 0)} errors; jobs left at the end: {max(left, 0)} "
        f"(waited {drained.get('seconds', 0):.1f}s)"
    )
    first = extraction.get("first") or {}
    if first:
        print(
            f"  first extraction (starts memproxy's extraction process): done after {first['seconds_to_done']:.1f}s; "
            f"chat c=1 meanwhile p50 {first['p50_ms']:.2f} ms, p99 {first['p99_ms']:.2f} ms, "
            f"max {first['max_ms']:.1f} ms ({first['requests']} requests)"
        )
    print("  (medians across rounds; +p50 = p50 minus direct's p50 in the same case)")


def versions() -> dict[str, str]:
    found = {DISTRIBUTION: __version__}  # the code that ran (installed or on PYTHONPATH), not what pip last installed
    for dist in ("uvicorn", "starlette", "httpx", "httpx-aiohttp", "aiohttp", "litellm"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            found[dist] = importlib.metadata.version(dist)
    return found


def results_document(
    args: argparse.Namespace,
    targets: list[Target],
    cases: tuple[Case, ...],
    measured: Measurements,
    findings: Findings,
    *,
    rss: dict[str, float],
    ok: bool,
    failed: list[str],
    duration_s: float,
    loadavg_before: tuple[float, float, float],
    idle_cpus: str,
) -> dict[str, Any]:
    """Everything for the JSON results file: the table's numbers, every round's, the checks, and how it ran."""
    extraction = measured.extraction
    return {
        "meta": {
            "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "duration_s": duration_s,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "loadavg_before": loadavg_before,
            "loadavg_after": os.getloadavg(),
            "idle_cpus": idle_cpus,
            "versions": versions(),
            "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "request_body": CHAT_BODY,
            "request_bodies": {api: body for api, (_, body, _) in APIS.items()},
            "cases": [asdict(case) for case in cases],
        },
        "targets": {
            t.name: {
                "status": t.status,
                "reason": t.reason,
                "base_url": t.server.base_url,
                "log": str(t.server.log_path),
                **(
                    {"hop_base_url": t.hop_server.base_url, "hop_log": str(t.hop_server.log_path)}
                    if t.hop_server is not None
                    else {}
                ),
            }
            for t in targets
        },
        "summary": findings.summary,
        "derived": findings.derived,
        "checks": findings.checks,
        "memory_hops": measured.hops,
        "extraction_load": None if extraction is None else {**extraction, **(findings.extraction_summary or {})},
        "rss_mb_after": rss,
        "idle_cpu_pct": measured.idle_cpu_pct,
        "rounds": {
            case: {
                name: [{k: v for k, v in asdict(run).items() if k != "latencies_ms"} for run in runs]
                for name, runs in per.items()
            }
            for case, per in measured.rounds.items()
        },
        "ok": ok,
        "failed": failed,
    }
