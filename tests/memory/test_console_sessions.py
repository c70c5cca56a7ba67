"""The console sign-in stores' contract, on both backends: what one process writes every other one reads, a sign-out
is gone everywhere, expired sign-ins are swept, and neither the cookie nor a key is ever stored."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from proxy.memory.backends.console_files import FilesConsoleSessions
from proxy.memory.backends.pg_console import PostgresConsoleSessions
from proxy.memory.backends.postgres import Database
from proxy.memory.console_sessions import ConsoleSession, ConsoleSessionStore, session_id

pytestmark = pytest.mark.anyio

COOKIE = "a-cookie-only-the-browser-holds"
Build = Callable[[], ConsoleSessionStore]


def signed_in(cookie: str = COOKIE, *, expires_in: float = 3600, key_id: str | None = "k-0a1b2c") -> ConsoleSession:
    now = time.time()
    return ConsoleSession(session_id(cookie), key_id, None, "default", now, now + expires_in)


@pytest.fixture(params=["files", "postgres"])
async def build(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Build]:
    """A store as another process (another replica) would open it: every call a fresh one over the same data."""
    opened: list[ConsoleSessionStore] = []
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else None

    def make() -> ConsoleSessionStore:
        store: ConsoleSessionStore = (
            FilesConsoleSessions(tmp_path) if dsn is None else PostgresConsoleSessions(Database(dsn))
        )
        opened.append(store)
        return store

    yield make
    for store in opened:
        await store.aclose()


async def test_a_sign_in_written_by_one_process_is_read_by_another(build: Build) -> None:
    session = signed_in()
    await build().put(session)
    assert await build().get(session.id) == session
    assert await build().get(session_id("another cookie")) is None


async def test_a_sign_out_is_gone_for_every_process(build: Build) -> None:
    one, other = build(), build()
    session = signed_in()
    await one.put(session)
    assert await other.get(session.id) == session
    await other.delete(session.id)
    assert await one.get(session.id) is None
    await one.delete(session.id)  # twice: nothing happens


async def test_a_changed_sign_in_replaces_the_old_one(build: Build) -> None:
    store = build()
    session = signed_in()
    await store.put(session)
    moved = ConsoleSession(session.id, session.key_id, "grace", "research", session.created, session.expires)
    await store.put(moved)
    assert await build().get(session.id) == moved


async def test_a_new_sign_in_sweeps_out_expired_ones(build: Build) -> None:
    store = build()
    stale = signed_in("stale cookie", expires_in=-1)
    await store.put(stale)
    assert await store.get(stale.id) == stale  # still there, for the caller to refuse (it is not live)
    assert not stale.live(time.time())
    await store.put(signed_in("fresh cookie"))
    assert await build().get(stale.id) is None


async def test_the_store_never_holds_the_cookie(build: Build, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    session = signed_in()
    await build().put(session)
    assert session.id == session_id(COOKIE) != COOKIE and len(session.id) == 64
    if "files" in request.node.callspec.id:
        stored = b"".join(path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())
    else:
        database = Database(request.getfixturevalue("pg_dsn"))
        async with database.connection() as conn:
            stored = str(await conn.fetch("SELECT * FROM console_sessions")).encode()
        await database.aclose()
    assert COOKIE.encode() not in stored and session.id.encode() in stored


async def test_an_id_that_is_not_a_hash_finds_nothing_and_touches_no_file(tmp_path: Path) -> None:
    store = FilesConsoleSessions(tmp_path)
    await store.put(signed_in())
    for probe in ("../keys", "../../etc/passwd", "", "A" * 64):
        assert await store.get(probe) is None
        await store.delete(probe)
    assert await store.get(session_id(COOKIE)) is not None
