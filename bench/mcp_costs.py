"""What MCP and Anthropic's memory tool cost: an MCP call's latency at /mcp, and one memory-tool hop on /v1/messages.

Starts the fake upstream (``python -m proxy.testing``) and memproxy (``python -m proxy serve``, a fresh files store
with a few memories and one memory file of the user ``bench``) as subprocesses, then, at concurrency 1, in
interleaved rounds:

1. **MCP calls** at ``/mcp`` (streamable HTTP, stateless, JSON answers), as a host sends them: ``tools/call`` of
   ``memory_search`` (a query that finds memories) and ``memory_store`` (a new text each time) as bare JSON-RPC POSTs,
   and ``memory_search`` through the ``mcp`` SDK's own client (one connection, its validation included). Beside them
   the same search through the management API (``GET /memory/memories?q=``): what MCP adds over REST.
2. **The memory tool's hop**: a ``/v1/messages`` request that declares ``memory_20250818``, its model answering at
   once (``plain``, one upstream call) or first calling ``memory`` (``view`` of the file, then the answer: two upstream
   calls and one command run in between, ``memory hop``); beside them a hop of the function tool ``memory_search``
   (``search hop``) and the fake alone (``direct``, one call). A hop's cost is ``hop p50 - plain p50 - direct p50``.

    python bench/mcp_costs.py [--requests 200] [--rounds 3]

Prints a table of p50/p99 (ms); everything to bench/results/mcp_costs.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import write_results  # noqa: E402

USER = {"X-Memory-User": "bench"}
LISTENING = r"listening on (\S+)/v1"
MEMORY_TOOL = {"type": "memory_20250818", "name": "memory"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18", **USER}
FACTS = [
    "The staging database is Postgres 16",
    "User indents Python with tabs",
    "Deploys go out on Fridays through GitHub Actions",
    "The team's standup is at 9:30 in Lisbon",
    "Alpha is written in Rust and ships in May",
]


@contextmanager
def process(command: list[str], ready: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """A child started and its stderr read until a line matches ``ready`` (a URL group): yields the URL."""
    child = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, **(env or {})})
    assert child.stderr is not None
    try:
        for line in child.stderr:
            found = re.search(ready, line)
            if found:
                break
        else:
            raise RuntimeError(f"{command[2:4]} did not start")
        yield found.group(1)
    finally:
        child.terminate()
        child.wait(10)
        child.stderr.close()


def timed(send: Callable[[], httpx.Response]) -> float:
    started = time.perf_counter()
    answer = send()
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.status_code == 200, answer.text[:300]
    return elapsed


def mcp_call(client: httpx.Client, root: str, name: str, arguments: dict[str, Any]) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    answer = client.post(f"{root}/mcp", json=body, headers=MCP_HEADERS)
    assert '"isError":false' in answer.text.replace(" ", ""), answer.text[:300]
    return answer


def messages(client: httpx.Client, url: str, tools: list[dict[str, Any]]) -> httpx.Response:
    body = {"model": "claude-bench", "max_tokens": 64, "messages": [{"role": "user", "content": "When do we deploy?"}]}
    return client.post(f"{url}/messages", json=body | {"tools": tools}, headers={**USER, "x-api-key": "sk-ant"})


def queue(client: httpx.Client, fake_root: str, replies: list[Any]) -> None:
    assert client.post(f"{fake_root}/_fake/replies", json=replies).status_code == 200


def sdk_searches(root: str, count: int) -> list[float]:
    """memory_search through the mcp SDK's client, one connection for all of them."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> list[float]:
        timings = []
        async with (
            httpx2.AsyncClient(headers=USER) as http,
            Client(streamable_http_client(f"{root}/mcp", http_client=http)) as client,
        ):
            for _ in range(count):
                started = time.perf_counter()
                result = await client.call_tool("memory_search", {"query": "deploy fridays"})
                timings.append((time.perf_counter() - started) * 1000)
                assert not result.is_error
        return timings

    return asyncio.run(run())


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": statistics.median(ordered), "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="per case and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    python = sys.executable
    samples: dict[str, list[float]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="memproxy-bench-mcp-") as data,
        process(
            [python, "-m", "proxy.testing", "--port", "0", "--keep-requests", "0"], r"listening on (\S+)/v1"
        ) as fake,
        process(
            [python, "-m", "proxy", "serve", "--port", "0", "--upstream", f"{fake}/v1", "--data-dir", data],
            LISTENING,
            {"MEMPROXY_UPSTREAM_ANTHROPIC_BASE_URL": f"{fake}/v1", "MEMPROXY_EXTRACTION_ENABLED": "false"},
        ) as root,
        httpx.Client(timeout=30) as client,
    ):
        url = f"{root}/v1"
        for fact in FACTS:
            assert client.post(f"{root}/memory/memories", json={"text": fact}, headers=USER).status_code == 201
        note = {"text": "# Deploys\nOn Fridays, through GitHub Actions.\nNever during the standup.\n"}
        assert client.put(f"{root}/memory/files/deploys.md", json=note, headers=USER).status_code == 201
        deadline = time.monotonic() + 120
        while client.post(f"{root}/mcp", json={}, headers=MCP_HEADERS).status_code >= 500:  # the SDK still loading
            assert time.monotonic() < deadline
            time.sleep(0.1)
        view = {"command": "view", "path": "/memories/deploys.md"}
        memory_hop = [{"tool_calls": [{"name": "memory", "arguments": view}], "content": None}, "Fridays."]
        search_hop = [{"tool_calls": [{"name": "memory_search", "arguments": {"query": "deploy"}}], "content": None}]
        search_hop.append("Fridays.")
        stored = 0

        def store() -> httpx.Response:
            nonlocal stored
            stored += 1
            return mcp_call(client, root, "memory_store", {"text": f"Release {stored} of Alpha shipped on a Friday"})

        cases: dict[str, Callable[[], float]] = {
            "mcp memory_search": lambda: timed(
                lambda: mcp_call(client, root, "memory_search", {"query": "deploy fridays"})
            ),
            "mcp memory_store": lambda: timed(store),
            "rest GET /memory/memories?q=": lambda: timed(
                lambda: client.get(f"{root}/memory/memories", params={"q": "deploy fridays"}, headers=USER)
            ),
            "direct (fake, 1 call)": lambda: timed(lambda: messages(client, f"{fake}/v1", [])),
            "plain (1 upstream call)": lambda: timed(lambda: messages(client, url, [MEMORY_TOOL])),
            "memory hop (2 calls + view)": lambda: (
                queue(client, fake, memory_hop),
                timed(lambda: messages(client, url, [MEMORY_TOOL])),
            )[1],
            "search hop (2 calls + search)": lambda: (
                queue(client, fake, search_hop),
                timed(lambda: messages(client, url, [MEMORY_TOOL])),
            )[1],
        }
        for case in cases.values():  # warm up every path once
            case()
        for round_number in range(args.rounds):
            for name, case in cases.items():
                samples.setdefault(name, []).extend(case() for _ in range(args.requests))
            samples.setdefault("mcp sdk client memory_search", []).extend(sdk_searches(root, args.requests))
            print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr)
    results = {name: summary(found) for name, found in samples.items()}
    direct, plain = results["direct (fake, 1 call)"]["p50"], results["plain (1 upstream call)"]["p50"]
    hops = {
        "memory tool hop": results["memory hop (2 calls + view)"]["p50"] - plain - direct,
        "memory_search hop": results["search hop (2 calls + search)"]["p50"] - plain - direct,
    }
    print(f"{'case':34} {'p50 ms':>8} {'p99 ms':>8}")
    for name, found in results.items():
        print(f"{name:34} {found['p50']:8.2f} {found['p99']:8.2f}")
    for name, cost in hops.items():
        print(f"{name} (p50, over plain and the fake's call): {cost:.2f} ms")
    write_results(ROOT / "bench" / "results" / "mcp_costs.json", {"results": results, "hops": hops, "args": vars(args)})


if __name__ == "__main__":
    main()
