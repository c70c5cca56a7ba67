"""The history stores' contract, on both backends, and the service that queues, writes, searches and prunes."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from proxy.config import HistorySettings
from proxy.errors import StoreUnavailable
from proxy.memory import history_service
from proxy.memory.backends import history_files
from proxy.memory.backends.history_files import FilesHistory
from proxy.memory.backends.pg_history import PostgresHistory
from proxy.memory.backends.postgres import Database
from proxy.memory.caller import Identity
from proxy.memory.history import DAY_S, HistoryLine, HistoryStore
from proxy.memory.history_service import HistoryService
from proxy.memory.store import Owner

pytestmark = pytest.mark.anyio

ADA, GRACE = Owner("ada", "w"), Owner("grace", "w")
NOW = time.time()

Build = Callable[[], HistoryStore]


def line(text: str, *, session: str = "s1", turn: int = 1, ts: float = NOW, role: str = "user") -> HistoryLine:
    return HistoryLine(session, turn, role, ts, text)


@pytest.fixture(params=["files", "postgres"])
async def build(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Build]:
    """A store as another process would open it: every call a fresh one over the same data."""
    opened: list[HistoryStore] = []
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else None

    def make() -> HistoryStore:
        store: HistoryStore = FilesHistory(tmp_path) if dsn is None else PostgresHistory(Database(dsn))
        opened.append(store)
        return store

    yield make
    for store in opened:
        await store.aclose()


def texts(lines: object) -> list[str]:
    return [x.text for x in lines]  # type: ignore[attr-defined]


async def test_lines_are_kept_once_in_order_and_other_processes_see_them(build: Build) -> None:
    one, other = build(), build()
    assert await one.append(ADA, [line("a", turn=1), line("b", turn=2), line("a", turn=1)]) == 2
    assert await other.append(ADA, [line("b", turn=2), line("c", turn=3)]) == 1  # b was there: a re-sent turn
    assert texts((await one.view(ADA)).lines) == ["a", "b", "c"]
    assert texts((await build().view(ADA)).lines) == ["a", "b", "c"]
    assert len(await one.view(GRACE)) == 0  # one owner's history never shows in another's


async def test_concurrent_writers_lose_nothing(build: Build) -> None:
    stores = [build() for _ in range(3)]
    await asyncio.gather(
        *(store.append(ADA, [line(f"w{i} line {n}", turn=n) for n in range(20)]) for i, store in enumerate(stores))
    )
    assert len(await build().view(ADA)) == 60


async def test_forget_removes_one_owners_history_only(build: Build) -> None:
    store = build()
    await store.append(ADA, [line("ada says"), line("more", turn=2)])
    await store.append(GRACE, [line("grace says")])
    assert await store.forget(ADA) == 2
    assert len(await store.view(ADA)) == 0 and len(await build().view(ADA)) == 0
    assert texts((await store.view(GRACE)).lines) == ["grace says"]
    await store.append(ADA, [line("after")])  # a new start
    assert texts((await build().view(ADA)).lines) == ["after"]


async def test_a_reader_that_read_an_owner_sees_another_processes_forget_and_new_lines(build: Build) -> None:
    reader, writer = build(), build()
    await writer.append(ADA, [line("one"), line("two", turn=2)])
    assert texts((await reader.view(ADA)).lines) == ["one", "two"]
    await writer.forget(ADA)
    await writer.append(ADA, [line("three", turn=3), line("four", turn=4)])  # as many rows as before, all new
    assert texts((await reader.view(ADA)).lines) == ["three", "four"]
    await writer.append(ADA, [line("five", turn=5)])
    assert texts((await reader.view(ADA)).lines) == ["three", "four", "five"]


async def test_prune_removes_old_lines_of_every_owner(build: Build) -> None:
    store = build()
    await store.append(ADA, [line("old", ts=NOW - 40 * DAY_S), line("new", turn=2)])
    await store.append(GRACE, [line("older", ts=NOW - 90 * DAY_S)])
    other = build()
    await other.view(ADA)  # a reader that saw the old line: it must catch up with the prune
    assert await store.prune(NOW - 30 * DAY_S) == 2
    assert texts((await other.view(ADA)).lines) == ["new"]
    assert len(await other.view(GRACE)) == 0
    assert await store.prune(NOW - 30 * DAY_S) == 0


async def test_a_torn_last_line_from_a_crash_is_cut_off_not_glued(tmp_path: Path) -> None:
    store = FilesHistory(tmp_path)
    await store.append(ADA, [line("whole")])
    (path,) = tmp_path.rglob("history.jsonl")
    with open(path, "ab") as handle:
        handle.write(b'{"kind":"history","session":"s1","tu')  # kill -9 mid-write
    assert texts((await FilesHistory(tmp_path).view(ADA)).lines) == ["whole"]
    await store.append(ADA, [line("next", turn=2)])
    assert texts((await FilesHistory(tmp_path).view(ADA)).lines) == ["whole", "next"]
    assert all(raw.startswith(b"{") for raw in path.read_bytes().splitlines())


async def test_a_long_append_lets_requests_run_while_its_lines_are_worked_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python work of an append (keys, times, JSON) runs on the event loop in slices, not in the file thread,
    where it would hold the GIL against the loop; the loop's other tasks run between the slices."""
    ticks = 0
    at_thread: list[int] = []
    write = history_files._OwnerHistory.append

    def counted(self: history_files._OwnerHistory, lines: list[object]) -> int:
        at_thread.append(ticks)
        return write(self, lines)  # type: ignore[arg-type]

    async def requests() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    monkeypatch.setattr(history_files._OwnerHistory, "append", counted)
    running = asyncio.ensure_future(requests())
    await asyncio.sleep(0)
    started = ticks
    store = FilesHistory(tmp_path)
    lines = [line(f"what was said {n}", turn=n, ts=NOW + n / 7) for n in range(20_000)]
    assert await store.append(ADA, lines) == 20_000
    running.cancel()
    assert at_thread[0] - started >= 2  # requests ran before the file work began
    kept = (await FilesHistory(tmp_path).view(ADA)).lines
    assert len(kept) == len(lines)
    assert all(0 <= said.ts - back.ts < 0.001 for said, back in zip(lines, kept, strict=True))  # to the millisecond
    await store.aclose()


