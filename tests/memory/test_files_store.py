"""The memory store: a contract every backend meets, then what the embedded files backend adds.

Contract tests only use the :class:`~proxy.memory.store.MemoryStore` protocol, through the ``store`` and
``backend`` fixtures (``backend.open()`` is a new store object on the same storage: what a restarted or a
second proxy process builds). To run them against another backend, add it to ``BACKENDS`` and to
``_make_backend``. Files-specific tests look at the files and use real processes (``tests/memory/store_worker.py``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path

import orjson
import pytest

from proxy.errors import StoreUnavailable
from proxy.memory.backends import files as files_module
from proxy.memory.backends.files import FilesStore
from proxy.memory.provenance import Provenance
from proxy.memory.ranking import MemoryIndex
from proxy.memory.records import Embedding, Memory, MemoryDraft
from proxy.memory.store import GLOBAL, MemoryStore, Owner

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
ALICE = Owner("alice", "w")
MAX = 1000  # max_total where a test does not care about pruning


# -- backends -----------------------------------------------------------------------------------------------


class Backend:
    """One backing storage; ``open()`` builds another store object on it, as a restarted process would."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._opened: list[MemoryStore] = []

    def _build(self) -> MemoryStore:
        raise NotImplementedError

    def open(self) -> MemoryStore:
        store = self._build()
        self._opened.append(store)
        return store

    async def aclose(self) -> None:
        for store in self._opened:
            await store.aclose()


class FilesBackend(Backend):
    def __init__(self, root: Path) -> None:
        super().__init__("files")
        self.root = root

    def _build(self) -> MemoryStore:
        return FilesStore(self.root)


class PostgresBackend(Backend):
    """Each store has a database object (a pool, a listener) of its own: another replica, as far as it knows."""

    def __init__(self, dsn: str) -> None:
        super().__init__("postgres")
        self.dsn = dsn

    def _build(self) -> MemoryStore:
        from proxy.memory.backends.pg_memories import PostgresStore
        from proxy.memory.backends.postgres import Database

        return PostgresStore(Database(self.dsn))


BACKENDS = ["files", "postgres"]


def _make_backend(name: str, tmp_path: Path, request: pytest.FixtureRequest) -> Backend:
    if name == "files":
        return FilesBackend(tmp_path / "data")
    if name == "postgres":
        return PostgresBackend(request.getfixturevalue("pg_dsn"))  # a server of the tests' own: never skipped
    raise AssertionError(f"unknown backend {name}")


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    made = _make_backend(request.param, tmp_path, request)
    yield made
    await made.aclose()


@pytest.fixture
def store(backend: Backend) -> MemoryStore:
    return backend.open()


# -- helpers ------------------------------------------------------------------------------------------------


def number_of(memory_id: str) -> int:
    match = re.fullmatch(r"m-([1-9][0-9]*)", memory_id)
    assert match, f"{memory_id!r} is not an id of the form m-<n>"
    return int(match.group(1))


async def add(store: MemoryStore, text: str, owner: Owner = ALICE, *, max_total: int = MAX) -> Memory:
    return await store.add(owner, MemoryDraft(text), max_total=max_total)


async def ids_in(store: MemoryStore, owner: Owner = ALICE) -> set[str]:
    return {memory.id for memory in await store.view(owner)}


def snapshot(view: MemoryIndex) -> tuple[dict[str, Memory], set[str]]:
    """A copy of what a view holds (views may be updated in place by later writes): memories, and the live ids."""
    memories = {memory.id: memory for memory in view}
    return memories, {memory_id for memory_id in memories if view.is_live(memory_id)}


# -- contract: every backend --------------------------------------------------------------------------------


