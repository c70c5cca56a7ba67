"""Sessions' taints and untrusted sessions' chain links, on every backend (proxy.memory.session_state).

What a replica, a restarted process or one that let a session go under load reads back so that evicting state
never makes a session trusted: the same contract in this process's memory, the files store (shared by every
process on the machine) and PostgreSQL (shared by every replica).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from proxy.memory.backends.pg_sessions import PostgresSessionState
from proxy.memory.backends.postgres import Database
from proxy.memory.backends.trust_files import FilesSessionState
from proxy.memory.session_state import MAX_SOURCE_CHARS, InProcessSessionState, SessionState

pytestmark = pytest.mark.anyio
ADA, BOB = ("ada", "default"), ("bob", "default")
LINK = {"session": "s1", "chain": "resp_2", "called": [["call_1", "web_fetch"]], "sources": ["web_fetch"]}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["memory", "files", "postgres"])
async def state(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionState]:
    built: SessionState
    if request.param == "memory":
        built = InProcessSessionState()
    elif request.param == "files":
        built = FilesSessionState(tmp_path)
    else:
        built = PostgresSessionState(Database(request.getfixturevalue("pg_dsn")), ttl_s=1800)
    yield built
    await built.aclose()


async def test_a_taint_adds_to_the_sources_the_session_had(state: SessionState) -> None:
    assert await state.taint(ADA, "s1") == ()
    await state.add_taint(ADA, "s1", ["web_fetch"])
    await state.add_taint(ADA, "s1", ["(unseen call)", "web_fetch", "Bash"])
    assert await state.taint(ADA, "s1") == ("(unseen call)", "Bash", "web_fetch")


async def test_a_taint_is_its_sessions_and_its_owners_alone(state: SessionState) -> None:
    await state.add_taint(ADA, "s1", ["web_fetch"])
    assert await state.taint(ADA, "s2") == ()
    assert await state.taint(BOB, "s1") == ()
    assert await state.taint(("ada", "other"), "s1") == ()


async def test_a_chain_link_comes_back_to_its_owner_only(state: SessionState) -> None:
    await state.put_link(ADA, "resp_1", LINK)
    found = await state.get_link(ADA, "resp_1")
    assert found is not None and LINK.items() <= found.items()
    assert await state.get_link(ADA, "resp_other") is None
    assert await state.get_link(BOB, "resp_1") is None


async def test_forget_removes_the_owners_taints_and_links_only(state: SessionState) -> None:
    for owner in (ADA, BOB):
        await state.add_taint(owner, "s1", ["web_fetch"])
        await state.put_link(owner, "resp_1", LINK)
    await state.forget(ADA)
    assert await state.taint(ADA, "s1") == () and await state.get_link(ADA, "resp_1") is None
    assert await state.taint(BOB, "s1") == ("web_fetch",) and await state.get_link(BOB, "resp_1") is not None


async def test_a_source_with_a_nul_or_of_any_length_is_stored(state: SessionState) -> None:
    """A source is a tool name the client chose: PostgreSQL refuses NUL in text, and a name may be huge."""
    await state.add_taint(ADA, "s1", ["web\x00fetch", "x" * 10_000])
    assert await state.taint(ADA, "s1") == ("webfetch", "x" * MAX_SOURCE_CHARS)
    await state.put_link(ADA, "resp\x00_1", LINK)


# -- the files store: several processes on one machine ----------------------------------------------------------

WRITER = """
import asyncio, sys
from proxy.memory.backends.trust_files import FilesSessionState

async def main():
    state = FilesSessionState(sys.argv[1])
    for n in range(int(sys.argv[3])):
        await state.add_taint(("ada", "default"), f"{sys.argv[2]}-{n}", ["web_fetch"])
    print("done", flush=True)

asyncio.run(main())
"""


async def test_processes_on_one_data_dir_see_each_others_taints_and_lose_none(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name, "40"], env=env, stdout=subprocess.PIPE)
        for name in ("a", "b")
    ]
    for writer in writers:
        out, _ = writer.communicate(timeout=120)
        assert writer.returncode == 0 and out.strip() == b"done"
    here = FilesSessionState(tmp_path)
    for name in ("a", "b"):
        for n in range(40):
            assert await here.taint(ADA, f"{name}-{n}") == ("web_fetch",)


async def test_a_files_store_reads_another_processes_write_made_after_its_own_read(tmp_path: Path) -> None:
    one, other = FilesSessionState(tmp_path), FilesSessionState(tmp_path)
    assert await one.taint(ADA, "s1") == ()  # read, and cached
    await other.add_taint(ADA, "s1", ["web_fetch"])
    assert await one.taint(ADA, "s1") == ("web_fetch",)


async def test_a_torn_line_is_skipped_and_the_next_write_is_whole(tmp_path: Path) -> None:
    state = FilesSessionState(tmp_path)
    await state.add_taint(ADA, "s1", ["web_fetch"])
    [path] = tmp_path.rglob("trust.jsonl")
    with open(path, "ab") as file:
        file.write(b'{"taint": "s2", "sour')  # a crash in the middle of a write
    assert await state.taint(ADA, "s1") == ("web_fetch",)
    await state.add_taint(ADA, "s3", ["Bash"])
    assert await state.taint(ADA, "s3") == ("Bash",) and await state.taint(ADA, "s2") == ()


async def test_expired_lines_are_ignored_and_compacted_away(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("proxy.memory.backends.trust_files.COMPACT_BYTES", 200)
    old = FilesSessionState(tmp_path, ttl_s=-1)  # everything it reads is past its time
    await old.add_taint(ADA, "s1", ["web_fetch"])
    assert await old.taint(ADA, "s1") == ()
    current = FilesSessionState(tmp_path)
    assert await current.taint(ADA, "s1") == ("web_fetch",)
    for n in range(5):
        await old.add_taint(ADA, f"s{n + 2}", ["web_fetch"])  # past 200 bytes: rewritten without expired lines
    [path] = tmp_path.rglob("trust.jsonl")
    assert b'"s1"' not in path.read_bytes() and len(path.read_bytes()) < 200  # s1 went with the first compaction
