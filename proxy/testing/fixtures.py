"""The pytest fixtures `proxy.testing` registers as a plugin (``pytest_plugins = ["proxy.testing"]``): one fake
upstream server per session, reset before each test that asks for it, so tests share a socket but not a script."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .runner import run_fake_upstream
from .upstream import FakeUpstream


@pytest.fixture(scope="session")
def fake_upstream_server() -> Iterator[FakeUpstream]:
    """One fake upstream server for the whole test session."""
    with run_fake_upstream() as fake:
        yield fake


@pytest.fixture
def fake_upstream(fake_upstream_server: FakeUpstream) -> FakeUpstream:
    """The session's fake upstream, reset for this test."""
    fake_upstream_server.reset()
    return fake_upstream_server
