"""The tests' own PostgreSQL server: without its binaries, the tests that need it fail, never skip."""

import pytest

from tests import postgres_server


def test_without_postgresql_binaries_the_postgres_tests_fail_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_server, "find_binaries", lambda: None)
    with pytest.raises(pytest.fail.Exception, match="apt-get install postgresql"), postgres_server.postgres_server():
        pass
