"""The PostgreSQL backend as a team runs it: many replicas on one database, a database that goes away or slows.

Each ``replica()`` is a store with a database object (a pool and a listener) of its own, as another proxy
process has. The store contract itself is in ``test_files_store.py``, run on both backends.
"""

from __future__ import annotations

import asyncio
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import asyncpg
import pytest

from proxy.config import MemorySettings
from proxy.errors import StoreUnavailable
from proxy.memory.backends.pg_memories import PostgresStore
from proxy.memory.backends.pg_schema import MIGRATIONS
from proxy.memory.backends.postgres import Database
from proxy.memory.caller import Identity
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import MemoryDraft
from proxy.memory.service import MemoryService
from proxy.memory.store import Owner
from proxy.testing.postgres import postgres_server

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
ALICE = Owner("alice", "w")
MAX = 1000
REPLICA_DELAY_S = 1.0  # what the design promises: a write in one replica is in every other's cache by then
UNAVAILABLE = [(b"x-memproxy-memory", b"unavailable")]
DEADLINE_S = MemorySettings().store_deadline_ms / 1000

Replica = Callable[..., PostgresStore]


@pytest.fixture
async def replica(pg_dsn: str) -> AsyncIterator[Replica]:
    opened: list[PostgresStore] = []

    def build(dsn: str = pg_dsn) -> PostgresStore:
        opened.append(PostgresStore(Database(dsn, connect_timeout_s=2.0)))
        return opened[-1]

    yield build
    for store in opened:
        await store.aclose()


async def eventually(check: Callable[[], bool], *, within: float, what: str) -> float:
    """Seconds until ``check()`` holds, polled every millisecond; fails past ``within``."""
    start = time.perf_counter()
    while not check():
        assert time.perf_counter() - start < within, f"{what}: not within {within} s"
        await asyncio.sleep(0.001)
    return time.perf_counter() - start


def holds(store: PostgresStore, owner: Owner, condition: Callable[[MemoryIndex], bool]) -> Callable[[], bool]:
    """The store's cache (no query) is trusted and satisfies ``condition``."""

    def check() -> bool:
        index = store.cached(owner)
        return index is not None and condition(index)

    return check


async def draft(store: PostgresStore, text: str, owner: Owner = ALICE) -> str:
    return (await store.add(owner, MemoryDraft(text), max_total=MAX)).id


# -- replicas -------------------------------------------------------------------------------------------------


async def test_a_write_in_one_replica_reaches_anothers_cache_within_a_second(replica: Replica) -> None:
    """The cache, not ``view``: what a chat request ranks from without a query. Adds, supersedes and deletes."""
    writer, reader = replica(), replica()
    await reader.view(ALICE)
    assert reader.cached(ALICE) is not None
    delays = []
    for number in range(20):
        memory_id = await draft(writer, f"Deploys service {number} with Nomad")
        delays.append(
            await eventually(
                holds(reader, ALICE, lambda index, m=memory_id: index.is_live(m)),  # type: ignore[misc]
                within=REPLICA_DELAY_S,
                what=f"add {number}",
            )
        )
    old = await draft(writer, "Deploys with Fabric")
    new = await writer.add(ALICE, MemoryDraft("Deploys with Ansible"), max_total=MAX, supersedes=[old])
    delays.append(
        await eventually(
            holds(reader, ALICE, lambda index: index.is_live(new.id) and not index.is_live(old)),
            within=REPLICA_DELAY_S,
            what="supersede",
        )
    )
    assert await writer.delete(ALICE, [new.id]) == [new.id]
    delays.append(
        await eventually(
            holds(reader, ALICE, lambda index: index.get(new.id) is None), within=REPLICA_DELAY_S, what="delete"
        )
    )
    assert statistics.median(delays) < REPLICA_DELAY_S / 10  # typically well under a millisecond


async def test_a_view_right_after_another_replicas_write_shows_it(replica: Replica) -> None:
    """``view`` asks the database for the owner's version: exact, however late a notification is."""
    writer, reader = replica(), replica()
    await reader.view(ALICE)
    for number in range(20):
        memory_id = await draft(writer, f"memory {number}")
        assert (await reader.view(ALICE)).is_live(memory_id), number


async def test_two_replicas_adding_at_once_lose_nothing_and_share_no_id(replica: Replica) -> None:
    one, two = replica(), replica()
    added = await asyncio.gather(*(draft(store, f"memory {n}") for n, store in enumerate([one, two] * 20)))
    assert len(set(added)) == 40
    for store in (one, two, replica()):
        assert {m.id for m in await store.view(ALICE)} == set(added)