async def test_an_added_memory_comes_back_with_every_field(backend: Backend, store: MemoryStore) -> None:
    draft = MemoryDraft(
        text="Prefers tabs over spaces in Go code",
        scope="user",
        tags=("style", "go"),
        category="preference",
        source="inferred",
        confidence=0.7,
        session="session-1",
        created=1_700_000_000.123,
    )
    before = time.time()
    kept_ts = await store.add(ALICE, draft, max_total=MAX)
    now_ts = await store.add(ALICE, MemoryDraft("Runs tests with pytest -q", session=None), max_total=MAX)
    after = time.time()

    assert kept_ts == Memory(
        id=kept_ts.id,
        text="Prefers tabs over spaces in Go code",
        scope="user",
        tags=("style", "go"),
        category="preference",
        source="inferred",
        confidence=0.7,
        created=1_700_000_000.123,
        session="session-1",
        superseded_by=None,
        use_count=0,
        last_used=None,
        version=1,
        change="created",
        changed=kept_ts.changed,  # a memory that brings its own time (an import's) was created by this write now
    )
    assert kept_ts.changed is not None and before - 0.001 <= kept_ts.changed <= after + 0.001
    assert now_ts == Memory(id=now_ts.id, text="Runs tests with pytest -q", created=now_ts.created)  # the defaults
    assert before - 0.001 <= now_ts.created <= after + 0.001  # stamped now, to the millisecond
    assert (now_ts.version, now_ts.change, now_ts.changed_at) == (1, "created", now_ts.created)
    assert number_of(kept_ts.id) != number_of(now_ts.id)

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert [view.get(kept_ts.id), view.get(now_ts.id)] == [kept_ts, now_ts]
        assert sorted(view, key=lambda m: m.id) == sorted([kept_ts, now_ts], key=lambda m: m.id)
        assert len(view) == 2
        assert view.is_live(kept_ts.id) and view.is_live(now_ts.id)


async def test_ids_are_distinct_even_for_concurrent_adds(backend: Backend, store: MemoryStore) -> None:
    added = await asyncio.gather(*(add(store, f"concurrent memory {i}") for i in range(40)))

    numbers = [number_of(memory.id) for memory in added]
    assert len(set(numbers)) == 40
    assert await ids_in(store) == {memory.id for memory in added}
    assert await ids_in(backend.open()) == {memory.id for memory in added}


async def test_a_superseded_memory_is_kept_but_no_longer_live(backend: Backend, store: MemoryStore) -> None:
    old = await add(store, "Deploys with Fabric")
    new = await add(store, "Deploys with Ansible")

    assert await store.replace(ALICE, [dataclasses.replace(old, superseded_by=new.id)])

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert not view.is_live(old.id)
        assert view.is_live(new.id)
        assert len(view) == 1
        assert view.get(old.id) == dataclasses.replace(old, superseded_by=new.id)
        assert {memory.id for memory in view} == {old.id, new.id}


async def test_an_add_can_supersede_in_the_same_write(backend: Backend, store: MemoryStore) -> None:
    old = await add(store, "Deploys with Fabric")
    other = await add(store, "Deploys to eu-west-1")
    new = await store.add(ALICE, MemoryDraft("Deploys with Ansible"), max_total=MAX, supersedes=[old.id, "m-999999"])

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        retired = view.get(old.id)
        assert retired is not None and retired.changed is not None
        # The supersede is a version of the old memory, by the new memory's writer, made in the same write.
        assert retired == dataclasses.replace(
            old, superseded_by=new.id, version=2, change="superseded", changed=retired.changed, actor=new.changed_by
        )
        assert {m.id for m in view if view.is_live(m.id)} == {other.id, new.id}


async def test_an_add_at_max_total_that_supersedes_prunes_the_superseded_first(store: MemoryStore) -> None:
    old = await add(store, "Deploys with Fabric", max_total=2)
    kept = await add(store, "Deploys to eu-west-1", max_total=2)
    new = await store.add(ALICE, MemoryDraft("Deploys with Ansible"), max_total=2, supersedes=[old.id])
    assert await ids_in(store) == {kept.id, new.id}


async def test_use_counts_add_up_on_the_current_version(backend: Backend, store: MemoryStore) -> None:
    memory = await add(store, "Uses black")
    successor = await add(store, "Uses ruff format")
    assert await store.replace(ALICE, [dataclasses.replace(memory, superseded_by=successor.id)])
    await store.count_uses(ALICE, {memory.id: (2, 1_700_000_000.0), "m-999999": (1, 1_700_000_000.0)})
    await backend.open().count_uses(ALICE, {memory.id: (1, 1_700_000_100.0)})  # another process, same file

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        counted = view.get(memory.id)
        assert counted is not None
        assert (counted.use_count, counted.last_used, counted.superseded_by) == (3, 1_700_000_100.0, successor.id)
        assert view.get("m-999999") is None


