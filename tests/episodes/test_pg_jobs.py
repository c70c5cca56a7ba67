"""The PostgreSQL job queue across replicas: a claim is a lease, renewed while its worker lives and taken over
once it runs out; two replicas' workers run a job once. The queue's contract is in ``test_jobs.py``."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncpg
import orjson
import pytest

from proxy.config import load_settings
from proxy.episodes.extraction import Answer
from proxy.episodes.jobs import Job, new_job
from proxy.episodes.pg_jobs import PostgresJobs
from proxy.episodes.service import EpisodeService
from proxy.memory.backends.pg_episodes import PostgresEpisodes
from proxy.memory.backends.pg_memories import PostgresStore
from proxy.memory.backends.postgres import Database
from proxy.memory.caller import Identity
from proxy.memory.service import MemoryService
from proxy.metrics import Metrics

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]

OpenQueue = Callable[..., PostgresJobs]


def job(session: str = "s-1") -> Job:
    return new_job(
        user="alice",
        workspace="w",
        session_id=session,
        model="gpt-x",
        turns=3,
        transcript="user: hi",
        untrusted=False,
        sources=(),
        now=time.time(),
    )


@pytest.fixture
async def queues(pg_dsn: str) -> AsyncIterator[OpenQueue]:
    """Queues of separate replicas (each its own database object) on one database."""
    opened: list[PostgresJobs] = []

    def build(**options: Any) -> PostgresJobs:
        opened.append(PostgresJobs(Database(pg_dsn), **options))
        return opened[-1]

    yield build
    for queue in opened:
        await queue.aclose()


async def lease_of(dsn: str, job_id: str) -> tuple[Any, Any]:
    """The job's lease and the database's clock now."""
    conn = await asyncpg.connect(dsn)
    try:
        row = await conn.fetchrow(
            "SELECT locked_until, clock_timestamp() AS now FROM extraction_jobs WHERE id = $1", job_id
        )
    finally:
        await conn.close()
    assert row is not None
    return row["locked_until"], row["now"]


async def test_a_held_lease_is_renewed_so_nobody_else_claims_the_job_while_it_runs(queues: OpenQueue) -> None:
    one, two = queues(lease_s=2.0), queues(lease_s=2.0)
    await one.put(claimed := job())
    async with one.claim(claimed) as held:
        assert held
        deadline = time.monotonic() + 3.0  # longer than a lease: it was renewed
        while time.monotonic() < deadline:
            async with two.claim(claimed) as also:
                assert not also
            await asyncio.sleep(0.05)
    async with two.claim(claimed) as held:  # let go at the end: at once, not after a lease
        assert held


HOLDER = """
import asyncio, sys
from proxy.episodes.pg_jobs import PostgresJobs
from proxy.memory.backends.postgres import Database

async def main():
    queue = PostgresJobs(Database(sys.argv[1]), lease_s=float(sys.argv[2]))
    [job] = await queue.all()
    async with queue.claim(job) as held:
        print("held" if held else "refused", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main())
"""


async def test_a_dead_replicas_job_is_claimed_by_another_once_its_lease_runs_out(
    queues: OpenQueue, pg_dsn: str
) -> None:
    survivor = queues()
    await survivor.put(claimed := job())
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, pg_dsn, "3"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stderr is not None
        line = holder.stdout.readline()
        assert line == b"held\n", line or holder.stderr.read().decode()
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.communicate()
    async with survivor.claim(claimed) as held:
        assert not held  # the dead worker's lease still runs
    locked_until, _ = await lease_of(pg_dsn, claimed.id)

    deadline = time.monotonic() + 10
    while True:
        async with survivor.claim(claimed) as held:
            if held:
                _, now = await lease_of(pg_dsn, claimed.id)
                break
        assert time.monotonic() < deadline, "the dead replica's lease never ran out"
        await asyncio.sleep(0.05)
    assert now >= locked_until  # taken over only once the lease had run out, by the database's clock


class SlowExtractor:
    """Answers after a pause long enough for another replica's worker to try the same job meanwhile."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    async def extract(self, messages: list[dict[str, str]], **route: Any) -> Answer:
        self.calls.append(messages[-1]["content"][:40])
        await asyncio.sleep(0.3)
        text = orjson.dumps({"summary": "Moved billing to Rust.", "facts": ["Billing is written in Rust"]}).decode()
        return Answer(text, "openai/gpt-x", prompt_tokens=10, completion_tokens=5)

    async def aclose(self) -> None:
        pass


async def test_two_replicas_workers_run_a_job_once(pg_dsn: str) -> None:
    settings = load_settings(overrides={"store.backend": "postgres", "store.dsn": pg_dsn})
    calls: list[str] = []
    replicas = []
    for _ in range(2):
        database = Database(pg_dsn)
        episodes = PostgresEpisodes(database)
        memory = MemoryService(PostgresStore(database), settings.memory, Metrics(), episodes=episodes)
        replicas.append(
            EpisodeService(
                settings,
                memory,
                episodes,
                PostgresJobs(database),
                SlowExtractor(calls),
                memory.metrics,
                proxy_tools=frozenset(),
            )  # fmt: skip
        )
    one, two = replicas
    try:
        queued = new_job(
            user="alice",
            workspace="w",
            session_id="s-1",
            model="gpt-x",
            turns=3,
            transcript="user: Our billing service is written in Rust\nassistant: ok",
            untrusted=False,
            sources=(),
            now=time.time(),
        )
        await one.jobs.put(queued)  # as the replica where the session ended does

        finished = await asyncio.gather(one.run_due(), two.run_due())

        assert sorted(finished) == [0, 1] and len(calls) == 1
        assert await two.jobs.all() == []
        episodes_seen, _ = await two.of(Identity("alice", "w"))
        assert [e.summary for e in episodes_seen] == ["Moved billing to Rust."]
        assert [m.text for m in await two.memory.search(Identity("alice", "w"))] == ["Billing is written in Rust"]
    finally:
        for service in replicas:
            await service.jobs.aclose()
            await service.memory.aclose()
