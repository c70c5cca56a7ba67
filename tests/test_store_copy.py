"""``memproxy store copy --to postgresql://...``: a files store into PostgreSQL with ids, links and counts intact,
and a second run copies nothing twice."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
from click.testing import CliRunner

from proxy.auth.keys import create_key
from proxy.cli import main
from proxy.episodes.jobs import JobQueue, new_job
from proxy.memory.backends.detail_files import FilesDetails
from proxy.memory.backends.episode_files import FilesEpisodes
from proxy.memory.backends.files import FilesStore
from proxy.memory.backends.history_files import FilesHistory
from proxy.memory.backends.key_files import FilesKeys
from proxy.memory.backends.object_files import FilesObjects
from proxy.memory.backends.owner_dirs import NAMES_FILE, owner_dir
from proxy.memory.backends.pg_details import PostgresDetails
from proxy.memory.backends.pg_history import PostgresHistory
from proxy.memory.backends.pg_memories import PostgresStore
from proxy.memory.backends.postgres import Database
from proxy.memory.details import Detail, detail_id
from proxy.memory.episodes import Episode, episode_id
from proxy.memory.history import HistoryLine
from proxy.memory.objects import UpstreamObject
from proxy.memory.records import Embedding, MemoryDraft
from proxy.memory.store import GLOBAL, Owner

ADA, ADA_USER, BOB = Owner("ada", "w"), Owner("ada", None), Owner("bob", "default")
OUTPUT = Detail(detail_id(BOB, "make: done"), "bash", '{"cmd": "make"}', "make: done", 1_700_000_000.0)
EMBEDDING = Embedding("sentence-transformers/all-MiniLM-L6-v2", bytes(768))
T0 = 1_700_000_000.0
TABLES = ("memories", "episodes", "extraction_jobs", "api_keys", "history", "details", "upstream_objects")


def draft(text: str, scope: str = "workspace", **fields: object) -> MemoryDraft:
    return MemoryDraft(text=text, scope=scope, **fields)  # type: ignore[arg-type]


async def fill(root: Path) -> dict[str, str]:
    """A files store with something of every kind: returns the memory ids by text."""
    store = FilesStore(root)
    ids = {}
    for owner, text, scope in [
        (ADA, "Staging runs Postgres 15", "workspace"),
        (ADA_USER, "Ada prefers tabs", "user"),  # embedded: the copy keeps its vector
        (BOB, "Bob deploys with Nomad", "workspace"),
        (GLOBAL, "The office is in Lisbon", "global"),
    ]:
        embedding = EMBEDDING if scope == "user" else None
        ids[text] = (await store.add(owner, draft(text, scope, embedding=embedding), max_total=100)).id
    newer = await store.add(
        ADA, draft("Staging runs Postgres 16"), max_total=100, supersedes=[ids["Staging runs Postgres 15"]]
    )
    ids[newer.text] = newer.id
    await store.count_uses(ADA, {newer.id: (3, T0)})
    laptop = await store.add(ADA, draft("Ada's laptop is a Mac"), max_total=100)
    ids[laptop.text] = laptop.id
    await store.delete(ADA, [laptop.id])  # its history (and so an undo) is kept: copied too
    await store.aclose()
    episodes = FilesEpisodes(root)
    await episodes.put(
        ADA,
        Episode(
            id=episode_id("ada", "w", "s1"),
            session_id="s1",
            user="ada",
            workspace="w",
            turns=3,
            created_at=T0,
            summary="Ada moved staging to Postgres 16.",
            facts=("Staging runs Postgres 16",),
        ),
    )
    await episodes.aclose()
    await JobQueue(root).put(
        new_job(
            user="ada",
            workspace="w",
            session_id="s2",
            model=None,
            turns=3,
            transcript="user: hi",
            untrusted=False,
            sources=(),
            now=T0,
        )
    )
    await create_key(FilesKeys(root), "ada", "personal")
    await FilesObjects(root).bind([UpstreamObject("resp_ada", "ada", T0)])
    history = FilesHistory(root)
    await history.append(ADA, [HistoryLine("s1", 1, "user", T0, "Which Postgres runs staging?")])
    await history.append(BOB, [HistoryLine("s9", 1, "user", T0, "How do we deploy?")])
    await history.aclose()
    await FilesDetails(root).put(BOB, [OUTPUT])
    return ids


def copy(root: Path, dsn: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["store", "copy", "--data-dir", str(root), "--to", dsn, *args])
    return result.exit_code, result.stdout + result.stderr


async def read(dsn: str, ids: tuple[tuple[Owner, str, str], ...] = ()) -> dict[str, object]:
    conn = await asyncpg.connect(dsn)
    try:
        counts = {
            table: await conn.fetchval(f"SELECT count(*) FROM {table}")  # noqa: S608 - the tables named here
            for table in (
                "memories",
                "episodes",
                "extraction_jobs",
                "api_keys",
                "history",
                "details",
                "upstream_objects",
            )
        }
    finally:
        await conn.close()
    database = Database(dsn)
    store = PostgresStore(database)
    history = PostgresHistory(database)
    details = PostgresDetails(database)
    try:
        output = await details.get(BOB, OUTPUT.id)
        said = [line.text for line in (await history.view(ADA)).lines]
        ada = {m.text: m for m in await store.view(ADA)}
        user_wide = [(m.text, m.embedding) for m in await store.view(ADA_USER)]
        bob = [m.text for m in await store.view(BOB)]
        fresh = await store.add(BOB, draft("Bob's laptop is a ThinkPad"), max_total=100)
        histories = {
            text: [(m.version, m.change, m.text) for m in await store.history(owner, memory_id)]
            for owner, text, memory_id in ids
        }
    finally:
        await details.aclose()
        await history.aclose()
        await store.aclose()
    return {
        "counts": counts,
        "ada": ada,
        "user": user_wide,
        "bob": bob,
        "fresh": fresh,
        "said": said,
        "histories": histories,
        "output": output,
    }


def test_a_files_store_is_copied_with_ids_and_links_and_nothing_twice(tmp_path: Path, pg_dsn: str) -> None:
    ids = asyncio.run(fill(tmp_path))
    code, out = copy(tmp_path, pg_dsn)  # every owner's names are recorded: none needs naming
    assert code == 0, out
    assert out.strip() == (
        "copied 5 memories, 3 past versions, 1 episodes, 1 jobs, 1 keys, 2 history lines, 1 details;"
        " skipped 0 already there"
    )

    looked_up = ((ADA, "Staging runs Postgres 15", ids["Staging runs Postgres 15"]),
                 (ADA, "Ada's laptop is a Mac", ids["Ada's laptop is a Mac"]))  # fmt: skip
    found = asyncio.run(read(pg_dsn, looked_up))
    assert found["histories"] == {  # a supersede and a delete, with what each memory was before
        "Staging runs Postgres 15": [(2, "superseded", "Staging runs Postgres 15"),
                                     (1, "created", "Staging runs Postgres 15")],
        "Ada's laptop is a Mac": [(2, "deleted", "Ada's laptop is a Mac"), (1, "created", "Ada's laptop is a Mac")],
    }  # fmt: skip
    counts = {"memories": 5, "episodes": 1, "extraction_jobs": 1, "api_keys": 1, "history": 2, "details": 1}
    counts |= {"upstream_objects": 1}
    assert found["counts"] == counts
    assert found["said"] == ["Which Postgres runs staging?"] and found["output"] == OUTPUT
    ada = found["ada"]
    assert isinstance(ada, dict)
    old, new = ada["Staging runs Postgres 15"], ada["Staging runs Postgres 16"]
    assert (old.id, new.id) == (ids["Staging runs Postgres 15"], ids["Staging runs Postgres 16"])
    assert old.superseded_by == new.id and new.use_count == 3 and new.origin == old.origin
    assert found["user"] == [("Ada prefers tabs", EMBEDDING)] and found["bob"] == ["Bob deploys with Nomad"]
    fresh = found["fresh"]
    assert fresh.number > max(int(i.removeprefix("m-")) for i in ids.values())  # type: ignore[union-attr]

    code, out = copy(tmp_path, pg_dsn)
    assert code == 0, out
    assert out.strip() == (
        "copied 0 memories, 0 past versions, 0 episodes, 0 jobs, 0 keys, 0 history lines, 0 details;"
        " skipped 14 already there"
    )
    # one memory more: the one the first read added; nothing copied twice
    assert asyncio.run(read(pg_dsn))["counts"] == counts | {"memories": 6}


def test_an_older_store_is_copied_with_the_names_its_records_give_and_the_rest_is_reported(
    tmp_path: Path, pg_dsn: str
) -> None:
    asyncio.run(fill(tmp_path))
    for owner in (ADA, ADA_USER, BOB):  # as a store written before names were recorded
        (tmp_path / owner_dir(owner) / NAMES_FILE).unlink()
    code, out = copy(tmp_path, pg_dsn)  # ada: her episode, job and key name her; bob: named by nothing
    assert code == 1, out
    first, second = out.strip().splitlines()
    assert first == (
        "copied 4 memories, 3 past versions, 1 episodes, 1 jobs, 1 keys, 1 history lines, 0 details;"
        " skipped 0 already there"
    )
    assert second.startswith("not copied: 1 owner folder(s)") and "--user and --workspace" in second
    assert str(owner_dir(BOB)) in second
    code, out = copy(tmp_path, pg_dsn, "--user", "bob")  # named now: the rest of it goes, nothing twice
    assert code == 0, out
    assert out.strip().startswith(
        "copied 1 memories, 0 past versions, 0 episodes, 0 jobs, 0 keys, 1 history lines, 1 details;"
    )


def test_an_unreachable_database_is_one_line(tmp_path: Path) -> None:
    asyncio.run(fill(tmp_path))
    code, out = copy(tmp_path, "postgresql://nobody@127.0.0.1:1/none")
    assert code == 2 and out.startswith("memproxy: ") and len(out.strip().splitlines()) == 1
