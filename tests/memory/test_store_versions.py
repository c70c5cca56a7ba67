"""The store contract for versions, on every backend (the ``backend``/``store`` fixtures of ``test_files_store``):
a change archives the version it replaces in the same write, compare-and-set happens inside the write (so of two
writers holding the same version exactly one wins, across store objects: processes, replicas), a delete can be
undone, and forgetting or pruning a memory takes its versions with it."""

# ruff: noqa: F811 - the suite's fixtures are imported by name and named again by the tests that use them

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import pytest

from proxy.errors import VersionMismatch
from proxy.memory import versions
from proxy.memory.records import Embedding, Memory, MemoryDraft
from proxy.memory.revisions import Revision
from proxy.memory.store import MemoryStore, Owner
from proxy.memory.versions import Actor

from .test_files_store import ALICE, MAX, Backend, Workers, add, backend, ids_in, store, workers  # noqa: F401

pytestmark = pytest.mark.anyio

ADA_KEY = Actor("person", key_id="k-1", via="api")
MODEL = Actor("model", session="s-1")


def edit(memory_id: str, text: str, *, expect: set[int] | None = None, actor: Actor = ADA_KEY) -> Revision:
    return Revision(memory_id, "edited", actor, lambda m: dataclasses.replace(m, text=text), expect)


def restore(memory_id: str, text: str, *, expect: set[int] | None = None) -> Revision:
    return Revision(memory_id, "restored", ADA_KEY, lambda m: dataclasses.replace(m, text=text), expect)


def listed(history: list[Memory]) -> list[tuple[int, str, str]]:
    return [(m.version, m.change, m.text) for m in history]


async def test_a_change_is_a_new_version_and_the_one_it_replaced_is_kept(backend: Backend, store: MemoryStore) -> None:
    first = await store.add(ALICE, MemoryDraft("Deploys with Fabric", actor=MODEL), max_total=MAX)
    [edited] = await store.revise(ALICE, [edit(first.id, "Deploys with Ansible", expect={1})])

    assert (edited.version, edited.change, edited.changed_by) == (2, "edited", ADA_KEY)
    assert edited.text == "Deploys with Ansible"
    for reader in (store, backend.open()):  # a restarted process reads the same history
        history = await reader.history(ALICE, first.id)
        assert listed(history) == [(2, "edited", "Deploys with Ansible"), (1, "created", "Deploys with Fabric")]
        assert [m.changed_by for m in history] == [ADA_KEY, MODEL]
        assert (await reader.view(ALICE)).get(first.id) == edited


async def test_a_stale_version_is_refused_in_the_write_and_changes_nothing(
    backend: Backend, store: MemoryStore
) -> None:
    memory = await add(store, "Deploys with Fabric")
    await store.revise(ALICE, [edit(memory.id, "Deploys with Ansible")])

    with pytest.raises(VersionMismatch) as refused:
        await backend.open().revise(ALICE, [edit(memory.id, "Deploys with Salt", expect={1})])
    assert refused.value.status == 412 and refused.value.headers == {"etag": f'"{memory.id}.v2"'}
    with pytest.raises(VersionMismatch):
        await store.delete(ALICE, [memory.id], expect={memory.id: {1}})
    for reader in (store, backend.open()):
        assert (await reader.view(ALICE)).get(memory.id).text == "Deploys with Ansible"  # type: ignore[union-attr]
        assert [m.version for m in await reader.history(ALICE, memory.id)] == [2, 1]


async def test_of_two_writers_holding_the_same_version_exactly_one_wins(backend: Backend, store: MemoryStore) -> None:
    """Two store objects (two processes on one data dir, two replicas on one database) write at once, both
    expecting version 1: the check is inside each write, so one wins and the other is refused, never both."""
    memory = await add(store, "Deploys with Fabric")
    other = backend.open()
    for round_ in range(5):
        results = await asyncio.gather(
            store.revise(ALICE, [edit(memory.id, f"first writer {round_}", expect={round_ + 1})]),
            other.revise(ALICE, [edit(memory.id, f"second writer {round_}", expect={round_ + 1})]),
            return_exceptions=True,
        )
        won = [r for r in results if isinstance(r, list)]
        lost = [r for r in results if isinstance(r, VersionMismatch)]
        assert len(won) == 1 and len(lost) == 1, results
        [winner] = won[0]
        history = await backend.open().history(ALICE, memory.id)
        assert history[0] == winner and winner.version == round_ + 2  # the loser overwrote nothing
        assert len(history) == round_ + 2


async def test_use_counts_and_embeddings_are_not_versions(store: MemoryStore) -> None:
    memory = await add(store, "Uses black")
    await store.count_uses(ALICE, {memory.id: (2, 1_700_000_000.0)})
    await store.set_embeddings(ALICE, {memory.id: Embedding("mini", bytes(8))})
    [same] = await store.revise(ALICE, [edit(memory.id, "Uses black")])  # changes nothing a version holds

    current = (await store.view(ALICE)).get(memory.id)
    assert current is not None and same == current
    assert (current.version, current.use_count, current.embedding) == (1, 2, Embedding("mini", bytes(8)))
    assert listed(await store.history(ALICE, memory.id)) == [(1, "created", "Uses black")]
    [edited] = await store.revise(ALICE, [edit(memory.id, "Uses ruff format")])
    assert (edited.version, edited.use_count) == (2, 2)  # a change keeps the bookkeeping as stored


