"""Ranking time at 10,000 and 100,000 memories per owner through the stores' ``view()``: files and postgres.

Both stores hand the proxy the same in-process :class:`MemoryIndex` per owner (the postgres store keeps its copy
current from the database), so ranking one message should cost the same on either; what differs is getting the
index: the first ``view()`` of a fresh store (a cold start: every row read and indexed) and a ``view()`` when
nothing changed (what each request pays before it ranks). The memories are ``bench/retrieval/run.py``'s synthetic
ones, the messages its queries. The benchmark starts its own PostgreSQL server (as ``bench/overhead.py`` does);
without PostgreSQL's binaries only the files store is measured.

    python bench/ranking_pg.py            # 10,000 and 100,000 memories (a few minutes: seeding is most of it)
    python bench/ranking_pg.py --quick    # 10,000 only

Results also go to ``bench/results/ranking_pg.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loadtest.postgres import DATABASE, start_postgres, stop_all
from retrieval.run import NOW, load, synthetic

from proxy.memory.caller import DEFAULT_WORKSPACE
from proxy.memory.ranking import Query
from proxy.memory.records import Memory, MemoryDraft
from proxy.memory.store import MemoryStore, Owner

RESULTS = Path(__file__).resolve().parent / "results" / "ranking_pg.json"
CHUNK = 2_000  # memories per add_many: one transaction each
ROUNDS = 3  # passes over the queries when timing


def drafts_of(memories: Sequence[Memory]) -> list[MemoryDraft]:
    return [
        MemoryDraft(text=m.text, tags=m.tags, category=m.category, session=m.session, created=m.created)
        for m in memories
    ]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def seed(store: MemoryStore, owner: Owner, drafts: list[MemoryDraft]) -> float:
    began = time.perf_counter()
    for start in range(0, len(drafts), CHUNK):
        await store.add_many(owner, drafts[start : start + CHUNK], max_total=len(drafts))
    return time.perf_counter() - began


async def measure(store: MemoryStore, owner: Owner, messages: list[str], size: int) -> dict[str, Any]:
    """A fresh store's first view, then per message: view() (nothing changed) and ranking on what it returned."""
    began = time.perf_counter()
    index = await store.view(owner)
    cold_s = time.perf_counter() - began
    assert len(index) == size, f"expected {size} memories in the view, found {len(index)}"
    for message in messages[:20]:  # warm the stemmer cache, as a running proxy has
        index.rank(Query.of(message), now=NOW, limit=20)
    view_ms, rank_ms = [], []
    for _ in range(ROUNDS):
        for message in messages:
            began = time.perf_counter()
            index = await store.view(owner)
            viewed = time.perf_counter()
            index.rank(Query.of(message), now=NOW, limit=20)
            view_ms.append((viewed - began) * 1000)
            rank_ms.append((time.perf_counter() - viewed) * 1000)
    return {
        "first_view_s": cold_s,
        "view_p50_ms": percentile(view_ms, 0.5),
        "view_p99_ms": percentile(view_ms, 0.99),
        "rank_mean_ms": statistics.fmean(rank_ms),
        "rank_p50_ms": percentile(rank_ms, 0.5),
        "rank_p99_ms": percentile(rank_ms, 0.99),
    }


async def run_size(
    size: int, memories: list[Memory], messages: list[str], files_dir: Path, dsn: str | None
) -> dict[str, dict[str, Any]]:
    from proxy.memory.backends.files import FilesStore

    drafts = drafts_of(synthetic(memories, size, random.Random(42)))
    owner = Owner(f"ranking-{size}", DEFAULT_WORKSPACE)
    out: dict[str, dict[str, Any]] = {}
    seeded = await seed(FilesStore(files_dir), owner, drafts)
    out["files"] = {"seed_s": seeded, **await measure(FilesStore(files_dir), owner, messages, size)}
    if dsn is not None:
        from proxy.memory.backends.pg_memories import PostgresStore
        from proxy.memory.backends.postgres import Database

        database = Database(dsn, command_timeout_s=300)
        try:
            seeded = await seed(PostgresStore(database), owner, drafts)
            fresh = PostgresStore(database)  # its own views: the first view() reads every row
            out["postgres"] = {"seed_s": seeded, **await measure(fresh, owner, messages, size)}
        finally:
            await database.aclose()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10,000 memories only")
    parser.add_argument("--no-postgres", action="store_true", help="the files store only")
    args = parser.parse_args(argv)
    memories = [Memory.from_json(line) for line in load("memories.jsonl")]
    messages = [q["query"] for q in load("queries.jsonl")]
    sizes = [10_000] if args.quick else [10_000, 100_000]
    dsn = None
    if not args.no_postgres:
        server, why = start_postgres()
        if server is None:
            print(f"postgres: skipped: {why}", file=sys.stderr)
        else:
            dsn = server.dsn(DATABASE)
    results: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="memproxy-ranking-") as scratch:
            for size in sizes:
                results[str(size)] = asyncio.run(run_size(size, memories, messages, Path(scratch) / str(size), dsn))
    finally:
        stop_all()
    print(
        f"{'memories':>9} {'store':<9} {'seed s':>7} {'1st view s':>10} {'view p50 ms':>11} "
        f"{'rank p50 ms':>11} {'rank p99 ms':>11} {'rank mean ms':>12}"
    )
    for count, per_store in results.items():
        for store, row in per_store.items():
            print(
                f"{int(count):>9,} {store:<9} {row['seed_s']:>7.1f} {row['first_view_s']:>10.2f} "
                f"{row['view_p50_ms']:>11.3f} {row['rank_p50_ms']:>11.3f} {row['rank_p99_ms']:>11.3f} "
                f"{row['rank_mean_ms']:>12.3f}"
            )
    print(f"(one message ranked, limit 20, {len(messages)} messages x {ROUNDS}; view = store.view() before each)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
