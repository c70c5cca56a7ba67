"""What the admin counts cost at 10,000 memories over hundreds of owners: ``GET /memory/users``' census, the held
count the console's navigation asks on every page (an admin's: everyone; a user's: their own), files and postgres.

The store gets ``--owners`` users (one workspace each, a tenth of them with a second one) sharing ``--memories``
memories, plus an episode per owner and a few history lines; one owner in ``--held-every`` (20) has every tenth
memory and its episode held for review (untrusted sessions are a minority; ``--held-every 1``: all of them).
Each count is timed cold (a new census: every file read) and warm (nothing changed: what a console page pays), as
medians of ``--rounds`` calls. The benchmark starts its own PostgreSQL server (as ``bench/ranking_pg.py``
does); without PostgreSQL's binaries only the files store is measured.

    python bench/admin_counts.py                       # 10,000 memories, 300 owners
    python bench/admin_counts.py --owners 1000

Results also go to ``bench/results/admin_counts.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from loadtest.postgres import DATABASE, start_postgres, stop_all

from proxy.memory.backends.census_files import FilesCensus
from proxy.memory.backends.episode_files import FilesEpisodes
from proxy.memory.backends.files import FilesStore
from proxy.memory.backends.history_files import FilesHistory
from proxy.memory.census import EVERYONE, Census, UserScope
from proxy.memory.episodes import Episode, EpisodeStore, episode_id
from proxy.memory.history import HistoryLine, HistoryStore
from proxy.memory.provenance import TRUSTED, Provenance
from proxy.memory.records import MemoryDraft
from proxy.memory.store import MemoryStore, Owner

RESULTS = Path(__file__).resolve().parent / "results" / "admin_counts.json"
HELD = Provenance(True, ("web_fetch",))


def owners_of(count: int) -> list[Owner]:
    owners = [Owner(f"user-{n}", "default") for n in range(count)]
    return owners + [Owner(f"user-{n}", "second") for n in range(0, count, 10)]


async def seed(
    memories: MemoryStore,
    episodes: EpisodeStore,
    history: HistoryStore,
    owners: list[Owner],
    total: int,
    held_every: int = 20,
) -> None:
    per_owner = max(1, total // len(owners))
    for number, owner in enumerate(owners):
        assert owner.user is not None and owner.workspace is not None
        drafts = [
            MemoryDraft(
                text=f"{owner.user} fact {i}: the service {i} runs on port {8000 + i} in region {i % 7}",
                provenance=HELD if i % 10 == 0 and number % held_every == 0 else TRUSTED,
            )
            for i in range(per_owner)
        ]
        await memories.add_many(owner, drafts, max_total=per_owner + 1)
        await episodes.put(
            owner,
            Episode(
                id=episode_id(owner.user, owner.workspace, "s1"),
                session_id="s1",
                user=owner.user,
                workspace=owner.workspace,
                turns=3,
                created_at=time.time(),
                summary="A session.",
                facts=(),
                provenance=HELD if number % held_every == 0 else TRUSTED,
            ),
        )
        await history.append(owner, [HistoryLine("s1", turn, "user", time.time(), f"turn {turn}") for turn in (1, 2)])


async def median_ms(call: Callable[[], Awaitable[Any]], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        await call()
        times.append((time.perf_counter() - began) * 1000)
    return round(statistics.median(times), 2)


async def measure(make: Callable[[], Census], rounds: int) -> dict[str, float]:
    one = UserScope(users=frozenset({"user-7"}))
    results = {}
    cold = make()
    began = time.perf_counter()
    tallies = await cold.tallies()
    results["users_cold_ms"] = round((time.perf_counter() - began) * 1000, 2)
    results["owners"] = len(tallies)
    results["memories"] = sum(t.memories + t.held + t.superseded for t in tallies.values())
    results["users_warm_ms"] = await median_ms(cold.tallies, rounds)
    results["held_everyone_ms"] = await median_ms(lambda: cold.held(EVERYONE), rounds)
    results["held_one_user_ms"] = await median_ms(lambda: cold.held(one), rounds)
    results["held_everyone_cold_ms"] = await median_ms(lambda: make().held(EVERYONE), 1)
    await cold.aclose()
    return results


async def run_files(root: Path, owners: list[Owner], total: int, rounds: int, held: int) -> dict[str, float]:
    store, episodes, history = FilesStore(root), FilesEpisodes(root), FilesHistory(root)
    await seed(store, episodes, history, owners, total, held)
    await store.aclose()
    await episodes.aclose()
    await history.aclose()
    return await measure(lambda: FilesCensus(root), rounds)


async def run_postgres(dsn: str, owners: list[Owner], total: int, rounds: int, held: int) -> dict[str, float]:
    from proxy.memory.backends.pg_census import PostgresCensus
    from proxy.memory.backends.pg_episodes import PostgresEpisodes
    from proxy.memory.backends.pg_history import PostgresHistory
    from proxy.memory.backends.pg_memories import PostgresStore
    from proxy.memory.backends.postgres import Database

    database = Database(dsn)
    store, episodes, history = PostgresStore(database), PostgresEpisodes(database), PostgresHistory(database)
    await seed(store, episodes, history, owners, total, held)
    async with database.connection() as conn:
        await conn.execute("ANALYZE")
    censuses: list[Census] = []

    def make() -> Census:
        census = PostgresCensus(database)
        censuses.append(census)
        return census

    try:
        return await measure(make, rounds)
    finally:
        for census in censuses[1:]:
            await census.aclose()
        await history.aclose()
        await episodes.aclose()
        await store.aclose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--owners", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--held-every", type=int, default=20, help="one owner in this many has held memories")
    args = parser.parse_args(argv)
    owners = owners_of(args.owners)
    results: dict[str, Any] = {"memories": args.memories, "users": args.owners, "owners": len(owners),
                               "held_every": args.held_every}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="memproxy-admin-bench-") as root:
        results["files"] = asyncio.run(run_files(Path(root), owners, args.memories, args.rounds, args.held_every))
    print("files   ", results["files"])
    server, why = start_postgres()
    try:
        if server is None:
            print(f"postgres: not measured ({why})")
        else:
            results["postgres"] = asyncio.run(
                run_postgres(server.dsn(DATABASE), owners, args.memories, args.rounds, args.held_every)
            )
            print("postgres", results["postgres"])
    finally:
        stop_all()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