async def test_injection_counts_add_up_on_the_current_version_and_change_nothing_else(
    backend: Backend, store: MemoryStore
) -> None:
    memory = await add(store, "Uses black")
    successor = await add(store, "Uses ruff format")
    assert await store.replace(ALICE, [dataclasses.replace(memory, superseded_by=successor.id)])
    await store.count_uses(ALICE, {memory.id: (1, 1_700_000_000.0)})
    await store.count_injected(ALICE, {memory.id: (2, 1_700_000_050.0), "m-999999": (1, 1_700_000_050.0)})
    await backend.open().count_injected(ALICE, {memory.id: (1, 1_700_000_100.0)})  # another process, same store

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        counted = view.get(memory.id)
        assert counted is not None
        assert (counted.injected_count, counted.last_injected) == (3, 1_700_000_100.0)
        assert counted == dataclasses.replace(
            memory,
            superseded_by=successor.id,
            use_count=1,
            last_used=1_700_000_000.0,
            injected_count=3,
            last_injected=1_700_000_100.0,
        )
        assert view.get("m-999999") is None
        assert view.get(successor.id) == successor


async def test_an_embedding_is_stored_with_its_memory_and_given_later_on_the_current_version(
    backend: Backend, store: MemoryStore
) -> None:
    vector = bytes(range(256)) * 3  # 384 float16 values
    embedded = await store.add(
        ALICE, MemoryDraft("Lives in Lisbon", embedding=Embedding("mini", vector)), max_total=MAX
    )
    memory = await add(store, "Uses black")
    successor = await add(store, "Uses ruff format")
    assert await store.replace(ALICE, [dataclasses.replace(memory, superseded_by=successor.id)])
    later = Embedding("mini", vector[::-1])
    await backend.open().set_embeddings(ALICE, {memory.id: later, "m-999999": later})  # another process

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert view.get(embedded.id) == embedded and embedded.embedding == Embedding("mini", vector)
        given = view.get(memory.id)
        assert given is not None
        assert (given.embedding, given.superseded_by) == (later, successor.id)  # the supersede is kept
        assert view.get("m-999999") is None


async def test_a_replace_stores_the_new_version_of_every_field(backend: Backend, store: MemoryStore) -> None:
    memory = await add(store, "Uses black")
    used = memory.used(1_700_000_100.5)
    edited = dataclasses.replace(used, text="Uses ruff format", tags=("formatter",), confidence=0.9)

    assert await store.replace(ALICE, [used])
    assert await store.replace(ALICE, [edited])

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert view.get(memory.id) == edited
        assert view.is_live(memory.id)
        assert len(view) == 1


async def test_replacing_an_unknown_or_deleted_memory_returns_false_and_changes_nothing(
    backend: Backend, store: MemoryStore
) -> None:
    kept = await add(store, "Kept")
    gone = await add(store, "Deleted before the replace")
    assert await store.delete(ALICE, [gone.id]) == [gone.id]
    before = snapshot(await store.view(ALICE))

    assert await store.replace(ALICE, [Memory(id="m-987654321", text="never stored")]) == []
    assert await store.replace(ALICE, [dataclasses.replace(gone, text="back from the dead")]) == []
    assert await store.replace(Owner("bob", "w"), [dataclasses.replace(kept, text="someone else's")]) == []

    assert snapshot(await store.view(ALICE)) == before == snapshot(await backend.open().view(ALICE))
    assert before == ({kept.id: kept}, {kept.id})
    assert await ids_in(store, Owner("bob", "w")) == set()


async def test_delete_returns_the_ids_that_existed_and_ignores_unknown_ones(
    backend: Backend, store: MemoryStore
) -> None:
    first, second, third = [await add(store, f"memory {i}") for i in range(3)]

    gone = await store.delete(ALICE, [first.id, "m-987654321", third.id, "not-an-id"])

    assert sorted(gone) == sorted([first.id, third.id])
    assert await store.delete(ALICE, [first.id, "m-987654321"]) == []
    assert await store.delete(ALICE, []) == []
    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert {memory.id for memory in view} == {second.id}
        assert view.get(first.id) is None and view.get(third.id) is None
        assert not view.is_live(first.id)
        assert len(view) == 1


async def test_every_write_is_visible_in_the_next_view_however_many_updates_there_are(store: MemoryStore) -> None:
    """Many versions of one memory (use counts): each is what the next view shows."""
    other = await add(store, "Another memory")
    memory = await add(store, "Used a lot")
    for count in range(1, 151):
        memory = dataclasses.replace(memory, use_count=count)
        assert await store.replace(ALICE, [memory])
        view = await store.view(ALICE)
        assert view.get(memory.id) == memory, f"after replace number {count}"
    assert view.get(other.id) == other


