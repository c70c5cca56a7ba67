"""What memproxy costs on top of talking to the upstream directly.

Starts a fake upstream (``python -m proxy.testing``), the bare forwarder (``bench/forwarder.py``,
the floor for a Python proxy), memproxy, memproxy-keys and, when ``litellm[proxy]`` is installed,
LiteLLM's own proxy as a peer, each as a subprocess on a free port. Then it sends the same chat completion
requests to each of them -- non-streaming and streaming, at concurrency 1 and 16 -- in
interleaved rounds, and reports medians across rounds of p50/p99 latency and requests/s, the
latency each proxy adds over the direct path, and how memproxy compares with the forwarder.

memproxy-keys is a second memproxy in ``auth.mode: keys`` (``--no-keys`` leaves it out): its own data dir holds
the same number of memories for the user ``bench`` and a personal memproxy key for that user, which its requests
carry in ``Authorization: Bearer`` (so it sends ``upstream.api_key`` upstream instead). A probe checks that it
refuses a request without its key and that the key's user holds the memories. It runs the cases memproxy runs
except the hop cases (in ``chat no-ex``/``+ex`` it is measured like the forwarder: it extracts nothing itself),
meets memproxy's targets against the forwarder, and the report compares it with memproxy (``keys vs open``: p50
and req/s ratios): what authenticating every request by its memproxy key costs, checked (generously) at c=1.

The same request goes through the two other formats memproxy serves, streamed at concurrency 1 and 16:
``responses stream c=1``/``c=16`` (OpenAI's Responses API, ``/v1/responses``) and ``messages stream c=1``/``c=16``
(Anthropic's Messages API, ``/v1/messages``, the key in ``x-api-key``; memproxy sends it to
``upstream.anthropic_base_url``, set to the same fake, which serves both). Same user, same memories, same targets
against the forwarder on the same format; LiteLLM sits them out. A stream must end with its format's last event
(``response.completed``, ``message_stop``).

Two more cases at concurrency 1, ``chat hop`` and ``stream hop``, measure one memory hop: a second
fake upstream runs with ``--memory-hop``, so it answers a request that offers ``memory_search`` with
a call to it and the follow-up that carries the tool result with the answer. memproxy offers the tool
on every request, so a second memproxy (its own copy of the seeded memories) in front of that fake
makes two upstream calls per request and runs one ``memory_search`` over the user's memories in
between; direct gets a plain answer in one call (the forwarder and LiteLLM sit these cases out:
they make the same single call as in ``chat c=1``). memproxy's own time with the hop is its p50
minus twice direct's p50 in the hop case, its own time without is its p50 minus direct's in the
plain case of the same kind (``chat c=1``, ``stream c=1``), and the difference is the proxy's time
per hop. The fake counts the calls it made and the tool results it got back (reply headers
``x-fake-memory-calls``, ``x-fake-tool-results``); a probe checks that one memproxy request makes
exactly one hop before anything is measured, and the run fails unless every memproxy request of the
hop cases made exactly one.

Two more cases at concurrency 1, ``chat no-ex`` and ``chat +ex``, check that requests are no slower while
memproxy extracts episodes in the background. Both run for a fixed window per target (``--extraction-window``)
instead of a request count. During every target's ``chat +ex`` window a driver ends 3-turn sessions through
memproxy at a steady rate (``--extraction-rate``, per second; three chat requests with a fresh
``X-Memory-Session`` for a user of its own, then ``POST /memory/sessions/{id}/end``), so memproxy's worker
runs extraction calls (through litellm, in memproxy's extraction process) against the fake upstream (started
with ``--extraction``, which answers them) while the measured requests flow; the whole machine carries the
same load for every target, so what differs for memproxy is what extraction costs it. The p50 check is
memproxy's own ratio; the p99 check is memproxy's ratio over the forwarder's, as p99 on two cores moves with
any load. The extractions memproxy finished during its own windows are read from
``memproxy_extraction_jobs_total{outcome="done"}`` at ``/metrics``; the run fails when a window saw none (the
comparison would mean nothing). Before the rounds, the first extraction (which starts the extraction process
and imports litellm there) runs on its own while a ``chat c=1`` load measures what requests meanwhile see, and
after them the driver's jobs are waited for, so memproxy exits with none queued.

While it measures, idle CPUs poll instead of halting (``/dev/cpu_dma_latency`` held at 0, when it may be opened:
root on Linux; ``--idle-halt`` not to). On a VM a halted vCPU takes tens of microseconds to wake, and at concurrency 1
that made a target's latency depend on how long it stayed busy after each answer (``loadtest/idle.py``); the report
and the results file say which way the run went.

    python bench/overhead.py                 # default run: a few minutes
    python bench/overhead.py --quick         # smoke check: under a minute
    python bench/overhead.py --memproxy-arg=--config=my.yaml
    python bench/overhead.py --no-extraction  # without the extraction cases

The table goes to stdout; everything (per-round numbers, CPU per request, memory, checks) to
bench/results/overhead.json, and the children's output to bench/results/logs/.
Exit status: 0 when every target that must run (direct, forwarder, memproxy, memproxy-keys, memproxy-pg unless
skipped) answered every
request with 200 (and memproxy made one hop per request of the hop cases, the extraction driver's
requests all succeeded and every memproxy window of ``chat +ex`` saw an extraction finish); 1 otherwise;
with --strict also 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

# bench/loadtest/ and bench/results_file.py: found as the script's directory is first on sys.path
# (python bench/overhead.py)
from loadtest.cases import MODEL, selected_cases
from loadtest.checks import assess, failures
from loadtest.idle import idle_polling
from loadtest.paths import LOG_DIR, RESULTS_DIR, RESULTS_FILE
from loadtest.postgres import stop_all as stop_postgres
from loadtest.probes import check_replies
from loadtest.report import print_report, results_document
from loadtest.rounds import benchmark
from loadtest.servers import stop_all
from loadtest.targets import rss_after, start_servers
from results_file import write_results


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line; what is left unset gets its default, a smaller one with --quick."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 5; --quick 2)")
    parser.add_argument("--requests", type=int, help="requests per round, target and case (default 600; --quick 80)")
    parser.add_argument("--warmup", type=int, help="warm-up requests per target and case (default 100; --quick 20)")
    parser.add_argument("--quick", action="store_true", help="small numbers: a smoke check that ends in under a minute")
    parser.add_argument("--no-litellm", action="store_true", help="leave LiteLLM's proxy out")
    parser.add_argument(
        "--litellm-model",
        default=f"openai/{MODEL}",
        help=f"what LiteLLM routes {MODEL} to (default openai/{MODEL}; a model in its cost map, e.g. "
        "openai/gpt-4o-mini, makes it ~30%% cheaper per request)",
    )
    parser.add_argument(
        "--memproxy-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for `memproxy serve` (repeatable; use --memproxy-arg=--config=FILE for dashed ones)",
    )
    parser.add_argument(
        "--memories",
        type=int,
        default=500,
        help="memories memproxy (and memproxy-keys) holds for the benchmark's user (default 500)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per-request timeout, s (default 30)")
    parser.add_argument(
        "--max-seconds", type=float, help="cap on one target's run of one case, s (default 5; --quick 10)"
    )
    parser.add_argument("--startup-timeout", type=float, default=60.0, help="per server, s (LiteLLM gets 2x)")
    parser.add_argument(
        "--extraction-rate",
        type=float,
        default=4.0,
        help="sessions the driver ends per second in `chat +ex` (default 4)",
    )
    parser.add_argument(
        "--extraction-window",
        type=float,
        help="seconds per target and round of `chat no-ex`/`+ex` (default 3; --quick 0.75)",
    )
    parser.add_argument("--no-extraction", action="store_true", help="leave the extraction cases out")
    parser.add_argument(
        "--cases",
        type=lambda text: [name.strip() for name in text.split(",") if name.strip()],
        metavar="NAMES",
        help="only these cases, comma-separated (e.g. 'stream c=1,stream c=16'); a hop case brings its plain case",
    )
    parser.add_argument("--no-keys", action="store_true", help="leave memproxy-keys (auth.mode: keys) out")
    parser.add_argument("--no-postgres", action="store_true", help="leave memproxy-pg (store.backend: postgres) out")
    parser.add_argument("--output", type=Path, default=RESULTS_FILE, help=f"JSON results (default {RESULTS_FILE})")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed, too")
    parser.add_argument(
        "--idle-halt",
        action="store_true",
        help="let idle CPUs halt (default: hold /dev/cpu_dma_latency at 0 while measuring, when allowed)",
    )
    args = parser.parse_args(argv)
    defaults = (2, 80, 20, 10.0, 0.75) if args.quick else (5, 600, 100, 5.0, 3.0)
    names = ("rounds", "requests", "warmup", "max_seconds", "extraction_window")
    for name, default in zip(names, defaults, strict=True):
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.rounds < 1 or args.requests < 1 or args.warmup < 0:
        parser.error("--rounds and --requests must be at least 1, --warmup at least 0")
    if args.extraction_rate <= 0 or args.extraction_window <= 0:
        parser.error("--extraction-rate and --extraction-window must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    """Start the servers, probe them, measure, then report; 0 unless something failed (or, with --strict, missed)."""
    args = parse_args(argv)
    try:
        cases = selected_cases(not args.no_extraction, args.cases)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    atexit.register(stop_postgres)  # atexit runs these last first: memproxy-pg stops before its database
    atexit.register(stop_all)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    scratch = Path(tempfile.mkdtemp(prefix="memproxy-bench-"))
    began = time.monotonic()
    load_before = os.getloadavg()
    try:
        targets = start_servers(args, scratch)
        with _event_loop_runner() as runner, idle_polling(not args.idle_halt) as idle:
            runner.run(check_replies(targets, cases, args.timeout, args.memories))
            live = [t for t in targets if t.status == "ok"]
            measured = runner.run(benchmark(args, targets, cases))
        rss = rss_after(live)
    finally:
        stop_all()
        stop_postgres()
        shutil.rmtree(scratch, ignore_errors=True)

    findings = assess(measured, [t.name for t in live], cases)
    print_report(args, targets, cases, measured, findings, rss, idle)
    failed = failures(targets, findings, measured.hops, cases)
    ok = not failed and (not args.strict or all(check["pass"] for check in findings.checks))
    results = results_document(
        args,
        targets,
        cases,
        measured,
        findings,
        rss=rss,
        ok=ok,
        failed=failed,
        duration_s=round(time.monotonic() - began, 1),
        loadavg_before=load_before,
        idle_cpus=idle,
    )
    write_results(args.output, results)
    print(f"results: {args.output}  logs: {LOG_DIR}")
    if failed:
        print(f"FAILED: {', '.join(sorted(set(failed)))}", file=sys.stderr)
    return 0 if ok else 1


def _event_loop_runner() -> asyncio.Runner:
    """One event loop for the whole run, uvloop when installed (a cheaper load generator)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        return asyncio.Runner()
    return asyncio.Runner(loop_factory=uvloop.new_event_loop)


if __name__ == "__main__":
    sys.exit(main())