# -- the service ------------------------------------------------------------------------------------------------


def service(store: HistoryStore, **settings: object) -> HistoryService:
    return HistoryService(store, HistorySettings(**settings))  # type: ignore[arg-type]


async def test_a_note_is_written_in_the_background_and_a_search_sees_it_at_once(build: Build) -> None:
    history = service(build())
    history.start()
    try:
        rendered = asyncio.Event()

        def render() -> list[HistoryLine]:
            rendered.set()
            return [line("my cat is called Pixel")]

        history.note(ADA, render)
        assert not rendered.is_set()  # nothing happens on the request path
        found = await history.search(Identity("ada", "w"), "cat name called", limit=5, person=False)
        assert [f.citation()["text"] for f in found] == ["my cat is called Pixel"]
        assert texts((await build().view(ADA)).lines) == ["my cat is called Pixel"]  # durable, for others too
    finally:
        await history.aclose()


async def test_shutdown_writes_what_is_queued(build: Build) -> None:
    history = service(build())
    history.note(ADA, lambda: [line("said just before shutdown")])
    await history.aclose()
    assert texts((await build().view(ADA)).lines) == ["said just before shutdown"]


async def test_lines_past_retention_are_never_shown_and_get_pruned(build: Build) -> None:
    store = build()
    await store.append(ADA, [line("deploy on friday", ts=NOW - 10 * DAY_S), line("deploy on monday", turn=2)])
    history = service(store, retention_days=7)
    ada = Identity("ada", "w")
    assert [f.line.text for f in await history.search(ada, "deploy", limit=5, person=True)] == ["deploy on monday"]
    assert texts(await history.export(ada)) == ["deploy on monday"]
    assert await history.prune() == 1
    assert texts((await build().view(ADA)).lines) == ["deploy on monday"]
    await history.aclose()