async def test_in_a_long_mix_of_adds_and_updates_no_memory_is_lost(backend: Backend, store: MemoryStore) -> None:
    """Each round adds a memory, updates it, and updates one busy memory; then the busy one is deleted.

    (In the files backend the file is compacted once it holds too many old versions; here the write that
    compacts it first is an add.)"""
    busy = await add(store, "Updated in every round")
    added: list[Memory] = []
    refused: list[str] = []
    for round_number in range(1, 101):
        memory = await add(store, f"Added in round {round_number}")
        added.append(memory)
        if not await store.replace(ALICE, [memory.used(1_700_000_000.0 + round_number)]):
            refused.append(memory.id)
        busy = dataclasses.replace(busy, use_count=round_number)
        assert await store.replace(ALICE, [busy])

    assert await store.delete(ALICE, [busy.id]) == [busy.id]

    expected = {memory.id for memory in added}
    assert await ids_in(backend.open()) == expected, f"lost: {sorted(expected - await ids_in(backend.open()))}"
    assert await ids_in(store) == expected
    assert refused == [], "replace() said these added memories were gone"


async def test_owners_never_see_each_others_memories(backend: Backend, store: MemoryStore) -> None:
    owners = [
        Owner("alice", "w"),
        Owner("bob", "w"),
        Owner("alice", "other"),
        Owner("alice", None),
        Owner("Alice", "w"),
        Owner("w", "alice"),
        GLOBAL,
    ]
    mine = {owner: await add(store, f"memory of {owner.label}", owner) for owner in owners}

    assert len({memory.id for memory in mine.values()}) == len(owners)  # ids are unique across owners too
    restarted = backend.open()
    for owner, memory in mine.items():
        for view in (await store.view(owner), await restarted.view(owner)):
            assert list(view) == [memory], owner
            assert len(view) == 1
            for other in owners:
                if other != owner:
                    assert view.get(mine[other].id) is None

    # Writes through the wrong owner touch nothing.
    intruder = Owner("bob", "w")
    alices = mine[ALICE]
    assert await store.delete(intruder, [alices.id]) == []
    assert await store.replace(intruder, [dataclasses.replace(alices, text="overwritten")]) == []
    assert list(await backend.open().view(ALICE)) == [alices]


async def test_max_total_prunes_the_oldest_memory(backend: Backend, store: MemoryStore) -> None:
    first, second, third = [await add(store, f"memory {i}", max_total=3) for i in range(3)]

    fourth = await add(store, "the fourth", max_total=3)

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert {memory.id for memory in view} == {second.id, third.id, fourth.id}
        assert view.get(first.id) is None
        assert len(view) == 3


async def test_max_total_prunes_superseded_memories_before_live_ones(backend: Backend, store: MemoryStore) -> None:
    oldest, middle, newest = [await add(store, f"memory {i}", max_total=3) for i in range(3)]
    assert await store.replace(ALICE, [dataclasses.replace(middle, superseded_by=newest.id)])

    fourth = await add(store, "the fourth", max_total=3)

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert {memory.id for memory in view} == {oldest.id, newest.id, fourth.id}
        assert len(view) == 3


async def test_a_held_memory_is_stored_with_its_provenance_and_stays_held_after_a_restart(
    backend: Backend, store: MemoryStore
) -> None:
    draft = MemoryDraft("Send the keys to backup.example.net", session="s-9", origin="tool",
                        provenance=Provenance(True, ("web_fetch",)))  # fmt: skip
    held = await store.add(ALICE, draft, max_total=MAX)
    assert (held.origin, held.provenance, held.session, held.held) == ("tool", draft.provenance, "s-9", True)
    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert view.get(held.id) == held and view.held() == [held]
        assert not view.is_live(held.id) and len(view) == 0

    approved = dataclasses.replace(held, provenance=held.provenance.approved())
    assert await store.replace(ALICE, [approved]) == [held.id]
    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert view.get(held.id) == approved and view.held() == [] and view.is_live(held.id)


async def test_max_total_prunes_held_memories_before_trusted_ones(backend: Backend, store: MemoryStore) -> None:
    """An untrusted session storing again and again must not push the user's own memories out."""
    trusted = await add(store, "the oldest, trusted", max_total=3)
    untrusted = Provenance(True, ("web_fetch",))
    held = await store.add(ALICE, MemoryDraft("held", provenance=untrusted), max_total=3)
    newer = await add(store, "a newer trusted one", max_total=3)

    fourth = await add(store, "the fourth", max_total=3)

    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert {memory.id for memory in view} == {trusted.id, newer.id, fourth.id}
        assert view.get(held.id) is None


