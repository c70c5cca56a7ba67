"""The episode store: a contract every backend meets, then the files backend's own ways (one file each,
durable, shared by several processes on one data dir).

A second store on the same storage (``open_store()``) is what another proxy process, or a restarted one,
builds. Contract tests run on every backend in ``BACKENDS``; the PostgreSQL one on a server the tests start.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from proxy.errors import StoreUnavailable
from proxy.memory.backends.episode_files import RACY_S, FilesEpisodes
from proxy.memory.backends.files import owner_dir
from proxy.memory.episodes import Episode, EpisodeStore, episode_id
from proxy.memory.provenance import Provenance
from proxy.memory.store import GLOBAL, Owner

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
ALICE = Owner("alice", "w")
T0 = 1_700_000_000.0
RACY_WINDOW_PASSED = 0.1  # seconds: past the store's RACY_S


def episode(session: str, summary: str = "a session", *, owner: Owner = ALICE, created_at: float = T0) -> Episode:
    assert owner.user is not None and owner.workspace is not None
    return Episode(
        id=episode_id(owner.user, owner.workspace, session),
        session_id=session,
        user=owner.user,
        workspace=owner.workspace,
        turns=4,
        created_at=created_at,
        summary=summary,
        facts=(f"a fact of {session}",),
    )


def episodes_dir(root: Path, owner: Owner = ALICE) -> Path:
    return root / owner_dir(owner) / "episodes"


OpenStore = Callable[[], EpisodeStore]
OpenFilesStore = Callable[[], FilesEpisodes]
BACKENDS = ["files", "postgres"]


@pytest.fixture(params=BACKENDS)
async def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[OpenStore]:
    """Builds stores on one storage (each one a process of its own, as far as it can tell); closes them all."""
    opened: list[EpisodeStore] = []

    def build() -> EpisodeStore:
        if request.param == "files":
            opened.append(FilesEpisodes(tmp_path))
        else:
            from proxy.memory.backends.pg_episodes import PostgresEpisodes
            from proxy.memory.backends.postgres import Database

            opened.append(PostgresEpisodes(Database(dsn)))
        return opened[-1]

    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else ""
    build.files = request.param == "files"  # type: ignore[attr-defined]
    yield build
    for store in opened:
        await store.aclose()


@pytest.fixture
async def open_files_store(tmp_path: Path) -> AsyncIterator[OpenFilesStore]:
    """Files stores on one root, for what only the files backend does."""
    opened: list[FilesEpisodes] = []

    def build() -> FilesEpisodes:
        opened.append(FilesEpisodes(tmp_path))
        return opened[-1]

    yield build
    for store in opened:
        await store.aclose()


def files_backend(open_store: OpenStore) -> bool:
    """Whether the stores keep files under tmp_path, which a test may then look at."""
    return bool(getattr(open_store, "files", False))


def test_the_files_backend_meets_the_protocol(tmp_path: Path) -> None:
    store: EpisodeStore = FilesEpisodes(tmp_path)
    assert store is not None


# -- reads and writes ---------------------------------------------------------------------------------------


async def test_a_put_episode_is_in_the_next_view(open_store: OpenStore) -> None:
    store = open_store()
    stored = episode("s-1", "Moved billing to Postgres 16")

    await store.put(ALICE, stored)

    index = await store.view(ALICE)
    assert list(index) == [stored]
    assert index.get(stored.id) == stored


async def test_a_put_with_the_same_id_replaces_the_episode(open_store: OpenStore, tmp_path: Path) -> None:
    store = open_store()
    first = episode("s-1", "first extraction")
    await store.put(ALICE, first)

    await store.put(ALICE, replace(first, summary="second extraction", job="job-2"))

    assert [e.summary for e in await store.view(ALICE)] == ["second extraction"]
    assert [e.summary for e in await open_store().view(ALICE)] == ["second extraction"]
    if files_backend(open_store):
        assert [path.name for path in episodes_dir(tmp_path).iterdir()] == [f"{first.id}.json"]


async def test_an_episode_is_one_json_file_in_the_owners_directory(
    open_files_store: OpenFilesStore, tmp_path: Path
) -> None:
    stored = episode("s-1")

    await open_files_store().put(ALICE, stored)

    path = episodes_dir(tmp_path) / f"{stored.id}.json"
    assert orjson.loads(path.read_bytes()) == stored.to_json()
    assert path.stat().st_mode & 0o077 == 0  # user text: readable by its owner only


async def test_a_deleted_episode_is_gone(open_store: OpenStore, tmp_path: Path) -> None:
    store = open_store()
    kept, doomed = episode("kept"), episode("doomed")
    await store.put(ALICE, kept)
    await store.put(ALICE, doomed)

    assert await store.delete(ALICE, doomed.id) is True

    assert list(await store.view(ALICE)) == [kept]
    assert list(await open_store().view(ALICE)) == [kept]
    if files_backend(open_store):
        assert not (episodes_dir(tmp_path) / f"{doomed.id}.json").exists()
    assert await store.delete(ALICE, doomed.id) is False


async def test_deleting_what_was_never_there_says_so(open_store: OpenStore, tmp_path: Path) -> None:
    store = open_store()

    assert await store.delete(ALICE, episode("s-1").id) is False  # no directory at all
    assert await store.delete(ALICE, "../../memories") is False  # not an id: never a path
    assert not any(tmp_path.iterdir())  # nothing written (the PostgreSQL backend never writes here)


async def test_an_owner_without_episodes_has_an_empty_view_and_nothing_is_created(
    open_store: OpenStore, tmp_path: Path
) -> None:
    store = open_store()

    assert len(await store.view(ALICE)) == 0
    cached = store.cached(ALICE)
    assert cached is not None and len(cached) == 0
    assert not any(tmp_path.iterdir())


async def test_owners_never_see_each_others_episodes(open_store: OpenStore) -> None:
    store = open_store()
    other_workspace, other_user = Owner("alice", "v"), Owner("bob", "w")
    mine, theirs, bobs = episode("s-1"), episode("s-1", owner=other_workspace), episode("s-1", owner=other_user)
    await store.put(ALICE, mine)
    await store.put(other_workspace, theirs)
    await store.put(other_user, bobs)

    assert list(await store.view(ALICE)) == [mine]
    assert list(await store.view(other_workspace)) == [theirs]
    assert list(await open_store().view(other_user)) == [bobs]
    assert await store.delete(ALICE, bobs.id) is False
    assert list(await store.view(other_user)) == [bobs]


async def test_an_episode_is_only_stored_under_its_own_user_and_workspace(open_store: OpenStore) -> None:
    store = open_store()

    with pytest.raises(ValueError):
        await store.put(Owner("bob", "w"), episode("s-1"))
    with pytest.raises(ValueError):
        await store.put(ALICE, replace(episode("s-1"), id="../escape"))
    for owner in (Owner("alice", None), GLOBAL):
        with pytest.raises(ValueError):
            await store.view(owner)
        with pytest.raises(ValueError):
            store.cached(owner)
    assert len(await store.view(ALICE)) == 0


async def test_episodes_survive_a_restart(open_store: OpenStore) -> None:
    before = open_store()
    held = replace(episode("held"), provenance=Provenance(untrusted=True, sources=("web_fetch",)))
    await before.put(ALICE, episode("s-1"))
    await before.put(ALICE, held)
    await before.aclose()

    after = open_store()
    index = await after.view(ALICE)

    assert {e.id for e in index} == {episode("s-1").id, held.id}
    assert index.get(held.id) == held
    assert [e.id for e in index.replayable()] == [episode("s-1").id]


async def test_processes_writing_at_once_lose_no_episode(open_store: OpenStore) -> None:
    one, two = open_store(), open_store()
    episodes = [episode(f"s-{n}") for n in range(6)]

    await asyncio.gather(*(store.put(ALICE, e) for store, e in zip([one, two] * 3, episodes, strict=True)))

    expected = {e.id for e in episodes}
    assert {e.id for e in await one.view(ALICE)} == expected
    assert {e.id for e in await two.view(ALICE)} == expected
    assert {e.id for e in await open_store().view(ALICE)} == expected


async def test_a_broken_store_is_unavailable(tmp_path: Path) -> None:
    root = tmp_path / "not-a-directory"
    root.write_text("")
    store = FilesEpisodes(root)

    with pytest.raises(StoreUnavailable):
        await store.put(ALICE, episode("s-1"))
    with pytest.raises(StoreUnavailable):
        await store.view(ALICE)
    assert store.cached(ALICE) is None


# -- the cache ----------------------------------------------------------------------------------------------


async def test_cached_knows_nothing_before_a_view(open_store: OpenStore) -> None:
    assert open_store().cached(ALICE) is None


async def test_cached_returns_the_index_while_nothing_changes(open_store: OpenStore) -> None:
    await open_store().put(ALICE, episode("s-1"))
    reader = open_store()
    await asyncio.sleep(RACY_WINDOW_PASSED)

    index = await reader.view(ALICE)

    assert reader.cached(ALICE) is index
    assert reader.cached(ALICE) is index


async def test_cached_is_current_right_after_the_processs_own_write(open_store: OpenStore) -> None:
    store = open_store()
    await store.put(ALICE, episode("s-1"))

    index = store.cached(ALICE)
    assert index is not None and [e.session_id for e in index] == ["s-1"]

    await store.delete(ALICE, episode("s-1").id)
    index = store.cached(ALICE)
    assert index is not None and len(index) == 0


async def test_a_put_returns_only_once_its_change_is_past_the_timestamp_tick(
    open_files_store: OpenFilesStore, tmp_path: Path
) -> None:
    """Until then another process's change could land in the same tick and leave the stamp where it was."""
    await open_files_store().put(ALICE, episode("s-1"))

    assert time.time() - episodes_dir(tmp_path).stat().st_mtime >= RACY_S


