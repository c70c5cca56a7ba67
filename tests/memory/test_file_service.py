"""Memory files through their service, on every backend: scanned writes, held proposals for untrusted sessions and
suspect texts, a person's approval, limits, racing writers, passages for search, export and import."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from proxy.errors import InvalidRequest, MemoryRejected
from proxy.memory.backends.memory_files_json import FilesMemoryFiles
from proxy.memory.backends.pg_memory_files import PostgresMemoryFiles
from proxy.memory.backends.postgres import Database
from proxy.memory.caller import Identity
from proxy.memory.file_commands import CommandError
from proxy.memory.file_service import MAX_FILE_CHARS, FileNotFound, FileService, ProposalNotFound
from proxy.memory.memory_files import MemoryFileStore
from proxy.memory.provenance import untrusted_by

pytestmark = pytest.mark.anyio
ADA = Identity("ada", key_id="k-ada")
BOB = Identity("bob")
TAINTED = untrusted_by(["web_fetch"])
SECRET = "the deploy password: hunter2hunter2"
IBAN = "Pay rent to DE89370400440532013000"


@pytest.fixture(params=["files", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryFileStore]:
    built: MemoryFileStore
    if request.param == "files":
        built = FilesMemoryFiles(tmp_path)
    else:
        built = PostgresMemoryFiles(Database(request.getfixturevalue("pg_dsn")))
    yield built
    await built.aclose()


@pytest.fixture
def files(store: MemoryFileStore) -> FileService:
    return FileService(store)


def create(path: str, text: str) -> dict[str, Any]:
    return {"command": "create", "path": path, "file_text": text}


def view(path: str = "/memories") -> dict[str, Any]:
    return {"command": "view", "path": path}


async def test_a_file_the_model_writes_is_the_users_in_every_session(files: FileService) -> None:
    assert await files.run(ADA, "s1", create("/memories/notes.md", "User likes tea\n")) == (
        "File created successfully at: /memories/notes.md"
    )
    assert "     1\tUser likes tea" in await files.run(ADA, "s2", view("/memories/notes.md"))
    [written] = await files.files(ADA)
    assert (written.origin, written.session, written.key_id, written.version) == ("tool", "s1", "k-ada", 1)
    with pytest.raises(CommandError, match="does not exist"):
        await files.run(BOB, "s3", view("/memories/notes.md"))  # another user's directory is empty
    with pytest.raises(CommandError, match="does not exist"):
        await files.run(Identity("ada", "other"), "s4", view("/memories/notes.md"))  # and another workspace's


async def test_a_secret_is_never_written_anywhere(files: FileService) -> None:
    with pytest.raises(CommandError, match="Nothing was written: text appears to contain a secret"):
        await files.run(ADA, "s1", create("/memories/ops.md", SECRET))
    await files.run(ADA, "s1", create("/memories/ops.md", "Deploys go through CI.\n"))
    with pytest.raises(CommandError, match="Nothing was written"):
        await files.run(ADA, "s1", {"command": "insert", "path": "/memories/ops.md", "insert_line": 1,
                                    "insert_text": SECRET})  # fmt: skip
    with pytest.raises(CommandError, match="Nothing was written"):
        await files.run(ADA, "s1", create("/memories/sk-proj-" + "a" * 40, "named after a key"))
    with pytest.raises(MemoryRejected):
        await files.write(ADA, "ops.md", SECRET)
    assert [f.text for f in await files.files(ADA)] == ["Deploys go through CI.\n"]
    assert await files.proposals(ADA) == []


async def test_an_untrusted_sessions_writes_wait_for_approval(files: FileService) -> None:
    await files.run(ADA, "trusted", create("/memories/billing.md", "Invoices go to accounts@example.com\n"))
    edit = {"command": "str_replace", "path": "/memories/billing.md", "old_str": "accounts", "new_str": "attacker"}
    result = await files.run(ADA, "tainted", edit, TAINTED)
    assert result.startswith("The memory file has been edited.")
    assert "held for the user's approval: this session took in untrusted content (web_fetch)" in result
    assert "attacker" in await files.run(ADA, "tainted", view("/memories/billing.md"), TAINTED)  # it reads its own
    assert "accounts" in await files.run(ADA, "another", view("/memories/billing.md"))  # nobody else does
    await files.run(ADA, "tainted", create("/memories/new.md", "planted\n"), TAINTED)
    await files.run(ADA, "tainted", {"command": "delete", "path": "/memories/billing.md"}, TAINTED)
    listing = await files.run(ADA, "another", view())
    assert "new.md" not in listing and "billing.md" in listing
    waiting = {p.path: (p, current) for p, current in await files.proposals(ADA)}
    assert set(waiting) == {"/memories/billing.md", "/memories/new.md"}  # one per path: the delete replaced the edit
    billing, current = waiting["/memories/billing.md"]
    assert billing.text is None and current is not None and "accounts" in current.text
    assert billing.provenance.sources == ("web_fetch",) and billing.base == 1

    await files.approve(ADA, waiting["/memories/new.md"][0].id)
    [approved] = [f for f in await files.files(ADA) if f.path == "/memories/new.md"]
    assert approved.text == "planted\n" and approved.provenance.user_approved and approved.provenance.untrusted
    await files.reject(ADA, billing.id)
    assert "accounts" in (await files.read(ADA, "billing.md")).text
    assert await files.proposals(ADA) == []
    with pytest.raises(ProposalNotFound):
        await files.approve(ADA, billing.id)


async def test_a_suspect_text_is_held_even_in_a_trusted_session_and_stays_held(files: FileService) -> None:
    result = await files.run(ADA, "s1", create("/memories/rent.md", IBAN))
    assert result.startswith("File created successfully at: /memories/rent.md\n(held for the user's approval: ")
    assert "IBAN" in result and await files.files(ADA) == []
    # the session reads its own proposal: a later edit of it by the same trusted session stays a proposal too
    await files.run(
        ADA, "s1", {"command": "str_replace", "path": "/memories/rent.md", "old_str": "rent", "new_str": "the rent"}
    )
    assert await files.files(ADA) == []
    [(held, _)] = await files.proposals(ADA)
    assert held.text == IBAN.replace("rent", "the rent") and held.provenance.reason is not None
    written = await files.write(ADA, "notes/rent.md", IBAN)  # a person's suspect text: held as well
    assert written.proposal is not None and written.file is None


async def test_a_person_writes_reads_and_deletes_files(files: FileService) -> None:
    created = await files.write(ADA, "notes.md", "first\n")
    assert created.file is not None and created.file.origin == "api" and created.file.version == 1
    again = await files.write(ADA, "/memories/notes.md", "first\n")
    assert again.unchanged
    edited = await files.write(ADA, "notes.md", "second\n")
    assert edited.file is not None and edited.file.version == 2
    await files.write(ADA, "dir/a.md", "a")
    await files.write(ADA, "dir/b.md", "b")
    assert [f.path for f in await files.files(ADA)] == [
        "/memories/dir/a.md",
        "/memories/dir/b.md",
        "/memories/notes.md",
    ]
    assert await files.delete(ADA, "dir") == ["/memories/dir/a.md", "/memories/dir/b.md"]
    with pytest.raises(FileNotFound):
        await files.read(ADA, "dir/a.md")
    for bad in ("../etc/passwd", "/memories", "%2e%2e/x"):
        with pytest.raises(InvalidRequest):
            await files.write(ADA, bad, "x")
    with pytest.raises(MemoryRejected, match="at most"):
        await files.write(ADA, "big.md", "x" * (MAX_FILE_CHARS + 1))


async def test_writers_racing_on_one_file_never_lose_an_edit(files: FileService) -> None:
    await files.run(ADA, "s0", create("/memories/log.md", ""))

    async def append(n: int) -> None:
        await files.run(ADA, f"s{n}", {"command": "insert", "path": "/memories/log.md", "insert_line": 0,
                                        "insert_text": f"line {n}"})  # fmt: skip

    await asyncio.gather(*(append(n) for n in range(8)))
    text = (await files.read(ADA, "log.md")).text
    assert sorted(text.splitlines()) == sorted(f"line {n}" for n in range(8))


async def test_search_finds_passages_of_files_and_never_a_proposal(files: FileService) -> None:
    await files.write(ADA, "projects/alpha.md", "# Alpha\nShips in May.\nWritten in Rust.\n\n## Team\nAda leads it.\n")
    await files.write(ADA, "cooking.md", "Ada likes tea.\n")
    await files.run(ADA, "tainted", create("/memories/planted.md", "Alpha is written in Go now.\n"), TAINTED)
    found = await files.search(ADA, "which language is alpha written in", limit=3)
    assert [(p.path, p.line) for p in found][:1] == [("/memories/projects/alpha.md", 1)]
    assert "Rust" in found[0].text and all(p.path != "/memories/planted.md" for p in found)
    assert await files.search(BOB, "alpha", limit=3) == []


async def test_an_export_imports_back_once(files: FileService, store: MemoryFileStore) -> None:
    await files.write(ADA, "a.md", "alpha\n")
    await files.write(ADA, "d/b.md", "beta\n")
    lines = [(n, line.rstrip(b"\n")) for n, line in enumerate(await files.export(ADA), 1)]
    assert all(orjson.loads(line)["kind"] == "file" for _, line in lines)
    report = await files.import_lines(BOB, lines)
    assert report.imported == ["/memories/a.md", "/memories/d/b.md"] and not report.errors
    again = await files.import_lines(BOB, lines)
    assert again.imported == [] and again.unchanged == ["/memories/a.md", "/memories/d/b.md"]
    await files.write(BOB, "a.md", "changed\n")
    clash = await files.import_lines(BOB, lines[:1])
    assert clash.errors and "another text" in clash.errors[0]["error"]
    bad = [(1, b'{"kind": "file", "path": "/memories/../x", "text": "y"}'), (2, b"{oops")]
    assert [e["line"] for e in (await files.import_lines(BOB, bad)).errors] == [1, 2]
    assert (await files.read(BOB, "a.md")).text == "changed\n"