async def test_a_supersede_is_a_version_of_the_old_memory_by_the_writer(backend: Backend, store: MemoryStore) -> None:
    old = await add(store, "Deploys with Fabric")
    new = await store.add(ALICE, MemoryDraft("Deploys with Ansible", actor=MODEL), max_total=MAX, supersedes=[old.id])

    history = await backend.open().history(ALICE, old.id)
    assert [(m.version, m.change, m.superseded_by, m.changed_by) for m in history] == [
        (2, "superseded", new.id, MODEL),
        (1, "created", None, Actor.of_origin("api")),
    ]


async def test_a_delete_can_be_undone_under_the_same_id(backend: Backend, store: MemoryStore) -> None:
    memory = await add(store, "Deploys with Fabric")
    await store.revise(ALICE, [edit(memory.id, "Deploys with Ansible")])
    assert await store.delete(ALICE, [memory.id], actor=MODEL, expect={memory.id: {2}}) == [memory.id]

    restarted = backend.open()
    assert await ids_in(restarted) == set()
    history = await restarted.history(ALICE, memory.id)
    assert listed(history) == [(3, "deleted", "Deploys with Ansible"), (2, "edited", "Deploys with Ansible"),
                               (1, "created", "Deploys with Fabric")]  # fmt: skip
    assert history[0].changed_by == MODEL
    with pytest.raises(VersionMismatch):
        await restarted.revise(ALICE, [restore(memory.id, "Deploys with Fabric", expect={2})])
    assert await restarted.revise(ALICE, [edit(memory.id, "an edit brings nothing back")]) == []

    [back] = await restarted.revise(ALICE, [restore(memory.id, "Deploys with Fabric", expect={3})], max_total=MAX)
    assert (back.id, back.version, back.change, back.text) == (memory.id, 4, "restored", "Deploys with Fabric")
    for reader in (store, backend.open()):
        view = await reader.view(ALICE)
        assert view.get(memory.id) == back and view.is_live(memory.id)
        changes = [m.change for m in await reader.history(ALICE, memory.id)]
        assert changes == ["restored", "deleted", "edited", "created"]


async def test_a_revision_is_all_or_nothing(store: MemoryStore) -> None:
    kept, other, gone = await add(store, "Kept"), await add(store, "Other"), await add(store, "Deleted meanwhile")
    await store.delete(ALICE, [gone.id])
    assert await store.revise(ALICE, [edit(kept.id, "Kept, edited"), edit(gone.id, "never")]) == []
    with pytest.raises(VersionMismatch):
        await store.revise(ALICE, [edit(kept.id, "Kept, edited"), edit(other.id, "never", expect={7})])
    for memory in (kept, other):
        assert (await store.view(ALICE)).get(memory.id) == memory
        assert [m.version for m in await store.history(ALICE, memory.id)] == [1]


async def test_forgetting_an_owner_leaves_no_version_of_anything(backend: Backend, store: MemoryStore) -> None:
    live, deleted = await add(store, "Live"), await add(store, "Deleted")
    await store.revise(ALICE, [edit(live.id, "Live, edited")])
    await store.delete(ALICE, [deleted.id])
    bob = await add(store, "Bob's", Owner("bob", "w"))

    assert sorted(await store.forget(ALICE)) == [live.id]
    for reader in (store, backend.open()):
        assert await ids_in(reader) == set()
        assert await reader.history(ALICE, live.id) == await reader.history(ALICE, deleted.id) == []
        assert await reader.revise(ALICE, [restore(deleted.id, "Deleted")], max_total=MAX) == []
        assert [m.id for m in await reader.history(Owner("bob", "w"), bob.id)] == [bob.id]  # nobody else's
    assert await store.forget(ALICE) == []


async def test_a_pruned_memory_takes_its_versions_with_it(backend: Backend, store: MemoryStore) -> None:
    oldest = await add(store, "The oldest", max_total=2)
    await store.revise(ALICE, [edit(oldest.id, "The oldest, edited")])
    await add(store, "Second", max_total=2)
    await add(store, "Third: the oldest goes", max_total=2)

    for reader in (store, backend.open()):
        assert oldest.id not in await ids_in(reader)
        assert await reader.history(ALICE, oldest.id) == []
        assert await reader.revise(ALICE, [restore(oldest.id, "The oldest")], max_total=MAX) == []