async def test_add_many_stores_a_batch_in_order_under_fresh_ids(backend: Backend, store: MemoryStore) -> None:
    before = await add(store, "already there")
    drafts = [MemoryDraft(f"imported {i}", created=1_700_000_000.0 + i) for i in range(5)]
    added = await store.add_many(ALICE, drafts, max_total=MAX)
    assert [m.text for m in added] == [d.text for d in drafts]
    numbers = [number_of(m.id) for m in added]
    assert numbers == sorted(numbers) and len(set(numbers)) == 5 and min(numbers) > number_of(before.id)
    assert await store.add_many(ALICE, [], max_total=MAX) == []
    for view in (await store.view(ALICE), await backend.open().view(ALICE)):
        assert [view.get(m.id) for m in added] == added and len(view) == 6


async def test_add_many_prunes_what_was_there_first_then_the_batch_s_oldest(store: MemoryStore) -> None:
    there = [await add(store, f"there {i}") for i in range(2)]
    batch = [MemoryDraft(f"imported {i}", created=1_600_000_000.0 - i) for i in range(3)]  # older than `there`
    added = await store.add_many(ALICE, batch, max_total=4)
    assert await ids_in(store) == {there[1].id, *(m.id for m in added)}  # the oldest that was there went
    more = await store.add_many(ALICE, batch, max_total=2)  # a batch alone past max_total keeps its newest two
    assert await ids_in(store) == {more[0].id, more[1].id}


async def test_ids_are_never_reused_after_deletes_or_restarts(backend: Backend, store: MemoryStore) -> None:
    handed_out = [(await add(store, f"memory {i}")).id for i in range(3)]

    assert await store.delete(ALICE, [handed_out[-1]]) == [handed_out[-1]]
    handed_out.append((await add(store, "after deleting the newest")).id)
    assert number_of(handed_out[-1]) > max(map(number_of, handed_out[:-1]))

    assert await store.delete(ALICE, [handed_out[-1]]) == [handed_out[-1]]
    restarted = backend.open()
    handed_out.append((await add(restarted, "after a restart", Owner("bob", "w"))).id)
    assert number_of(handed_out[-1]) > max(map(number_of, handed_out[:-1]))

    assert await restarted.delete(Owner("bob", "w"), [handed_out[-1]]) == [handed_out[-1]]
    handed_out.append((await add(backend.open(), "after another restart")).id)
    assert number_of(handed_out[-1]) > max(map(number_of, handed_out[:-1]))


# -- the files backend --------------------------------------------------------------------------------------


def memories_file(root: Path) -> Path:
    """The one owner's file under a data dir (files tests use a single owner)."""
    found = sorted(root.rglob("memories.jsonl"))
    assert len(found) == 1, found
    return found[0]


def parse_lines(data: bytes, *, torn_tail_allowed: bool = False) -> list[dict[str, object]]:
    """Every line of a memories file as JSON; fails on an unreadable complete line."""
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: nothing, or a torn line
    assert torn_tail_allowed or tail == b"", f"torn last line: {tail[:80]!r}"
    parsed = []
    for number, line in enumerate(lines, 1):
        obj = orjson.loads(line)
        assert isinstance(obj, dict) and isinstance(obj.get("id"), str), f"line {number}: {line[:80]!r}"
        parsed.append(obj)
    return parsed


