"""The benchmark's own PostgreSQL server (:mod:`proxy.testing.postgres`), for the memproxy-pg target: started once,
stopped at exit; a machine without PostgreSQL skips the target and says why."""

from __future__ import annotations

import contextlib

from proxy.testing.postgres import PostgresServer, PostgresUnavailable, postgres_server

DATABASE = "memproxy_bench"
_STACK = contextlib.ExitStack()


def start_postgres() -> tuple[PostgresServer | None, str]:
    """A running server with an empty database ``DATABASE`` (its ``dsn(DATABASE)``), or (None, why not)."""
    try:
        server = _STACK.enter_context(postgres_server())
        server.create_database(DATABASE)
    except (PostgresUnavailable, OSError) as exc:
        return None, str(exc)
    return server, ""


def stop_all() -> None:
    _STACK.close()