async def test_a_memory_keeps_its_newest_versions_only(
    backend: Backend, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(versions, "MAX_VERSIONS", 4)
    memory = await add(store, "version 1")
    for number in range(2, 8):
        await store.revise(ALICE, [edit(memory.id, f"version {number}")])

    for reader in (store, backend.open()):
        assert [m.version for m in await reader.history(ALICE, memory.id)] == [7, 6, 5, 4]
    await store.delete(ALICE, [memory.id])
    assert [m.version for m in await backend.open().history(ALICE, memory.id)] == [8, 7, 6, 5]


async def test_only_the_newest_deleted_memories_can_be_restored(
    backend: Backend, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(versions, "KEPT_DELETED", 2)
    memories = [await add(store, f"memory {n}") for n in range(3)]
    for memory in memories:
        await store.delete(ALICE, [memory.id])
        await asyncio.sleep(0.002)  # deletes stamped apart (to the millisecond): the oldest is the first

    reader = backend.open()
    assert await reader.history(ALICE, memories[0].id) == []
    assert [len(await reader.history(ALICE, m.id)) for m in memories[1:]] == [2, 2]


async def test_restoring_a_deleted_memory_past_max_total_prunes_like_an_add(store: MemoryStore) -> None:
    gone = await add(store, "Deleted, then restored", max_total=2)
    await store.delete(ALICE, [gone.id])
    first, second = await add(store, "First", max_total=2), await add(store, "Second", max_total=2)

    await store.revise(ALICE, [restore(gone.id, gone.text)], max_total=2)
    assert await ids_in(store) == {gone.id, second.id} and first.id not in await ids_in(store)


async def test_an_acknowledged_version_survives_kill_9(tmp_path: Path, workers: Workers) -> None:
    """The worker adds, edits every other memory and deletes a scratch one every fifth add (archive, then record,
    or a rewrite): the kill lands anywhere in those; every edit it acknowledged is in the history afterwards."""
    from proxy.memory.backends.files import FilesStore

    process = workers.start(tmp_path, "--count", "0", "--scratch-every", "5", "--edit-every", "2")
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"ready\n"
    edits: list[tuple[str, int]] = []
    while len(edits) < 60:
        line = process.stdout.readline()
        if not line:
            pytest.fail(f"the worker stopped early: {process.stderr.read().decode()}")
        if line.startswith(b"edited "):
            memory_id, version = line.split()[1:]
            edits.append((memory_id.decode(), int(version)))
    process.kill()
    process.communicate()

    restarted = FilesStore(tmp_path)
    for memory_id, version in edits:
        history = await restarted.history(ALICE, memory_id)
        assert [(m.version, m.change) for m in history] == [(version, "edited"), (1, "created")], memory_id
        assert history[0].text.startswith("edited ") and not history[1].text.startswith("edited ")


# -- the files backend ----------------------------------------------------------------------------------------


async def test_the_files_archive_stays_bounded_and_forgotten_text_leaves_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proxy.memory.backends import version_files
    from proxy.memory.backends.files import FilesStore

    monkeypatch.setattr(versions, "MAX_VERSIONS", 3)
    monkeypatch.setattr(version_files, "COMPACT_BYTES", 4096)
    store = FilesStore(tmp_path)
    memory = await add(store, "edit 0")
    for number in range(1, 200):
        await store.revise(ALICE, [edit(memory.id, f"edit {number}")])
    archive = next(tmp_path.rglob("versions.jsonl"))
    assert archive.stat().st_size < 2 * 4096 + 1024  # compacted as it grew: 199 archived, a few kept
    assert [m.text for m in await FilesStore(tmp_path).history(ALICE, memory.id)] == [
        "edit 199",
        "edit 198",
        "edit 197",
    ]

    await store.delete(ALICE, [memory.id])
    assert b"edit 199" in archive.read_bytes()  # kept for an undo

    pruned = await add(store, "a secret-ish plan, pruned", max_total=2)
    await store.revise(ALICE, [edit(pruned.id, "a secret-ish plan, pruned and edited")])
    await add(store, "newer", max_total=2)
    await add(store, "newest: pushes the plan out", max_total=2)
    assert pruned.id not in await ids_in(store) and b"secret-ish" not in archive.read_bytes()

    await store.forget(ALICE)
    assert not archive.exists()  # nothing left to restore


async def test_looking_up_or_forgetting_nothing_leaves_nothing_on_disk(tmp_path: Path) -> None:
    from proxy.memory.backends.files import FilesStore

    store = FilesStore(tmp_path / "data")
    assert await store.history(ALICE, "m-1") == [] and await store.forget(Owner("nobody", "w")) == []
    assert not (tmp_path / "data").exists() or list((tmp_path / "data").rglob("*")) == []


async def test_a_refused_write_leaves_no_file_open(tmp_path: Path) -> None:
    from proxy.memory.backends.files import FilesStore

    store = FilesStore(tmp_path)
    memory = await add(store, "Deploys with Fabric")
    await store.revise(ALICE, [edit(memory.id, "Deploys with Ansible")])
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        fresh = FilesStore(tmp_path)  # its first write reads the file and opens it to keep
        with pytest.raises(VersionMismatch):
            await fresh.revise(ALICE, [edit(memory.id, "stale", expect={1})])
        await fresh.aclose()
    assert len(os.listdir("/proc/self/fd")) <= before