async def test_a_replicas_prune_reaches_the_others(replica: Replica) -> None:
    writer, reader = replica(), replica()
    first = await writer.add(ALICE, MemoryDraft("the first"), max_total=2)
    await writer.add(ALICE, MemoryDraft("the second"), max_total=2)
    await reader.view(ALICE)
    third = await writer.add(ALICE, MemoryDraft("the third"), max_total=2)
    await eventually(
        holds(reader, ALICE, lambda index: index.get(first.id) is None and index.is_live(third.id)),
        within=REPLICA_DELAY_S,
        what="prune",
    )
    assert len(await reader.view(ALICE)) == 2


async def test_without_its_listener_a_replica_checks_the_database_until_it_listens_again(
    replica: Replica, pg_dsn: str
) -> None:
    writer, reader = replica(), replica()
    await draft(writer, "before")
    await reader.view(ALICE)
    assert reader.cached(ALICE) is not None
    listener = reader.database._listener
    assert listener is not None
    admin = await asyncpg.connect(pg_dsn)
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", listener.get_server_pid())
    finally:
        await admin.close()

    await eventually(lambda: reader.cached(ALICE) is None, within=5, what="the lost listener noticed")
    during = await draft(writer, "while the listener is down")
    assert (await reader.view(ALICE)).is_live(during)  # exact without notifications too
    await eventually(lambda: reader.database.listening, within=5, what="the listener back")
    await reader.view(ALICE)
    after = await draft(writer, "after it came back")
    await eventually(
        holds(reader, ALICE, lambda index: index.is_live(after)), within=REPLICA_DELAY_S, what="notified again"
    )


# -- failing open -----------------------------------------------------------------------------------------------


def closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens there once the socket is closed


async def test_a_database_that_is_not_there_costs_a_chat_request_its_memory_and_a_write_a_503(
    replica: Replica,
) -> None:
    store = replica(f"postgresql://memproxy@127.0.0.1:{closed_port()}/nowhere")
    service = MemoryService(store, MemorySettings())
    started = time.perf_counter()
    prepared = await service.prepare(Identity("alice", "w"), [{"role": "user", "content": "hi"}], "s-1")
    assert prepared.headers == UNAVAILABLE
    assert time.perf_counter() - started < 30  # not the minutes of a connect timeout
    with pytest.raises(StoreUnavailable) as caught:  # what the management API answers with a 503
        await store.add(ALICE, MemoryDraft("Prefers tabs"), max_total=MAX)
    assert caught.value.status == 503 and "PostgreSQL" in caught.value.message
    with pytest.raises(StoreUnavailable):
        await store.view(ALICE)


async def test_a_database_slower_than_the_deadline_costs_a_request_its_memory_not_the_request(
    replica: Replica, pg_dsn: str
) -> None:
    store = replica()
    await draft(store, "Prefers tabs")
    service = MemoryService(store, MemorySettings())
    bob = Identity("bob", "w")  # nothing of bob's is cached: his request must read
    admin = await asyncpg.connect(pg_dsn)
    try:
        locked = admin.transaction()
        await locked.start()
        await admin.execute("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE")  # every read of it waits
        started = time.perf_counter()
        prepared = await service.prepare(bob, [{"role": "user", "content": "tabs or spaces?"}], "s-1")
        waited = time.perf_counter() - started
        assert prepared.headers == UNAVAILABLE
        assert DEADLINE_S <= waited < 30  # the deadline, not the lock's release
        await locked.rollback()
    finally:
        await admin.close()
    prepared = await service.prepare(bob, [{"role": "user", "content": "tabs or spaces?"}], "s-1")
    assert prepared.headers != UNAVAILABLE


async def test_a_replica_fails_open_while_the_database_is_down_and_recovers_when_it_is_back() -> None:
    """A server of its own, stopped and started again under a running store."""
    with postgres_server(in_memory=True) as server:
        store = PostgresStore(Database(server.dsn(), connect_timeout_s=2.0))
        service = MemoryService(store, MemorySettings())
        alice = Identity("alice", "w")
        try:
            await store.add(ALICE, MemoryDraft("Staging runs Postgres 16"), max_total=MAX)
            question = [{"role": "user", "content": "which Postgres runs on staging?"}]
            assert (await service.prepare(alice, question, "s-1")).headers != UNAVAILABLE

            server.stop()
            await eventually(lambda: not store.database.listening, within=5, what="the listener's loss")
            assert (await service.prepare(alice, question, "s-1")).headers == UNAVAILABLE
            with pytest.raises(StoreUnavailable):
                await store.add(ALICE, MemoryDraft("Production runs Postgres 15"), max_total=MAX)

            server.start()
            assert server.ready()
            assert await store.add(ALICE, MemoryDraft("Production runs Postgres 15"), max_total=MAX)
            assert (await service.prepare(alice, question, "s-1")).headers != UNAVAILABLE
            await eventually(lambda: store.database.listening, within=10, what="the listener back")
        finally:
            await service.aclose()


