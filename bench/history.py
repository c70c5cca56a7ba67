"""What keeping history costs: on the request path, in the background writer, and per search.

    python bench/history.py [--turns 200] [--lines 20000]

1. The request path: ``EpisodeService.observe`` for one new turn of a growing conversation, history on and off
   (the difference is what a request pays: a queue append; rendering and writing happen later).
2. The background: a conversation of ``--turns`` turns noted turn by turn, then flushed: lines written, seconds,
   and the bytes on disk (linear in the conversation: every message once).
3. A search over ``--lines`` lines of one owner (files backend): the first (reads the file) and a later one.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proxy.config import load_settings  # noqa: E402
from proxy.memory.backends.history_files import FilesHistory  # noqa: E402
from proxy.memory.caller import Identity  # noqa: E402
from proxy.memory.history import HistoryLine  # noqa: E402
from proxy.memory.store import Owner  # noqa: E402
from proxy.services import build_services  # noqa: E402

WORDS = ["deploy", "nomad", "postgres", "staging", "tabs", "lisbon", "porto", "sister", "cat", "pixel", "kubernetes"]


def sentence(n: int) -> str:
    return " ".join(WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(12)) + f" number {n}."


async def request_path(data: Path, turns: int, enabled: bool) -> list[float]:
    settings = load_settings(overrides={"store.path": str(data), "history.enabled": enabled})
    services = build_services(settings)
    caller = Identity("bench", "w")
    conversation: list[dict[str, str]] = [{"role": "system", "content": "You are a helpful assistant."}]
    timings = []
    for n in range(turns):
        conversation = [*conversation, {"role": "user", "content": sentence(n)}]
        start = time.perf_counter_ns()
        services.episodes.observe(caller, "s1", conversation)
        timings.append((time.perf_counter_ns() - start) / 1000)
        conversation = [*conversation, {"role": "assistant", "content": sentence(n + 1)}]
    assert services.episodes.history is not None
    started = time.perf_counter()
    await services.episodes.history.flush()
    flushed = time.perf_counter() - started
    if enabled:
        files = list(data.rglob("history.jsonl"))
        size = sum(f.stat().st_size for f in files)
        lines = sum(len(f.read_bytes().splitlines()) for f in files)
        print(f"  background: {lines} lines for {turns} turns written in {flushed * 1000:.0f} ms, {size} bytes on disk")
    await services.episodes.history.aclose()
    return timings


async def search(data: Path, count: int) -> None:
    store = FilesHistory(data)
    owner = Owner("bench", "w")
    lines = [HistoryLine(f"s{n // 50}", n % 50 + 1, "user", time.time(), sentence(n)) for n in range(count)]
    for start in range(0, count, 1000):
        await store.append(owner, lines[start : start + 1000])
    fresh = FilesHistory(data)
    for label in ("first search (reads the file)", "later search"):
        started = time.perf_counter()
        index = await fresh.view(owner)
        found = index.search("sister pixel refund", limit=5)
        print(f"  {label} over {len(index)} lines: {(time.perf_counter() - started) * 1000:.1f} ms, {len(found)} found")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--lines", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        print(f"request path, observe() per new turn, {args.turns} turns:")
        for enabled in (False, True):
            timings = await request_path(Path(scratch) / f"on-{enabled}", args.turns, enabled)
            print(
                f"  history {'on ' if enabled else 'off'}: p50 {statistics.median(timings):.1f} us,"
                f" p99 {sorted(timings)[int(len(timings) * 0.99) - 1]:.1f} us"
            )
        print("search:")
        await search(Path(scratch) / "search", args.lines)


if __name__ == "__main__":
    asyncio.run(main())
