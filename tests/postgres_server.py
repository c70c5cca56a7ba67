"""The tests' PostgreSQL server (one per test session, started when a test first asks for it, its files in memory
where there is room); each test gets a database of its own (``pg_dsn``), dropped when the test ends. Without the
binaries the tests that need them fail, saying how to install them: never skipped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from proxy.testing.postgres import PostgresServer, PostgresUnavailable, postgres_server


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """The test session's PostgreSQL server."""
    try:
        with postgres_server(in_memory=True) as server:
            yield server
    except PostgresUnavailable as exc:
        pytest.fail(f"these tests need a PostgreSQL server: {exc}")


@pytest.fixture
def pg_dsn(postgres: PostgresServer) -> Iterator[str]:
    """A new, empty database of the test's own, dropped when the test ends (a session's databases would fill
    gigabytes)."""
    dsn = postgres.create_database()
    yield dsn
    postgres.drop_database(dsn.rsplit("/", 1)[1])