# -- schema -----------------------------------------------------------------------------------------------------

STARTER = """
import asyncio, sys
from proxy.memory.backends.postgres import Database

async def main():
    database = Database(sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()
    await database.start()
    print("applied " + ",".join(database.migrated), flush=True)
    await database.aclose()

asyncio.run(main())
"""


async def test_replicas_starting_together_run_each_migration_once(pg_dsn: str) -> None:
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", STARTER, pg_dsn],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    try:
        for process in processes:
            assert process.stdout is not None and process.stdout.readline() == b"ready\n"
        for process in processes:  # released as close together as the test can
            assert process.stdin is not None
            process.stdin.write(b"go\n")
            process.stdin.flush()
        outputs = [process.communicate(timeout=60) for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert [process.returncode for process in processes] == [0, 0, 0], [err.decode() for _, err in outputs]
    applied = sorted(out.decode().removeprefix("applied").strip() for out, _ in outputs)
    assert applied == ["", "", ",".join(name for name, _ in MIGRATIONS)]  # one replica migrated, the others waited
    conn = await asyncpg.connect(pg_dsn)
    try:
        rows = await conn.fetch("SELECT name FROM schema_migrations ORDER BY name")
    finally:
        await conn.close()
    assert [row["name"] for row in rows] == [name for name, _ in MIGRATIONS]


async def test_a_schema_newer_than_the_code_stops_start_up_with_one_line(pg_dsn: str) -> None:
    database = Database(pg_dsn)
    await database.start()
    await database.aclose()
    conn = await asyncpg.connect(pg_dsn)
    try:
        await conn.execute("INSERT INTO schema_migrations (name, applied_by) VALUES ('9999_from_the_future', 'x')")
    finally:
        await conn.close()

    with pytest.raises(StoreUnavailable) as caught:
        await Database(pg_dsn).start()
    assert "9999_from_the_future" in caught.value.message and "upgrade memproxy" in caught.value.message
    assert "\n" not in caught.value.message


async def test_a_second_start_applies_nothing(pg_dsn: str) -> None:
    first, second = Database(pg_dsn), Database(pg_dsn)
    await first.start()
    await second.start()
    assert (first.migrated, second.migrated) == ([name for name, _ in MIGRATIONS], [])
    await first.aclose()
    await second.aclose()


# -- durability -------------------------------------------------------------------------------------------------

ADDER = """
import asyncio, sys
from proxy.memory.backends.pg_memories import PostgresStore
from proxy.memory.backends.postgres import Database
from proxy.memory.records import MemoryDraft
from proxy.memory.store import Owner


async def main():
    store = PostgresStore(Database(sys.argv[1]))
    number = 0
    while True:
        number += 1
        memory = await store.add(Owner("alice", "w"), MemoryDraft(f"memory {number}"), max_total=1000)
        print("ok " + memory.id, flush=True)

asyncio.run(main())
"""


async def test_an_acknowledged_memory_survives_kill_9_of_its_replica(pg_dsn: str, replica: Replica) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", ADDER, pg_dsn], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        acked: list[str] = []
        while len(acked) < 30:
            line = process.stdout.readline().decode()
            if not line:
                pytest.fail(f"the adder stopped early: {process.stderr.read().decode()}")
            acked.append(line.split()[1])
        process.send_signal(signal.SIGKILL)
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGKILL
    acked += [line.split()[1] for line in out.decode().splitlines() if line.startswith("ok ")]
    stored = {m.id for m in await replica().view(ALICE)}
    assert set(acked) <= stored


async def test_the_database_holds_a_keys_hash_never_the_key(pg_dsn: str) -> None:
    from proxy.auth.keys import create_key
    from proxy.memory.backends.pg_keys import PostgresKeys

    store = PostgresKeys(Database(pg_dsn))
    try:
        record, key = await create_key(store, "ada", "personal")
    finally:
        await store.aclose()
    conn = await asyncpg.connect(pg_dsn)
    try:
        dumped = str([tuple(row) for row in await conn.fetch("SELECT * FROM api_keys")])
    finally:
        await conn.close()
    assert record.hash in dumped and key not in dumped and key[3:] not in dumped
