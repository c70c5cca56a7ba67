"""The census's contract on every backend (each owner's counts, a user's workspaces, what waits for review by scope),
and the files store's own part of it: owner names recorded, older stores named from what else they hold, and the
held marks that keep the count of what waits for review cheap."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from proxy.auth.keys import create_key
from proxy.episodes.jobs import JobQueue, new_job
from proxy.memory.backends.census_files import FilesCensus
from proxy.memory.backends.detail_files import FilesDetails
from proxy.memory.backends.episode_files import FilesEpisodes
from proxy.memory.backends.files import FilesStore
from proxy.memory.backends.history_files import FilesHistory
from proxy.memory.backends.key_files import FilesKeys
from proxy.memory.backends.owner_dirs import HELD_DIR, NAMES_FILE, owner_dir, read_names
from proxy.memory.backends.pg_schema import MIGRATIONS
from proxy.memory.census import EVERYONE, Census, Held, Tally, UserScope
from proxy.memory.details import Detail, DetailStore, detail_id
from proxy.memory.episodes import Episode, EpisodeStore, episode_id
from proxy.memory.history import HistoryLine, HistoryStore
from proxy.memory.provenance import TRUSTED, Provenance
from proxy.memory.records import MemoryDraft
from proxy.memory.store import GLOBAL, MemoryStore, Owner

pytestmark = pytest.mark.anyio
HELD = Provenance(True, ("web_fetch",))
ADA, ADA_W2, ADA_USER, BOB = Owner("ada", "default"), Owner("ada", "w2"), Owner("ada", None), Owner("bob", "default")
GRACE = Owner("svc:k-1:grace", "default")


@dataclass
class Stores:
    memories: MemoryStore
    episodes: EpisodeStore
    history: HistoryStore
    details: DetailStore
    census: Census
    root: Path

    async def aclose(self) -> None:
        for store in (self.census, self.details, self.history, self.episodes, self.memories):
            await store.aclose()


@pytest.fixture(params=["files", "postgres"])
async def stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Stores]:
    if request.param == "files":
        built = Stores(
            FilesStore(tmp_path), FilesEpisodes(tmp_path), FilesHistory(tmp_path), FilesDetails(tmp_path),
            FilesCensus(tmp_path), tmp_path,
        )  # fmt: skip
    else:
        from proxy.memory.backends.pg_census import PostgresCensus
        from proxy.memory.backends.pg_details import PostgresDetails
        from proxy.memory.backends.pg_episodes import PostgresEpisodes
        from proxy.memory.backends.pg_history import PostgresHistory
        from proxy.memory.backends.pg_memories import PostgresStore
        from proxy.memory.backends.postgres import Database

        database = Database(request.getfixturevalue("pg_dsn"))
        built = Stores(
            PostgresStore(database), PostgresEpisodes(database), PostgresHistory(database), PostgresDetails(database),
            PostgresCensus(database), tmp_path,
        )  # fmt: skip
    yield built
    await built.aclose()


def episode(owner: Owner, session: str, provenance: Provenance = TRUSTED) -> Episode:
    assert owner.user is not None and owner.workspace is not None
    return Episode(
        episode_id(owner.user, owner.workspace, session), session, owner.user, owner.workspace, 3, time.time(),
        "A session.", (), provenance,
    )  # fmt: skip


async def add(stores: Stores, owner: Owner, text: str, **fields: object) -> str:
    draft = MemoryDraft(text=text, scope="workspace" if owner.workspace else "user", **fields)  # type: ignore[arg-type]
    return (await stores.memories.add(owner, draft, max_total=100)).id


async def fill(stores: Stores) -> None:
    first = await add(stores, ADA, "Ada writes Go")
    second = await stores.memories.add(ADA, MemoryDraft("Ada writes Go and Rust"), max_total=100, supersedes=[first])
    assert second.superseded_by is None
    await add(stores, ADA, "Ada's editor is vim", pinned=True)
    await add(stores, ADA, "Ada read a page", provenance=HELD)
    await add(stores, ADA_USER, "Ada prefers dark mode")
    await stores.episodes.put(ADA_W2, episode(ADA_W2, "s1", HELD))
    await stores.episodes.put(ADA_W2, episode(ADA_W2, "s2"))
    await stores.history.append(ADA, [HistoryLine("s3", n, "user", time.time(), f"line {n}") for n in (1, 2, 3)])
    await stores.details.put(BOB, [Detail(detail_id(BOB, "output"), "bash", "{}", "output", time.time())])
    await add(stores, GRACE, "Grace read a page", provenance=HELD)
    await stores.memories.add(GLOBAL, MemoryDraft("The wiki says so", scope="global", provenance=HELD), max_total=100)


async def test_each_owner_is_counted_by_kind_and_global_beside_them(stores: Stores) -> None:
    await fill(stores)
    tallies = await stores.census.tallies()
    assert tallies == {
        ADA: Tally(memories=2, held=1, pinned=1, superseded=1, history=3),
        ADA_W2: Tally(episodes=2, held_episodes=1),
        ADA_USER: Tally(memories=1),
        BOB: Tally(details=1),
        GRACE: Tally(held=1),
        GLOBAL: Tally(held=1),
    }


async def test_an_owner_whose_data_is_all_gone_is_counted_no_more(stores: Stores) -> None:
    memory_id = await add(stores, BOB, "Bob deploys on Fridays")
    assert BOB in await stores.census.tallies()
    await stores.memories.delete(BOB, [memory_id])
    assert BOB not in await stores.census.tallies()
    assert await stores.census.workspaces("bob") == set()


async def test_a_users_workspaces_are_where_anything_of_theirs_is_stored(stores: Stores) -> None:
    await fill(stores)
    assert await stores.census.workspaces("ada") == {"default", "w2", None}
    assert await stores.census.workspaces("bob") == {"default"}
    assert await stores.census.workspaces("carol") == set()


async def test_what_waits_for_review_is_counted_by_scope(stores: Stores) -> None:
    await fill(stores)
    census = stores.census
    assert await census.held(EVERYONE) == Held(memories=3, episodes=1)
    assert await census.held(UserScope(users=frozenset({"ada"}))) == Held(memories=1, episodes=1)
    assert await census.held(UserScope(users=frozenset({"bob"}))) == Held()
    assert await census.held(UserScope(prefix="svc:k-1:")) == Held(memories=1)
    assert await census.held(UserScope(prefix="svc:k-2:")) == Held()
    waiting = [m for m in await stores.memories.view(ADA) if m.held]
    approved = replace(waiting[0], provenance=waiting[0].provenance.approved())
    await stores.memories.replace(ADA, [approved])
    await stores.episodes.put(ADA_W2, replace(episode(ADA_W2, "s1"), provenance=HELD.approved()))
    assert await census.held(EVERYONE) == Held(memories=2)
    assert await census.held(UserScope(users=frozenset({"ada"}))) == Held()


async def test_what_waits_for_review_is_counted_owner_by_owner_as_in_all(stores: Stores) -> None:
    await fill(stores)
    census = stores.census
    by_owner = await census.held_by_owner(EVERYONE)
    assert by_owner == {ADA: Held(memories=1), ADA_W2: Held(episodes=1), GRACE: Held(memories=1),
                        GLOBAL: Held(memories=1)}  # fmt: skip
    assert sum(held.total for held in by_owner.values()) == (await census.held(EVERYONE)).total
    assert await census.held_by_owner(UserScope(users=frozenset({"ada"}))) == {ADA: Held(1), ADA_W2: Held(0, 1)}
    assert await census.held_by_owner(UserScope(users=frozenset({"bob"}))) == {}
    assert list(await census.held_by_owner(UserScope(prefix="svc:k-1:"))) == [GRACE]


async def test_the_schema_says_which_layout_the_store_is_in(stores: Stores) -> None:
    schema = await stores.census.schema()
    assert schema.current and schema.version == schema.expected
    if schema.backend == "postgres":
        assert schema.applied[-1] == schema.version == MIGRATIONS[-1][0]
    else:
        assert schema.version == "files-2" and schema.applied == ()


# -- the files store's names and marks --------------------------------------------------------------------------------


def forget_names(root: Path, *owners: Owner) -> None:
    """As a store written before names were recorded."""
    for owner in owners:
        os.unlink(root / owner_dir(owner) / NAMES_FILE)


async def test_every_files_backend_records_an_owners_names_where_it_first_writes(tmp_path: Path) -> None:
    odd = Owner("a/b c é", "w/1")
    await FilesStore(tmp_path).add(odd, MemoryDraft("x"), max_total=10)
    await FilesEpisodes(tmp_path).put(ADA_W2, episode(ADA_W2, "s1"))
    history = FilesHistory(tmp_path)
    await history.append(BOB, [HistoryLine("s1", 1, "user", time.time(), "hi")])
    await history.aclose()
    await FilesDetails(tmp_path).put(ADA, [Detail(detail_id(ADA, "out"), "bash", "{}", "out", time.time())])
    for owner in (odd, ADA_W2, BOB, ADA):
        assert read_names(tmp_path, owner_dir(owner)) == owner


async def test_an_older_files_store_is_named_from_what_else_it_holds_and_the_names_are_recorded(tmp_path: Path) -> None:
    store, episodes = FilesStore(tmp_path), FilesEpisodes(tmp_path)
    for owner in (ADA, ADA_USER, BOB, Owner("carol", "proj"), Owner("dave", "secret-project")):
        await add_to(store, owner)
    await episodes.put(Owner("carol", "proj"), episode(Owner("carol", "proj"), "s1"))  # names carol's folder
    await JobQueue(tmp_path).put(
        new_job(user="bob", workspace="default", session_id="s", model=None, turns=3, transcript="t",
                untrusted=False, sources=(), now=time.time())
    )  # fmt: skip
    await create_key(FilesKeys(tmp_path), "ada", "personal")
    await store.aclose()
    forget_names(tmp_path, ADA, ADA_USER, BOB, Owner("carol", "proj"), Owner("dave", "secret-project"))
    census = FilesCensus(tmp_path)
    tallies = await census.tallies()
    assert set(tallies) == {ADA, ADA_USER, BOB, Owner("carol", "proj")}  # ada: a key; bob: a job; default: tried
    assert await census.unnamed() == [str(owner_dir(Owner("dave", "secret-project")))]
    assert read_names(tmp_path, owner_dir(ADA)) == ADA  # recorded: the next process needs no guessing
    reopened = FilesStore(tmp_path)
    await reopened.view(Owner("dave", "secret-project"))  # a request for dave names his folder
    await reopened.aclose()
    assert await FilesCensus(tmp_path).unnamed() == []


async def add_to(store: FilesStore, owner: Owner) -> None:
    await store.add(owner, MemoryDraft(f"{owner.user} note", scope="workspace" if owner.workspace else "user"),
                    max_total=10)  # fmt: skip


async def test_the_held_count_reads_marked_owners_only_and_unmarks_those_holding_none(tmp_path: Path) -> None:
    store = FilesStore(tmp_path)
    held_id = (await store.add(ADA, MemoryDraft("Ada read a page", provenance=HELD), max_total=10)).id
    await store.add(BOB, MemoryDraft("Bob deploys on Fridays"), max_total=10)
    marks = tmp_path / HELD_DIR
    assert len(os.listdir(marks)) == 1  # ada's, by the write itself
    census = FilesCensus(tmp_path)
    assert await census.held(EVERYONE) == Held(memories=1)
    [waiting] = [m for m in await store.view(ADA) if m.id == held_id]
    await store.replace(ADA, [replace(waiting, provenance=waiting.provenance.approved())])
    assert await census.held(EVERYONE) == Held()
    assert os.listdir(marks) == []  # unmarked: nothing left to review there
    await store.aclose()


async def test_a_processs_first_count_marks_what_an_older_store_holds_unmarked(tmp_path: Path) -> None:
    store = FilesStore(tmp_path)
    await store.add(BOB, MemoryDraft("Bob read a page", provenance=HELD), max_total=10)
    await store.aclose()
    for name in os.listdir(tmp_path / HELD_DIR):  # as a store written before marks were kept
        os.unlink(tmp_path / HELD_DIR / name)
    census = FilesCensus(tmp_path)
    assert await census.held(EVERYONE) == Held(memories=1)
    assert len(os.listdir(tmp_path / HELD_DIR)) == 1
    assert await FilesCensus(tmp_path).held(UserScope(users=frozenset({"bob"}))) == Held(memories=1)
