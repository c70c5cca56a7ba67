"""Upstream object bindings, one contract over both backends: the first binding of an id stands, every process
sees it, and pruning drops what expired and what is past a user's cap."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from proxy.memory.backends.object_files import FilesObjects
from proxy.memory.backends.pg_objects import PostgresObjects
from proxy.memory.backends.postgres import Database
from proxy.memory.objects import ObjectStore, UpstreamObject

pytestmark = pytest.mark.anyio
Build = Callable[[], ObjectStore]


@pytest.fixture(params=["files", "postgres"])
async def build(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Build]:
    """A store as another process would open it: every call a fresh one over the same data."""
    opened: list[ObjectStore] = []
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else None

    def make() -> ObjectStore:
        store: ObjectStore = FilesObjects(tmp_path) if dsn is None else PostgresObjects(Database(dsn))
        opened.append(store)
        return store

    yield make
    for store in opened:
        await store.aclose()


async def test_the_first_binding_of_an_id_stands_and_every_process_sees_it(build: Build) -> None:
    one, other = build(), build()
    await one.bind([UpstreamObject("resp_1", "ada", 100.0), UpstreamObject("file-1", "ada", 100.0)])
    await other.bind([UpstreamObject("resp_1", "bob", 200.0), UpstreamObject("resp_2", "bob", 200.0)])
    assert await one.owners(["resp_1", "resp_2", "file-1", "resp_none"], 0.0) == {
        "resp_1": "ada",
        "resp_2": "bob",
        "file-1": "ada",
    }
    assert await build().owners(["resp_1"], 0.0) == {"resp_1": "ada"}


async def test_an_expired_binding_is_nobodys(build: Build) -> None:
    store = build()
    await store.bind([UpstreamObject("resp_old", "ada", 100.0), UpstreamObject("resp_new", "ada", 500.0)])
    assert await store.owners(["resp_old", "resp_new"], 300.0) == {"resp_new": "ada"}


async def test_pruning_drops_the_expired_and_each_users_oldest_past_the_cap(build: Build) -> None:
    store = build()
    await store.bind([UpstreamObject(f"resp_a{n}", "ada", 1000.0 + n) for n in range(5)])
    await store.bind([UpstreamObject("resp_b", "bob", 1000.0), UpstreamObject("resp_old", "bob", 10.0)])
    assert await store.prune(before=500.0, per_user=3) == 3
    left = await build().owners([f"resp_a{n}" for n in range(5)] + ["resp_b", "resp_old"], 0.0)
    assert sorted(left) == ["resp_a2", "resp_a3", "resp_a4", "resp_b"]
    await store.bind([UpstreamObject("resp_after", "ada", 2000.0)])  # the store goes on after a rewrite
    assert await build().owners(["resp_after", "resp_a4"], 0.0) == {"resp_after": "ada", "resp_a4": "ada"}


async def test_concurrent_binders_lose_nothing(build: Build) -> None:
    stores = [build() for _ in range(3)]
    await asyncio.gather(
        *(
            store.bind([UpstreamObject(f"resp_{i}_{n}", f"u{i}", 1.0) for n in range(30)])
            for i, store in enumerate(stores)
        )
    )
    found = await build().owners([f"resp_{i}_{n}" for i in range(3) for n in range(30)], 0.0)
    assert len(found) == 90 and found["resp_2_7"] == "u2"


async def test_an_id_with_a_nul_is_nobodys_and_never_an_error(build: Build) -> None:
    store = build()
    await store.bind([UpstreamObject("resp_\x00x", "ada", 1.0), UpstreamObject("resp_ok", "ada", 1.0)])
    assert await store.owners(["resp_\x00x", "resp_ok"], 0.0) in (
        {"resp_ok": "ada"},
        {"resp_ok": "ada", "resp_\x00x": "ada"},
    )
    assert "resp_\x00y" not in await store.owners(["resp_\x00y"], 0.0)