async def test_cached_notices_another_processs_write(open_files_store: OpenFilesStore) -> None:
    reader, writer = open_files_store(), open_files_store()
    await reader.put(ALICE, episode("s-1"))
    assert reader.cached(ALICE) is not None

    await writer.put(ALICE, episode("s-2"))

    assert reader.cached(ALICE) is None
    assert {e.session_id for e in await reader.view(ALICE)} == {"s-1", "s-2"}
    index = reader.cached(ALICE)
    assert index is not None and len(index) == 2


async def test_cached_notices_another_processs_delete_and_replace(open_files_store: OpenFilesStore) -> None:
    reader, writer = open_files_store(), open_files_store()
    await reader.put(ALICE, episode("s-1"))
    await reader.put(ALICE, episode("s-2"))

    await writer.delete(ALICE, episode("s-1").id)
    assert reader.cached(ALICE) is None
    assert [e.session_id for e in await reader.view(ALICE)] == ["s-2"]

    await writer.put(ALICE, episode("s-2", "revised"))
    assert reader.cached(ALICE) is None
    assert [e.summary for e in await reader.view(ALICE)] == ["revised"]


async def test_a_change_hidden_in_the_same_timestamp_tick_is_still_seen(
    open_files_store: OpenFilesStore, tmp_path: Path
) -> None:
    """A coarse timestamp can hide a second change: here the writer's change keeps the stamp the reader saw.
    The reader read that stamp too soon after its mtime to trust it, so it must not answer from its cache."""
    reader, writer = open_files_store(), open_files_store()
    await writer.put(ALICE, episode("s-1"))
    directory = episodes_dir(tmp_path)
    soon = time.time_ns() + 10**9  # the reader reads "within the tick" of this mtime, however slow the machine
    os.utime(directory, ns=(soon, soon))
    assert [e.session_id for e in await reader.view(ALICE)] == ["s-1"]

    await writer.put(ALICE, episode("s-2"))
    os.utime(directory, ns=(soon, soon))  # the second change landed in the same tick: the stamp did not move

    assert reader.cached(ALICE) is None
    await asyncio.sleep(RACY_WINDOW_PASSED)
    assert reader.cached(ALICE) is None  # waiting does not make a racy stamp trustworthy; reading again does
    assert {e.session_id for e in await reader.view(ALICE)} == {"s-1", "s-2"}


