"""The CLI on a PostgreSQL store (``store.backend: postgres``): the same commands, the same answers as on files."""

import asyncio

import asyncpg
import pytest
from click.testing import CliRunner

from proxy.cli import main


def run(dsn: str, *args: str, input: str | None = None) -> tuple[int, str, str]:
    env = {"MEMPROXY_STORE_BACKEND": "postgres", "MEMPROXY_STORE_DSN": dsn}
    result = CliRunner().invoke(main, list(args), input=input, env=env)
    return result.exit_code, result.stdout, result.stderr


def test_memories_are_added_listed_searched_and_deleted(pg_dsn: str) -> None:
    assert run(pg_dsn, "memories", "add", "User prefers tabs", "--user", "ada", "--tag", "style") == (0, "m-1\n", "")
    assert run(pg_dsn, "memories", "add", "Staging DB is Postgres 16", "--user", "ada")[1] == "m-2\n"
    code, out, _ = run(pg_dsn, "memories", "list", "--user", "ada")
    assert code == 0 and out.splitlines() == [
        "m-2\tfact\tStaging DB is Postgres 16",
        "m-1\tfact [style]\tUser prefers tabs",
    ]
    assert run(pg_dsn, "memories", "search", "which database for staging", "--user", "ada")[1].startswith("m-2\t")
    assert run(pg_dsn, "memories", "delete", "m-2", "--user", "ada")[:2] == (0, "deleted m-2\n")
    assert run(pg_dsn, "memories", "list", "--user", "bob")[1] == ""
    assert run(pg_dsn, "episodes", "list", "--user", "ada")[0] == 0
    assert run(pg_dsn, "memories", "restore", "m-2", "--version", "1", "--user", "ada")[:2] == (
        0,
        "restored m-2 to version 1 (now version 3)\n",
    )
    changes = [
        line.split("\t")[2] for line in run(pg_dsn, "memories", "versions", "m-2", "--user", "ada")[1].splitlines()
    ]
    assert changes == ["restored", "deleted", "created"]


def test_keys_are_created_listed_and_revoked_and_act_for_their_user(pg_dsn: str) -> None:
    code, out, _ = run(pg_dsn, "keys", "create", "--user", "ada")
    assert code == 0
    key_id, key = out.splitlines()[0].split("\t")[0], out.splitlines()[1]
    keys_mode = {"MEMPROXY_STORE_BACKEND": "postgres", "MEMPROXY_STORE_DSN": pg_dsn, "MEMPROXY_AUTH_MODE": "keys"}
    added = CliRunner().invoke(main, ["memories", "add", "Prefers tabs", "--api-key", key], env=keys_mode)
    assert added.exit_code == 0, added.stderr
    assert "Prefers tabs" in run(pg_dsn, "memories", "list", "--user", "ada")[1]
    assert run(pg_dsn, "keys", "list")[1].split("\t")[:3] == [key_id, "ada", "personal"]
    assert run(pg_dsn, "keys", "revoke", key_id)[:2] == (0, f"revoked {key_id} (ada)\n")
    assert "revoked" in run(pg_dsn, "keys", "list")[1]
    refused = CliRunner().invoke(main, ["memories", "list", "--api-key", key], env=keys_mode)
    assert refused.exit_code == 2


def test_serve_refuses_a_schema_newer_than_it_knows_in_one_line(pg_dsn: str) -> None:
    assert run(pg_dsn, "keys", "list")[0] == 0  # migrated

    async def from_the_future() -> None:
        conn = await asyncpg.connect(pg_dsn)
        try:
            await conn.execute("INSERT INTO schema_migrations (name, applied_by) VALUES ('9999_next', 'test')")
        finally:
            await conn.close()

    asyncio.run(from_the_future())
    code, _, err = run(pg_dsn, "serve", "--port", "0")
    assert code == 2
    assert err.startswith("memproxy: the PostgreSQL schema has migration 9999_next") and err.count("\n") == 1


@pytest.mark.parametrize("dsn", ["", "postgresql://memproxy@127.0.0.1:1/nowhere"])
def test_serve_without_a_reachable_database_says_so_in_one_line(dsn: str) -> None:
    code, _, err = run(dsn, "serve", "--port", "0")
    assert code == 2 and err.count("\n") == 1
    assert ("store.dsn" in err) if not dsn else ("PostgreSQL store failed" in err)
