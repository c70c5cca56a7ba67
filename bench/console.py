"""How fast the console's pages answer at 10,000 memories: ``PYTHONPATH=$PWD python bench/console.py``.

Fills a store with 10,000 memories of one user in one workspace (``bench/retrieval``'s synthetic memories: its 336
with a third of their words swapped, in sessions of six, over a year; 1% held for review, a few pinned), 10,000
history lines and 20 episodes, starts a real memproxy process in keys mode on it (``memory.max_total`` raised to
hold them), signs in through the sign-in form as a browser would, and times every page (and the API's list, which
pages the same way): the median, p95 and slowest of ``--rounds`` loads after a warm-up, each a whole request over
a real socket. Search terms are ``bench/retrieval/queries.jsonl``'s questions, a different one each load. Target:
every page's p95 within 100 ms.

    python bench/console.py                      # files store
    python bench/console.py --backend postgres   # a throwaway PostgreSQL server (Debian's binaries)
    python bench/console.py --memories 1000 --rounds 20

Results also go to ``bench/results/console.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "retrieval"))
sys.path.insert(0, str(HERE.parent))

from run import synthetic  # noqa: E402

from bench.results_file import write_results  # noqa: E402
from proxy.auth.keys import create_key  # noqa: E402
from proxy.config import Settings, load_settings  # noqa: E402
from proxy.memory.episodes import Episode, episode_id  # noqa: E402
from proxy.memory.history import HistoryLine  # noqa: E402
from proxy.memory.provenance import Provenance  # noqa: E402
from proxy.memory.records import Memory, MemoryDraft  # noqa: E402
from proxy.memory.store import Owner  # noqa: E402
from proxy.services import build_episode_store, build_history_store, build_key_store, build_store  # noqa: E402

RESULTS = HERE / "results" / "console.json"
TARGET_MS = 100.0
USER = "bench"
OWNER = Owner(USER, "default")
HELD = Provenance(True, ("web_fetch",))


def memories(count: int, rng: random.Random) -> list[Memory]:
    base = [
        Memory.from_json(json.loads(line)) for line in (HERE / "retrieval" / "memories.jsonl").read_text().splitlines()
    ]
    made = synthetic(base, count, rng)
    now = time.time()
    return [replace(m, created=now - (count - n) * 3000.0) for n, m in enumerate(made)]  # a year, oldest first


def fill(settings: Settings, count: int, rng: random.Random) -> tuple[str, list[str]]:
    """The store as the benchmark reads it; returns the key and a few memory ids to open."""

    async def write() -> tuple[str, list[str]]:
        store, episodes = build_store(settings), build_episode_store(settings)
        history, keys = build_history_store(settings), build_key_store(settings)
        try:
            drafts = []
            for n, memory in enumerate(memories(count, rng)):
                drafts.append(
                    MemoryDraft(
                        memory.text[:500],
                        tags=memory.tags,
                        category=memory.category,
                        session=memory.session,
                        created=memory.created,
                        origin=("api", "tool", "extraction")[n % 3],
                        provenance=HELD if n % 100 == 7 else Provenance(),
                        pinned=n in (11, 222, 3333),
                    )
                )
            stored = []
            for start in range(0, len(drafts), 1000):  # an import's batch at a time
                stored += await store.add_many(OWNER, drafts[start : start + 1000], max_total=count + 1000)
            now = time.time()
            lines = [
                HistoryLine(
                    f"s-{n // 20}",
                    n % 20 + 1,
                    ("user", "assistant")[n % 2],
                    now - (count - n) * 60.0,
                    rng.choice(drafts).text,
                )  # fmt: skip
                for n in range(count)
            ]
            await history.append(OWNER, lines)
            for n in range(20):
                session = f"s-{n}"
                await episodes.put(OWNER, Episode(
                    episode_id(USER, "default", session), session, USER, "default", 20, now - n * 3600,
                    f"Session {n}: " + drafts[n].text, tuple(d.text for d in drafts[n : n + 3]),
                    HELD if n % 4 == 0 else Provenance(),
                ))  # fmt: skip
            _, key = await create_key(keys, USER, "personal")
        finally:
            for closing in (store, episodes, history, keys):
                await closing.aclose()
        return key, [m.id for m in stored[:: max(1, len(stored) // 10)]]

    return asyncio.run(write())


@contextmanager
def memproxy(settings: Settings, count: int) -> Iterator[str]:
    port = _free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEMPROXY_")}
    environ |= {
        "MEMPROXY_AUTH_MODE": "keys",
        "MEMPROXY_MEMORY_MAX_TOTAL": str(count + 1000),
        "MEMPROXY_EXTRACTION_ENABLED": "false",
        "MEMPROXY_SERVER_LOG_LEVEL": "warning",
    }
    if settings.store.backend == "postgres":
        environ |= {"MEMPROXY_STORE_BACKEND": "postgres", "MEMPROXY_STORE_DSN": str(settings.store.dsn)}
    command = [sys.executable, "-m", "proxy", "serve", "--port", str(port), "--data-dir", settings.store.path,
               "--upstream", "http://127.0.0.1:9/v1"]  # fmt: skip
    process = subprocess.Popen(command, env=environ, stderr=subprocess.PIPE)
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise SystemExit(f"memproxy exited: {process.stderr.read().decode() if process.stderr else ''}")
            try:
                if httpx.get(f"{root}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("memproxy did not start")
            time.sleep(0.1)
        yield root
    finally:
        process.terminate()
        process.wait(timeout=30)


def sign_in(client: httpx.Client, key: str) -> None:
    page = client.get("/ui/")
    token = re.search(r'name="signin" value="([^"]+)"', page.text)
    assert token is not None, page.text[:300]
    done = client.post(
        "/ui/sign-in", data={"key": key, "signin": token.group(1)}, headers={"sec-fetch-site": "same-origin"}
    )
    assert done.status_code == 303, done.text[:300]


def measure(client: httpx.Client, path: Callable[[int], str], rounds: int, *, headers: dict[str, str] | None = None
            ) -> dict[str, float]:  # fmt: skip
    for n in range(3):  # warm-up: first reads of the owner's files or rows, the templates
        client.get(path(n), headers=headers).raise_for_status()
    timings = []
    for n in range(rounds):
        started = time.perf_counter()
        response = client.get(path(n + 3), headers=headers)
        timings.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    timings.sort()
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(timings[max(0, int(len(timings) * 0.95) - 1)], 2),
        "max_ms": round(timings[-1], 2),
        "bytes": len(response.content),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--backend", choices=["files", "postgres"], default="files")
    args = parser.parse_args()
    rng = random.Random(35)
    queries = [json.loads(line)["query"] for line in (HERE / "retrieval" / "queries.jsonl").read_text().splitlines()]
    words = [w for q in queries for w in re.findall(r"[A-Za-z]{4,}", q)]

    if args.backend == "postgres":
        from proxy.testing.postgres import postgres_server

        database: Any = postgres_server()
    else:
        database = nullcontext(None)
    with tempfile.TemporaryDirectory(prefix="memproxy-console-bench-") as temp, database as server:
        overrides: dict[str, Any] = {"store.path": temp}
        if server is not None:
            overrides |= {"store.backend": "postgres", "store.dsn": server.create_database()}
        settings = load_settings(overrides=overrides)
        started = time.perf_counter()
        key, ids = fill(settings, args.memories, rng)
        print(f"filled {args.memories:,} memories, {args.memories:,} history lines, 20 episodes "
              f"({args.backend}) in {time.perf_counter() - started:.1f}s")  # fmt: skip
        with memproxy(settings, args.memories) as root, httpx.Client(base_url=root, timeout=30) as client:
            sign_in(client, key)
            last = (args.memories // 25) * 25
            hx = {"hx-request": "true", "hx-target": "results"}
            pages: list[tuple[str, Callable[[int], str], dict[str, str] | None]] = [
                ("memories, newest first", lambda n: "/ui/memories", None),
                ("memories, last page", lambda n: f"/ui/memories?offset={last}", None),
                ("memories, filtered", lambda n: "/ui/memories?origin=tool&category=preference&pinned=false", None),
                ("search (a question)", lambda n: "/ui/memories?q=" + queries[n % len(queries)], None),
                ("search as you type (htmx)", lambda n: "/ui/memories?q=" + words[n % len(words)], hx),
                (
                    "search, filtered, page 3",
                    lambda n: f"/ui/memories?origin=tool&offset=50&q={words[n % len(words)]}",
                    None,
                ),  # fmt: skip
                ("a memory's page", lambda n: f"/ui/memories/{ids[n % len(ids)]}", None),
                ("review queue (100 held, 50 shown)", lambda n: "/ui/review", None),
                ("episodes", lambda n: "/ui/episodes", None),
                ("sessions", lambda n: "/ui/sessions", None),
                ("a session's page", lambda n: f"/ui/sessions/s-{n % 50}", None),
                ("history search", lambda n: "/ui/history?q=" + queries[n % len(queries)], None),
            ]
            results: dict[str, Any] = {}
            for name, path, headers in pages:
                results[name] = measure(client, path, args.rounds, headers=headers)
            api = httpx.Client(base_url=root, timeout=30, headers={"X-Memproxy-Key": key})
            results["API: GET /memory/memories?q="] = measure(
                api, lambda n: "/memory/memories?limit=25&q=" + queries[n % len(queries)], args.rounds
            )
            api.close()
    width = max(len(name) for name in results)
    print(f"\n{'page':<{width}}  {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'KB':>6}  target p95 <= {TARGET_MS:g} ms")
    missed = 0
    for name, timing in results.items():
        ok = timing["p95_ms"] <= TARGET_MS
        missed += not ok
        print(f"{name:<{width}}  {timing['p50_ms']:>8.1f} {timing['p95_ms']:>8.1f} {timing['max_ms']:>8.1f} "
              f"{timing['bytes'] / 1024:>6.1f}  {'PASS' if ok else 'MISS'}")  # fmt: skip
    write_results(RESULTS, {"memories": args.memories, "backend": args.backend, "rounds": args.rounds,
                            "target_p95_ms": TARGET_MS, "pages": results})  # fmt: skip
    print(f"\n{len(results) - missed}/{len(results)} within target; results: {RESULTS.relative_to(HERE.parent)}")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    main()
