"""The memory file store's contract, on every backend: files and proposals per owner, all-or-nothing commits that
check the versions they expect, durable before they return (a writer killed with -9 loses nothing it acknowledged)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from proxy.memory.backends.memory_files_json import FilesMemoryFiles
from proxy.memory.backends.pg_memory_files import PostgresMemoryFiles
from proxy.memory.backends.postgres import Database
from proxy.memory.memory_files import FileConflict, FileProposal, MemoryFile, MemoryFileStore
from proxy.memory.provenance import TRUSTED, untrusted_by
from proxy.memory.store import Owner

pytestmark = pytest.mark.anyio
ADA, BOB = Owner("ada", "default"), Owner("bob", "default")
ROOT = Path(__file__).resolve().parents[2]


def file(path: str, text: str = "User likes tea\n", version: int = 1, **fields: object) -> MemoryFile:
    return MemoryFile(path, text, version, 1_700_000_000.0, 1_700_000_000.0, **fields)  # type: ignore[arg-type]


def proposal(ident: str, path: str, text: str | None = "held text", session: str = "s1") -> FileProposal:
    return FileProposal(ident, path, text, 1_700_000_000.0, session, untrusted_by(["web_fetch"]), None)


@pytest.fixture(params=["files", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryFileStore]:
    built: MemoryFileStore
    if request.param == "files":
        built = FilesMemoryFiles(tmp_path)
    else:
        built = PostgresMemoryFiles(Database(request.getfixturevalue("pg_dsn")))
    yield built
    await built.aclose()


async def test_a_file_comes_back_whole_with_who_wrote_it(store: MemoryFileStore) -> None:
    written = file("/memories/notes.md", origin="api", session="s1", key_id="k-1", provenance=TRUSTED)
    odd = file("/memories/ünïcode/ë.md", "line 1\r\nline 2 ✓\n" * 50)
    await store.commit(ADA, {written.path: written, odd.path: odd}, {written.path: None, odd.path: None})
    assert sorted(await store.files(ADA), key=lambda f: f.path) == [written, odd]
    assert await store.count(ADA) == 2


async def test_a_commit_expecting_another_version_writes_nothing(store: MemoryFileStore) -> None:
    first = file("/memories/a.md")
    await store.commit(ADA, {first.path: first}, {first.path: None})
    with pytest.raises(FileConflict):  # someone else created it first
        await store.commit(ADA, {first.path: file(first.path, "mine")}, {first.path: None})
    second = file("/memories/b.md")
    with pytest.raises(FileConflict):  # all or nothing: b.md is not written either
        await store.commit(ADA, {second.path: second, first.path: file(first.path, "x", 2)}, {first.path: 7})
    assert [f.path for f in await store.files(ADA)] == ["/memories/a.md"]
    await store.commit(ADA, {first.path: file(first.path, "edited", 2), second.path: None}, {first.path: 1})
    assert [(f.text, f.version) for f in await store.files(ADA)] == [("edited", 2)]
    await store.commit(ADA, {first.path: None}, {first.path: 2})
    assert await store.files(ADA) == []


async def test_proposals_wait_beside_the_files_until_settled(store: MemoryFileStore) -> None:
    await store.propose(ADA, [proposal("fp-1", "/memories/a.md"), proposal("fp-2", "/memories/b.md", None)])
    await store.propose(ADA, [proposal("fp-1", "/memories/a.md", "changed again")])  # the same id: replaced
    waiting = {p.id: p for p in await store.proposals(ADA)}
    assert waiting["fp-1"].text == "changed again" and waiting["fp-2"].text is None
    assert waiting["fp-1"].provenance.sources == ("web_fetch",) and waiting["fp-1"].provenance.held
    assert await store.files(ADA) == [] and await store.count(ADA) == 2
    approved = file("/memories/a.md", "changed again")
    settled = await store.settle(ADA, "fp-1", {approved.path: approved}, {approved.path: None})
    assert settled is not None and settled.id == "fp-1"
    assert await store.files(ADA) == [approved]
    assert await store.settle(ADA, "fp-1") is None  # gone: nothing written twice
    with pytest.raises(FileConflict):  # the file moved on meanwhile: the proposal stays
        await store.settle(ADA, "fp-2", {approved.path: None}, {approved.path: None})
    assert [p.id for p in await store.proposals(ADA)] == ["fp-2"]


async def test_another_owner_never_sees_a_file_or_a_proposal(store: MemoryFileStore) -> None:
    mine = file("/memories/a.md")
    await store.commit(ADA, {mine.path: mine}, {})
    await store.propose(ADA, [proposal("fp-1", "/memories/b.md")])
    for other in (BOB, Owner("ada", "other")):
        assert await store.files(other) == [] and await store.proposals(other) == []
        assert await store.settle(other, "fp-1") is None
    assert await store.forget(BOB) == 0 and await store.count(ADA) == 2


async def test_forget_removes_only_the_owners_files_and_proposals(store: MemoryFileStore) -> None:
    for owner in (ADA, BOB):
        await store.commit(
            owner, {"/memories/a.md": file("/memories/a.md"), "/memories/d/": file("/memories/d/", "")}, {}
        )
        await store.propose(owner, [proposal("fp-1", "/memories/b.md")])
    assert await store.count(ADA) == 2  # the directory's marker is no file
    assert await store.forget(ADA) == 2
    assert await store.files(ADA) == [] and await store.proposals(ADA) == [] and await store.count(ADA) == 0
    assert await store.count(BOB) == 2


@pytest.mark.parametrize("backend", ["files", "postgres"])
def test_every_acknowledged_write_survives_kill_9(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A writer prints ``ack <n>`` once each commit returned; killed mid-stream, every acknowledged file is there."""
    target = str(tmp_path) if backend == "files" else request.getfixturevalue("pg_dsn")
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.memory.file_worker", backend, target],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert worker.stdout is not None
    acknowledged = []
    for line in worker.stdout:
        if line.startswith("ack "):
            acknowledged.append(int(line.split()[1]))
        if len(acknowledged) == 40:
            break
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()
    worker.stdout.close()
    import asyncio

    async def read() -> set[int]:
        store = FilesMemoryFiles(tmp_path) if backend == "files" else PostgresMemoryFiles(Database(target))
        try:
            return {int(f.text) for f in await store.files(ADA) if f.path.startswith("/memories/n")}
        finally:
            await store.aclose()

    assert set(acknowledged) <= asyncio.run(read())