async def test_forget_drops_queued_lines_too(build: Build) -> None:
    store = build()
    history = service(store)
    await store.append(ADA, [line("stored")])
    history.note(ADA, lambda: [line("queued", turn=2)])
    history.note(GRACE, lambda: [line("grace's")])
    assert await history.forget(Identity("ada", "w")) == 2  # the stored line and the queued one: both were said
    await history.flush()
    assert len(await build().view(ADA)) == 0
    assert texts((await build().view(GRACE)).lines) == ["grace's"]
    await history.aclose()


async def test_history_off_keeps_nothing(tmp_path: Path) -> None:
    history = service(FilesHistory(tmp_path), enabled=False)
    history.note(ADA, lambda: [line("not kept")])
    await history.aclose()
    assert not list(tmp_path.rglob("history.jsonl"))


class _Failing:
    """A store that is down until told otherwise."""

    def __init__(self, inner: HistoryStore) -> None:
        self.inner, self.down = inner, True

    async def append(self, owner: Owner, lines: object) -> int:
        if self.down:
            raise StoreUnavailable("the history store failed: disk full")
        return await self.inner.append(owner, lines)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


async def test_a_failed_write_is_kept_and_written_once_the_store_is_back(tmp_path: Path) -> None:
    failing = _Failing(FilesHistory(tmp_path))
    history = service(failing)  # type: ignore[arg-type]
    history.note(ADA, lambda: [line("kept through an outage")])
    await history.flush()
    assert len(await FilesHistory(tmp_path).view(ADA)) == 0
    failing.down = False
    await history.flush()
    assert texts((await FilesHistory(tmp_path).view(ADA)).lines) == ["kept through an outage"]
    await history.aclose()


async def test_an_unreadable_line_is_skipped(tmp_path: Path) -> None:
    store = FilesHistory(tmp_path)
    await store.append(ADA, [line("good")])
    (path,) = tmp_path.rglob("history.jsonl")
    with open(path, "ab") as handle:
        handle.write(b'{"kind":"history","nonsense":1}\n')
    os.utime(path)
    await store.append(ADA, [line("also good", turn=2)])
    assert texts((await FilesHistory(tmp_path).view(ADA)).lines) == ["good", "also good"]


class _Counting:
    """A store that records each append's lines and says when one happened."""

    def __init__(self, inner: HistoryStore) -> None:
        self.inner, self.appends, self.appended = inner, [], asyncio.Event()

    async def append(self, owner: Owner, lines: object) -> int:
        self.appends.append(texts(lines))
        self.appended.set()
        return await self.inner.append(owner, lines)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


async def test_a_busy_proxy_writes_its_requests_history_in_one_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests arriving one after another share one write (one thread hop, one fsync), not one each."""
    monkeypatch.setattr(history_service, "LINGER_S", 3.0)  # room for a loaded machine's slow thread hops
    counting = _Counting(FilesHistory(tmp_path))
    history = service(counting)  # type: ignore[arg-type]
    history.start()
    for n in range(20):  # twenty requests, the event loop running between them
        history.note(ADA, lambda n=n: [line(f"request {n}", turn=n + 1)])  # type: ignore[misc]
        await asyncio.sleep(0)
        await asyncio.to_thread(lambda: None)  # as a request's own awaits would let a writer run
    await asyncio.wait_for(counting.appended.wait(), 30)
    assert counting.appends == [[f"request {n}" for n in range(20)]]
    await history.aclose()
    assert len(await FilesHistory(tmp_path).view(ADA)) == 20


async def test_trim_keeps_the_newest_lines_within_the_quota_and_every_process_sees_it(build: Build) -> None:
    one = build()
    await one.append(ADA, [line("x" * 100, turn=n, ts=NOW + n) for n in range(1, 11)])  # 1,000 characters
    await one.append(GRACE, [line("g" * 100)])
    assert await one.trim(ADA, 350) == 7  # three lines of 100 fit in 350
    assert [x.turn for x in (await build().view(ADA)).lines] == [8, 9, 10]
    assert await one.trim(ADA, 350) == 0
    assert len(await build().view(GRACE)) == 1  # another owner's history is untouched
    await one.append(ADA, [line("y", turn=11, ts=NOW + 11)])
    assert [x.turn for x in (await build().view(ADA)).lines] == [8, 9, 10, 11]