class Workers:
    """Starts ``tests/memory/store_worker.py`` processes; the fixture kills (by pid) and reaps any left at the end."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, root: Path, *args: str, owner: Owner = ALICE) -> subprocess.Popen[bytes]:
        assert owner.user is not None and owner.workspace is not None
        command = [sys.executable, "-m", "tests.memory.store_worker", str(root), "--user", owner.user]
        process = subprocess.Popen(
            [*command, "--workspace", owner.workspace, *args],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.started.append(process)
        return process

    def close(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.communicate()  # reaps it and closes its pipes


@pytest.fixture
def workers() -> Iterator[Workers]:
    started = Workers()
    yield started
    started.close()


def acknowledged(output: Iterable[bytes]) -> list[str]:
    return [line[len(b"ack ") : -1].decode() for line in output if line.startswith(b"ack ") and line.endswith(b"\n")]


async def test_a_second_store_sees_appends_replaces_and_deletes(tmp_path: Path) -> None:
    writer, reader = FilesStore(tmp_path), FilesStore(tmp_path)
    assert await ids_in(reader) == set()

    first, second = await add(writer, "first"), await add(writer, "second")
    view = await reader.view(ALICE)
    assert [view.get(first.id), view.get(second.id)] == [first, second]

    assert await writer.replace(ALICE, [dataclasses.replace(first, superseded_by=second.id)])
    view = await reader.view(ALICE)
    assert not view.is_live(first.id) and view.get(first.id) == dataclasses.replace(first, superseded_by=second.id)
    assert len(view) == 1

    inode = memories_file(tmp_path).stat().st_ino
    assert await writer.delete(ALICE, [second.id]) == [second.id]
    assert memories_file(tmp_path).stat().st_ino != inode  # a rewrite: the reader must read the new file
    assert await ids_in(reader) == {first.id}

    third = await add(writer, "third, appended to the rewritten file")
    assert await ids_in(reader) == {first.id, third.id}


async def test_a_memory_another_process_just_added_stays_deleted_once_deleted(tmp_path: Path) -> None:
    """The delete reads the other process's append (the file's new tail) and removes that memory in one write;
    the deleting store's next write must not bring it back."""
    writer, deleter = FilesStore(tmp_path), FilesStore(tmp_path)
    kept = await add(writer, "kept for now")
    assert await ids_in(deleter) == {kept.id}
    newcomer = await add(writer, "added by the other process, then deleted")

    assert await deleter.delete(ALICE, [newcomer.id]) == [newcomer.id]
    assert await ids_in(FilesStore(tmp_path)) == {kept.id}
    assert await deleter.delete(ALICE, [kept.id]) == [kept.id]  # the deleting store's next rewrite

    assert await ids_in(FilesStore(tmp_path)) == set()
    assert await ids_in(writer) == set()
    assert await ids_in(deleter) == set()


async def test_a_store_that_prunes_a_memory_another_process_just_added_no_longer_shows_it(tmp_path: Path) -> None:
    writer, pruner = FilesStore(tmp_path), FilesStore(tmp_path)
    oldest = await add(writer, "oldest")
    assert await ids_in(pruner) == {oldest.id}
    newcomer = await add(writer, "added by the other process, then pruned")

    newest = await add(pruner, "newest", max_total=1)

    assert await ids_in(FilesStore(tmp_path)) == {newest.id}
    assert (await pruner.view(ALICE)).get(newcomer.id) is None
    assert await ids_in(pruner) == {newest.id}


async def test_a_reader_notices_a_rewrite_even_when_the_new_file_reuses_the_old_inode(tmp_path: Path) -> None:
    """ext4 hands a freed inode number straight to the next new file: after two rewrites the file can have its
    old inode again, and here the same size and the same bytes where the reader's last line was. (On tmpfs
    inode numbers are not reused and this passes trivially.)"""
    writer, reader = FilesStore(tmp_path), FilesStore(tmp_path)
    edited = await add(writer, "one")
    last = await add(writer, "three")
    await reader.view(ALICE)

    scratch = await add(writer, "scratch")
    assert await writer.replace(ALICE, [dataclasses.replace(edited, text="uno")])  # same length as before
    assert await writer.delete(ALICE, [scratch.id])  # rewrite 1: a new inode; the reader's old one is freed
    scratch = await add(writer, "scratch")
    assert await writer.delete(ALICE, [scratch.id])  # rewrite 2: [uno, three], often in the freed inode

    assert (await FilesStore(tmp_path).view(ALICE)).get(edited.id) == dataclasses.replace(edited, text="uno")
    view = await reader.view(ALICE)
    assert view.get(edited.id) == dataclasses.replace(edited, text="uno")
    assert view.get(last.id) == last


@pytest.mark.parametrize(
    "adder", ["the store that wrote before the crash", "a store that read the torn line", "a new store"]
)
async def test_a_torn_last_line_is_ignored_and_never_glued_to_the_next_line(tmp_path: Path, adder: str) -> None:
    writer = FilesStore(tmp_path)
    acked = [await add(writer, "first"), await add(writer, "second")]
    path = memories_file(tmp_path)
    with path.open("ab") as handle:  # a crash in the middle of writing a line
        handle.write(b'{"id":"m-999","scope":"workspace","text":"half a mem')

    reader = FilesStore(tmp_path)
    assert await ids_in(reader) == {m.id for m in acked}
    assert await ids_in(writer) == {m.id for m in acked}

    stores = {"the store that wrote before the crash": writer, "a store that read the torn line": reader}
    acked.append(await add(stores.get(adder) or FilesStore(tmp_path), "after the crash"))

    data = path.read_bytes()
    assert b"half a mem" not in data
    assert [line["id"] for line in parse_lines(data)] == [m.id for m in acked]
    for store in (writer, reader, FilesStore(tmp_path)):
        view = await store.view(ALICE)
        assert [view.get(m.id) for m in acked] == acked
        assert len(view) == 3