async def test_a_reader_sees_what_another_process_wrote_since_it_last_read(tmp_path: Path) -> None:
    """The files backend keeps the document it last parsed; a change made through another store on the same data
    directory (another process, a replica) is read at once, and so is the owner's document removed."""
    reader, writer = FilesMemoryFiles(tmp_path), FilesMemoryFiles(tmp_path)
    first = file("/memories/a.md", "before\n")
    await writer.commit(ADA, {first.path: first}, {first.path: None})
    assert [f.text for f in await reader.files(ADA)] == ["before\n"]
    await writer.commit(ADA, {first.path: file(first.path, "after!\n", version=2)}, {first.path: 1})
    await writer.propose(ADA, [proposal("fp-1", first.path)])
    assert [f.text for f in await reader.files(ADA)] == ["after!\n"]
    assert [p.id for p in await reader.proposals(ADA)] == ["fp-1"]
    await writer.forget(ADA)
    assert await reader.files(ADA) == [] and await reader.proposals(ADA) == []


async def test_no_files_and_unchanged_files_are_read_without_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every memory_search reads its caller's files: an owner with none, or with the document read last, is answered
    on the event loop; only a document changed since goes to a thread (and is read anew)."""
    from proxy.memory.backends import memory_files_json

    reader, writer = FilesMemoryFiles(tmp_path), FilesMemoryFiles(tmp_path)
    threads = []
    real = memory_files_json.asyncio.to_thread

    async def counted(work: object) -> object:
        threads.append(work)
        return await real(work)  # type: ignore[arg-type]

    monkeypatch.setattr(memory_files_json.asyncio, "to_thread", counted)
    assert await reader.files(ADA) == [] and not threads
    first = file("/memories/a.md", "before\n")
    await writer.commit(ADA, {first.path: first}, {first.path: None})
    written = len(threads)
    assert [f.text for f in await reader.files(ADA)] == ["before\n"] and len(threads) == written + 1
    assert [f.text for f in await reader.files(ADA)] == ["before\n"] and len(threads) == written + 1
    await writer.commit(ADA, {first.path: file(first.path, "after!\n", version=2)}, {first.path: 1})
    assert [f.text for f in await reader.files(ADA)] == ["after!\n"]
