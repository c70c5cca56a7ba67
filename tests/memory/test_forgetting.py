"""forget-all marks: kept in the store (both backends), the later one winning, and heard by every process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from proxy.memory.backends.forget_files import FilesForgetting
from proxy.memory.backends.history_files import FilesHistory
from proxy.memory.backends.pg_forgetting import PostgresForgetting
from proxy.memory.backends.pg_history import PostgresHistory
from proxy.memory.backends.postgres import Database
from proxy.memory.forgetting import ForgetStore, Forgetting
from proxy.memory.history import HistoryLine
from proxy.memory.store import Owner

pytestmark = pytest.mark.anyio
Build = Callable[[], ForgetStore]


@pytest.fixture(params=["files", "postgres"])
async def build(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Build]:
    opened: list[ForgetStore] = []
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else None

    def make() -> ForgetStore:
        store: ForgetStore = FilesForgetting(tmp_path) if dsn is None else PostgresForgetting(Database(dsn))
        opened.append(store)
        return store

    yield make
    for store in opened:
        await store.aclose()


async def test_the_latest_mark_of_each_owner_is_kept_and_every_process_sees_it(build: Build) -> None:
    one, other = build(), build()
    before = await other.version()
    await one.mark("ada", "w", 100.0)
    await other.mark("ada", "w", 50.0)  # an older one changes nothing
    await other.mark("bob", "default", 70.0)
    assert await build().marks() == {("ada", "w"): 100.0, ("bob", "default"): 70.0}
    assert await other.version() != before


async def test_every_process_hears_of_a_forget_and_drops_what_it_holds(build: Build) -> None:
    here, there = Forgetting(build()), Forgetting(build())
    heard: list[tuple[tuple[str, str], float]] = []
    there.subscribe(lambda owner, before: heard.append((owner, before)))
    await there.refresh()
    when = await here.mark("ada", "w")
    await there.refresh()
    assert heard == [(("ada", "w"), when)] and there.before("ada", "w") == when and there.before("bob", "w") == 0.0
    await there.refresh()
    assert len(heard) == 1  # heard once


@pytest.mark.parametrize("backend", ["files", "postgres"])
async def test_history_said_before_the_mark_is_refused_by_the_store_itself(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Another process or replica writing queued lines as forget-all runs, before it has heard of the forget: the
    store keeps none said before the mark."""
    if backend == "postgres":
        database = Database(request.getfixturevalue("pg_dsn"))
        history: FilesHistory | PostgresHistory = PostgresHistory(database)
        marks: ForgetStore = PostgresForgetting(database)
    else:
        history, marks = FilesHistory(tmp_path), FilesForgetting(tmp_path)
    try:
        owner = Owner("ada", "w")
        await history.append(owner, [HistoryLine("s", 1, "user", 998.0, "read before the forget")])
        await marks.mark("ada", "w", 1000.0)
        kept = await history.append(
            owner, [HistoryLine("s", 2, "user", 999.0, "old"), HistoryLine("s", 3, "user", 1001.0, "new")]
        )
        assert kept == 1
        assert [line.text for line in (await history.view(owner)).lines] == ["read before the forget", "new"]
        assert await history.append(Owner("bob", "w"), [HistoryLine("s", 1, "user", 999.0, "bob's")]) == 1
    finally:
        await history.aclose()
        await marks.aclose()


async def test_files_history_written_by_the_service_keeps_nothing_said_before_the_mark(tmp_path: Path) -> None:
    from proxy.config import HistorySettings
    from proxy.memory.history_service import HistoryService

    service = HistoryService(FilesHistory(tmp_path), HistorySettings())
    service.forgotten_before = lambda owner: 1000.0
    lines = [HistoryLine("s", 1, "user", 999.0, "old"), HistoryLine("s", 2, "user", 1001.0, "new")]
    service.note(Owner("ada", "w"), lambda: lines)
    await service.flush()
    assert [line.text for line in (await service.store.view(Owner("ada", "w"))).lines] == ["new"]
    await service.aclose()