async def test_a_garbage_file_is_skipped_and_its_text_never_logged(
    open_files_store: OpenFilesStore, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logging.getLogger("proxy"), "propagate", True)  # configure_logging may have cut it off
    store = open_files_store()
    good = episode("good")
    await store.put(ALICE, good)
    directory = episodes_dir(tmp_path)
    whole = orjson.dumps(episode("torn", "SECRET torn text").to_json())
    (directory / f"{episode('torn').id}.json").write_bytes(whole[: len(whole) // 2])
    (directory / f"{episode('garbage').id}.json").write_bytes(b"\x00\xffnot json at all")
    bad_field = {**episode("bad").to_json(), "turns": "SECRET three"}
    (directory / f"{episode('bad').id}.json").write_bytes(orjson.dumps(bad_field))
    (directory / f"{episode('elsewhere').id}.json").write_bytes(orjson.dumps(episode("moved", "SECRET").to_json()))
    temp = directory / f"{episode('temp').id}.json.tmp-123-456"
    temp.write_bytes(orjson.dumps(episode("temp").to_json()))  # a writer killed before its rename
    (directory / "notes.txt").write_text("not an episode")

    with caplog.at_level(logging.WARNING, logger="proxy.memory"):
        index = await open_files_store().view(ALICE)

    assert list(index) == [good]
    assert len(caplog.records) == 4
    assert "SECRET" not in caplog.text
    await store.put(ALICE, episode("later"))
    assert not temp.exists()  # the next writer cleans up after the crashed one
    assert {e.session_id for e in await open_files_store().view(ALICE)} == {"good", "later"}


# -- durability ---------------------------------------------------------------------------------------------

WORKER = """
import asyncio, sys
from proxy.memory.backends.episode_files import RACY_S, FilesEpisodes
from proxy.memory.episodes import Episode, episode_id
from proxy.memory.store import Owner

def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()

def episode(session, summary):
    return Episode(episode_id("alice", "w", session), session, "alice", "w", 3, 1.7e9, summary, ("a fact",))

async def main(root):
    store = FilesEpisodes(root)
    number = 0
    while True:
        number += 1
        new = episode(f"s-{number}", "x" * 4000)
        await store.put(Owner("alice", "w"), new)
        say("ok " + new.id)
        await store.put(Owner("alice", "w"), episode("rewritten", f"version {number}"))
        say(f"version {number}")

asyncio.run(main(sys.argv[1]))
"""


async def test_an_acknowledged_episode_survives_kill_9(tmp_path: Path) -> None:
    """The worker puts new episodes and rewrites one over and over, so the kill lands in a put of either kind."""
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        seen: list[str] = []
        while sum(line.startswith("ok ") for line in seen) < 8:
            line = process.stdout.readline().decode()
            if not line:
                pytest.fail(f"the worker stopped early: {process.stderr.read().decode()}")
            seen.append(line.strip())
        process.send_signal(signal.SIGKILL)
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGKILL
    seen += out.decode().splitlines()  # acknowledged before it died
    acked = {line[3:] for line in seen if line.startswith("ok ")}
    versions = [int(line.split()[1]) for line in seen if line.startswith("version ")]

    store = FilesEpisodes(tmp_path)
    index = await store.view(ALICE)
    assert acked <= {e.id for e in index}
    rewritten = index.get(episode_id("alice", "w", "rewritten"))
    assert rewritten is not None and int(rewritten.summary.split()[1]) >= max(versions)

    await store.put(ALICE, episode("after the crash"))
    assert not list(episodes_dir(tmp_path).glob("*.tmp-*"))
    await store.aclose()
    restarted = FilesEpisodes(tmp_path)
    assert {e.id for e in await restarted.view(ALICE)} == {e.id for e in index} | {episode("after the crash").id}
    await restarted.aclose()