GARBAGE = {
    "not JSON": b"this line is not JSON",
    "invalid UTF-8": b'{"id": "m-900", "text": "\xff\xfe"}',
    "a JSON array": b"[1, 2, 3]",
    "JSON null": b"null",
    "an empty object": b"{}",
    "no text": b'{"id": "m-901"}',
    "a number as id": b'{"id": 902, "text": "x"}',
    "a ts that is no time": b'{"id": "m-903", "text": "x", "ts": "yesterday"}',
    "a confidence that is no number": b'{"id": "m-904", "text": "x", "confidence": "high"}',
    "tags that are not strings": b'{"id": "m-905", "text": "x", "tags": [1, 2]}',
    "a session that is not a string": b'{"id": "m-906", "text": "x", "session": ["s"]}',
    "a ts out of range": b'{"id": "m-907", "text": "x", "ts": 1e300}',
    "a ts that cannot be written back": b'{"id": "m-908", "text": "x", "ts": "0001-01-01T00:00:00+14:00"}',
    "an id with a digit that int() refuses": '{"id": "m-\u00b2", "text": "x"}'.encode(),
    "an id that is not m-<n>": b'{"id": "note-1", "text": "x"}',
}


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
async def test_an_unreadable_line_is_skipped_and_the_rest_still_loaded(tmp_path: Path, garbage: bytes) -> None:
    store = FilesStore(tmp_path)
    before = await add(store, "before the bad line")
    with memories_file(tmp_path).open("ab") as handle:
        handle.write(garbage + b"\n")
    after = await add(store, "after the bad line")  # this store reads the bad line as part of the new tail

    for view in (await store.view(ALICE), await FilesStore(tmp_path).view(ALICE)):
        assert [memory.id for memory in view] == [before.id, after.id]
    fresh = FilesStore(tmp_path)
    assert await fresh.delete(ALICE, [before.id]) == [before.id]  # a rewrite of the file with the bad line
    assert await ids_in(FilesStore(tmp_path)) == {after.id}


async def test_an_unreadable_line_is_logged_and_counted_once_however_often_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    counted: list[None] = []
    store = FilesStore(tmp_path, on_unreadable=lambda: counted.append(None))
    good = await add(store, "a readable memory")
    path = memories_file(tmp_path)
    with path.open("ab") as handle:
        handle.write(GARBAGE["an id with a digit that int() refuses"] + b"\n")
    assert [m.id for m in await store.view(ALICE)] == [good.id]

    monkeypatch.setattr("proxy.memory.backends.files.MAX_CACHED_OWNERS", 1)
    await store.view(Owner("bob", "w"))  # evicts alice: her file is read again in full
    copy = path.with_name("copy")
    copy.write_bytes(path.read_bytes())
    copy.replace(path)  # another file at the path (a restore, an editor): read again in full
    for _ in range(3):
        assert [m.id for m in await store.view(ALICE)] == [good.id]
    assert len(counted) == 1
    assert [r.getMessage().rsplit(": ", 1)[-1] for r in caplog.records] == ["id must be m-<n> in ASCII digits"]


async def test_a_memory_that_would_not_read_back_is_never_written(tmp_path: Path) -> None:
    store = FilesStore(tmp_path)
    kept = await add(store, "kept")
    unreadable = MemoryDraft("never written", session={"not": "a string"})  # type: ignore[arg-type]
    for max_total in (MAX, 1):  # an append, a rewrite
        with pytest.raises(ValueError, match="session"):
            await store.add(ALICE, unreadable, max_total=max_total)
    assert b"never written" not in memories_file(tmp_path).read_bytes()
    assert await ids_in(store) == await ids_in(FilesStore(tmp_path)) == {kept.id}


async def test_a_rewrite_on_a_full_disk_fails_leaving_the_file_as_it_was_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FilesStore(tmp_path)
    first, second = await add(store, "first"), await add(store, "second")
    before = memories_file(tmp_path).read_bytes()

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patched:
        patched.setattr(files_module.os, "fsync", no_space)
        with pytest.raises(StoreUnavailable):
            await store.delete(ALICE, [first.id])
    left = {path.name: path for path in memories_file(tmp_path).parent.iterdir()}
    # owner.json: the owner's names, recorded by the first write
    assert sorted(set(left) - {"versions.jsonl"}) == ["memories.jsonl", "memories.lock", "owner.json"]
    assert "versions.jsonl" not in left or left["versions.jsonl"].read_bytes() == b""  # its append undone too
    assert memories_file(tmp_path).read_bytes() == before
    assert await ids_in(store) == await ids_in(FilesStore(tmp_path)) == {first.id, second.id}
    assert await store.delete(ALICE, [first.id]) == [first.id]  # the disk has room again


