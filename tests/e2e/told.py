"""Replicas a test can wait on: until each has heard of every change committed so far.

A PostgreSQL replica trusts what it cached until the database's notification of a newer version reaches it: a few
milliseconds, which a client that turns to the other replica at once may beat (a loaded machine delays the
notification). :class:`Told` sends a notification of its own and waits for every replica to hear it: PostgreSQL
delivers a channel's notifications in the order they were committed, and a replica handles them in the order they
come, so by then each has heard of everything committed before. Replicas on one data dir need no wait: each read
checks the files.
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import asyncpg

from proxy.app import create_app
from proxy.config import load_settings
from proxy.memory.backends.postgres import CHANNEL, Database
from proxy.services import build_services
from proxy.serving import http_protocol
from proxy.testing.runner import serve_in_background

WAIT_S = 300.0  # a safety net: the wait ends on its event


class Told:
    KIND = "test-told"  # a kind no store subscribes to: only the test hears it

    def __init__(self) -> None:
        self.dsn: str | None = None
        self.heard: list[int] = []
        self.numbers = itertools.count(1)
        self.changed = threading.Condition()

    def listen(self, database: Database) -> None:
        """Before the replica starts: its listener then hears our notifications too."""
        self.dsn = database.dsn
        index = len(self.heard)
        self.heard.append(0)

        def heard(tag: str, number: int) -> None:  # on the replica's event loop
            with self.changed:
                self.heard[index] = number
                self.changed.notify_all()

        database.subscribe(self.KIND, heard)

    def __call__(self) -> None:
        """Return once every replica has heard of every change committed before the call."""
        if self.dsn is None:
            return  # no PostgreSQL replica
        number, dsn = next(self.numbers), self.dsn

        async def notify() -> None:
            conn = await asyncpg.connect(dsn)
            try:
                await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{self.KIND}:all:{number}")
            finally:
                await conn.close()

        asyncio.run(notify())
        with self.changed:
            told = self.changed.wait_for(lambda: min(self.heard) >= number, WAIT_S)
        assert told, "a replica never heard of the latest change"


@contextmanager
def run_replica(upstream_url: str, overrides: dict[str, Any], told: Told) -> Iterator[str]:
    """A proxy as ``run_proxy`` starts one (its own data dir unless ``overrides`` name one), whose PostgreSQL
    listener, if it has one, also tells ``told``; yields its ``/v1`` base URL."""
    with tempfile.TemporaryDirectory(prefix="memproxy-test-") as data_dir:
        settings = load_settings(
            overrides={
                "upstream.base_url": upstream_url,
                "upstream.anthropic_base_url": upstream_url,
                "store.path": data_dir,
                "memory.store_deadline_ms": 10_000,  # as run_proxy has it: generous on a loaded machine
                **overrides,
            }
        )
        services = build_services(settings)
        if services.database is not None:
            told.listen(services.database)
        protocol = http_protocol(settings.server.header_timeout_s)
        with serve_in_background(create_app(services), name="memproxy", http=protocol) as root:
            yield f"{root}/v1"
