"""What memproxy's additions to a request cost the upstream and the pipe, apart from what memproxy itself does.

memproxy sends the upstream a bigger request than its client did: the memory block and the four memory tools.
The upstream reads them, and a Responses upstream echoes the tools back in ``response.created``, ``in_progress``
and ``completed``. ``bench/overhead.py`` counts that time in memproxy's added latency, since direct and the
forwarder send the client's own request. This script measures it alone: the bare forwarder (no parsing, no memory)
relays first the benchmark's own request, then the very request memproxy sends upstream for the same question
(captured from a running memproxy, the question swapped in per request), in interleaved rounds against the same
fake upstream. What the forwarder then adds over its plain run is the price of memproxy's payload, on a pipe that
does nothing else: the part of memproxy's ratio no work inside memproxy can remove.

    python bench/payload_cost.py                  # Responses streams, c=1 and c=16, 5 rounds
    python bench/payload_cost.py --api messages --rounds 3

Prints, per concurrency, medians across rounds: direct's p50, the forwarder's added p50 with the plain request and
with memproxy's, their ratio (what memproxy's ratio could at best be, against overhead.py's 1.1x target), requests/s
and the fake upstream's CPU per request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path

# bench/loadtest/: found as the script's directory is first on sys.path (python bench/payload_cost.py)
from loadtest.cases import APIS, QUESTIONS, Case
from loadtest.connection import HttpConnection, build_request
from loadtest.idle import idle_polling
from loadtest.load import RunStats, run_load
from loadtest.servers import Server, free_port, stop_all
from loadtest.targets import open_user, seed_memories

BENCH_DIR = Path(__file__).resolve().parent


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", choices=sorted(APIS), default="responses")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=1500, help="per round, target and concurrency")
    parser.add_argument("--memories", type=int, default=500, help="memproxy's, for the block it sends (default 500)")
    parser.add_argument("--idle-halt", action="store_true", help="let idle CPUs halt (see loadtest/idle.py)")
    return parser.parse_args(argv)


def start(scratch: Path, memories: int) -> tuple[Server, Server, Server]:
    """The fake upstream (keeping the last request it got), the forwarder, and memproxy with ``memories``."""
    py = sys.executable
    port = free_port()
    cmd = [py, "-m", "proxy.testing", "--host", "127.0.0.1", "--port", str(port), "--keep-requests", "1"]
    fake = Server("upstream", cmd, port)
    port = free_port()
    forwarder = Server(
        "forwarder", [py, str(BENCH_DIR / "forwarder.py"), "--port", str(port), "--upstream", fake.base_url], port
    )
    seed_memories(scratch / "data", memories, open_user())
    port = free_port()
    cmd = [py, "-m", "proxy", "serve", "--host", "127.0.0.1", "--port", str(port), "--upstream", fake.base_url]
    env = {"MEMPROXY_UPSTREAM_ANTHROPIC_BASE_URL": fake.base_url}
    memproxy = Server("memproxy", [*cmd, "--data-dir", str(scratch / "data")], port, health_path="/healthz", env=env)
    for server in (fake, forwarder, memproxy):
        server.start()
    for server in (fake, forwarder, memproxy):
        problem = server.wait_healthy()
        if problem:
            raise SystemExit(f"{server.name} did not start: {problem}")
    return fake, forwarder, memproxy


async def memproxys_request(memproxy: Server, fake: Server, api: str) -> Callable[[str], bytes]:
    """The body memproxy sends upstream for the benchmark's first question, as a function of the question."""
    question = QUESTIONS[0]
    host, port, data = build_request(memproxy.base_url, True, memproxy.client_key, question, api)
    conn = await HttpConnection.open(host, port, timeout_s=5.0)
    try:
        await conn.request(data, APIS[api][2] if api != "chat" else b"")
    finally:
        conn.close()
    if conn.status != 200:
        raise SystemExit(f"memproxy answered {conn.status}")
    seen = fake.base_url.removesuffix("/v1") + "/_fake/requests?last=1"
    with urllib.request.urlopen(seen, timeout=10) as reply:
        [request] = json.load(reply)["requests"]
    body: str = request["body"]  # the text memproxy sent (orjson: compact, UTF-8)
    quoted = json.dumps(question, ensure_ascii=False)[1:-1]
    if body.count(quoted) != 1:
        raise SystemExit("memproxy's request holds the question other than once: nothing to swap it in for")
    head, tail = body.split(quoted)
    client = len(data.partition(b"\r\n\r\n")[2])
    print(f"memproxy's upstream request: {len(body)} bytes, its client's {client}")
    return lambda asked: (head + json.dumps(asked, ensure_ascii=False)[1:-1] + tail).encode()


def median(runs: list[RunStats], field: str) -> float:
    return statistics.median(getattr(run, field) for run in runs)


def added(runs: list[RunStats], direct: list[RunStats]) -> float:
    return median(runs, "p50_ms") - median(direct, "p50_ms")


async def measure(args: argparse.Namespace, fake: Server, forwarder: Server, memproxy: Server) -> None:
    payload = await memproxys_request(memproxy, fake, args.api)
    memproxy.stop()  # not measured: its CPU would only load the machine
    kinds: dict[str, tuple[Server, Callable[[str], bytes] | None]] = {
        "direct": (fake, None),
        "forwarder": (forwarder, None),
        "forwarder + memproxy's request": (forwarder, payload),
    }
    for concurrency in (1, 16):
        case = Case(f"{args.api} stream c={concurrency}", stream=True, concurrency=concurrency, api=args.api)
        runs: dict[str, list[RunStats]] = {name: [] for name in kinds}
        for target, body in kinds.values():  # warm-up
            await run_load(target, case, 100, timeout_s=30, max_seconds=30, upstream=fake, body=body)
        for _ in range(args.rounds):
            for name, (target, body) in kinds.items():
                stats = await run_load(
                    target, case, args.requests, timeout_s=30, max_seconds=60, upstream=fake, body=body
                )
                if stats.errors:
                    raise SystemExit(f"{name}: {stats.errors} errors: {stats.error_samples}")
                runs[name].append(stats)
        direct, plain, heavy = runs["direct"], runs["forwarder"], runs["forwarder + memproxy's request"]
        print(f"\n{case.name}: direct p50 {median(direct, 'p50_ms'):.3f} ms")
        for name in kinds:
            rps, up = median(runs[name], "rps"), median(runs[name], "upstream_cpu_ms_per_req")
            extra = "" if name == "direct" else f", added p50 {added(runs[name], direct) * 1000:.0f} µs"
            print(f"  {name:32s} {rps:7.0f} req/s, upstream CPU {up * 1000:.0f} µs/request{extra}")
        cost = added(heavy, direct) - added(plain, direct)
        print(
            f"  memproxy's request costs the forwarder {cost * 1000:+.0f} µs of added p50: "
            f"{added(heavy, direct) / added(plain, direct):.2f}x its plain added p50 (overhead.py's target: 1.1x)"
        )
        if concurrency > 1:
            throughput = median(heavy, "rps") / median(plain, "rps")
            print(f"  and {throughput:.2f}x its throughput (target: at least 1.0x)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="memproxy-payload-"))
    try:
        fake, forwarder, memproxy = start(scratch, args.memories)
        with idle_polling(not args.idle_halt) as idle:
            print(f"idle CPUs: {idle}")
            asyncio.run(measure(args, fake, forwarder, memproxy))
    finally:
        stop_all()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
