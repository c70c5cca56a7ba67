"""The tests' own PostgreSQL server: without its binaries, the tests that need it fail saying how to get them."""

import pytest

from proxy.testing import postgres
from proxy.testing.postgres import PostgresUnavailable


def test_without_postgresql_binaries_the_server_says_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `postgres` fixture turns this into a failure (pytest.fail), never a skip."""
    monkeypatch.setattr(postgres, "find_binaries", lambda: None)
    with pytest.raises(PostgresUnavailable, match="apt-get install postgresql"), postgres.postgres_server():
        pass