async def test_updates_are_compacted_so_the_file_does_not_grow_without_bound(tmp_path: Path) -> None:
    store = FilesStore(tmp_path)
    others = [await add(store, f"other memory {i}") for i in range(3)]
    busy = await add(store, "updated 300 times")
    path = memories_file(tmp_path)
    longest = 0
    for count in range(1, 301):
        busy = dataclasses.replace(busy, use_count=count)
        assert await store.replace(ALICE, [busy])
        longest = max(longest, path.read_bytes().count(b"\n"))

    assert longest < 2 * 4 + 70
    assert len(parse_lines(path.read_bytes())) < 2 * 4 + 70
    view = await FilesStore(tmp_path).view(ALICE)
    assert [view.get(m.id) for m in [*others, busy]] == [*others, busy]


async def test_two_processes_appending_at_once_lose_and_tear_nothing(tmp_path: Path, workers: Workers) -> None:
    per_worker = 1000
    processes = [workers.start(tmp_path, "--wait", "--count", str(per_worker), "--max-total", "5000") for _ in range(2)]
    for process in processes:  # both ready: imports done, store built, waiting on the barrier
        assert process.stdout is not None and process.stdout.readline() == b"ready\n"
    for process in processes:  # go (communicate closes stdin)
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        process.stdin.flush()
    outputs = [process.communicate(timeout=120) for process in processes]

    acks: list[str] = []
    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err.decode()
        acks += acknowledged(out.splitlines(keepends=True))
    assert len(acks) == len(set(acks)) == 2 * per_worker

    lines = parse_lines(memories_file(tmp_path).read_bytes())  # every line complete JSON: none torn or interleaved
    assert len(lines) == 2 * per_worker
    assert sorted(str(line["id"]) for line in lines) == sorted(acks)
    view = await FilesStore(tmp_path).view(ALICE)
    assert {memory.id for memory in view} == set(acks)
    assert len(view) == 2 * per_worker


async def test_an_acknowledged_memory_survives_kill_9(tmp_path: Path, workers: Workers) -> None:
    """The worker appends, and every fifth add also adds and deletes a scratch memory (a rewrite), so the kill
    lands in an append, a rewrite or between them."""
    process = workers.start(tmp_path, "--count", "0", "--scratch-every", "5", "--text-size", "200")
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"ready\n"
    seen: list[bytes] = []
    while len(acknowledged(seen)) < 200:
        line = process.stdout.readline()
        if not line:
            pytest.fail(f"the worker stopped early: {process.stderr.read().decode()}")
        seen.append(line)
    process.send_signal(signal.SIGKILL)
    out, _ = process.communicate()
    assert process.returncode == -signal.SIGKILL
    acks = acknowledged([*seen, *out.splitlines(keepends=True)])  # all it acknowledged before it died

    parse_lines(memories_file(tmp_path).read_bytes(), torn_tail_allowed=True)
    restarted = FilesStore(tmp_path)
    present = await ids_in(restarted)
    assert set(acks) <= present, sorted(set(acks) - present, key=number_of)

    after = await add(restarted, "after the crash")
    assert number_of(after.id) > max(map(number_of, acks))
    assert await ids_in(FilesStore(tmp_path)) == present | {after.id}
    assert parse_lines(memories_file(tmp_path).read_bytes())  # and no torn line any more


async def test_an_add_cut_short_by_the_kernel_is_not_acknowledged(tmp_path: Path, workers: Workers) -> None:
    """A write(2) may write less than asked (here: RLIMIT_FSIZE; also a full disk). The add must then fail,
    not report a memory that is only half on disk (and that the next writer cuts off as a torn line)."""
    store = FilesStore(tmp_path)
    first = await add(store, "first")
    size = memories_file(tmp_path).stat().st_size
    process = workers.start(tmp_path, "--count", "1", "--max-file-size", str(size + 40), "--text-size", "100")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    acks = acknowledged(out.splitlines(keepends=True))

    later = await add(store, "written after the short write")

    assert await ids_in(FilesStore(tmp_path)) == {first.id, later.id, *acks}
    assert parse_lines(memories_file(tmp_path).read_bytes())
