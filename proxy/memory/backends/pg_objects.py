"""Upstream object bindings in PostgreSQL: one row per id, the first binding kept (``ON CONFLICT DO NOTHING``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..objects import UpstreamObject
from .postgres import Database


class PostgresObjects:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def bind(self, objects: Sequence[UpstreamObject]) -> None:
        objects = [o for o in objects if "\x00" not in o.id and "\x00" not in o.user]  # no upstream id holds one
        if not objects:
            return
        async with self.database.connection() as conn:
            await conn.execute(
                "INSERT INTO upstream_objects (id, user_name, created)"
                " SELECT * FROM unnest($1::text[], $2::text[], $3::float8[]) ON CONFLICT (id) DO NOTHING",
                [o.id for o in objects],
                [o.user for o in objects],
                [o.created for o in objects],
            )

    async def owners(self, ids: Sequence[str], since: float) -> dict[str, str]:
        ids = [ident for ident in ids if "\x00" not in ident]  # nobody's: PostgreSQL could not even compare it
        if not ids:
            return {}
        async with self.database.connection() as conn:
            rows = await conn.fetch(
                "SELECT id, user_name FROM upstream_objects WHERE id = ANY($1::text[]) AND created >= $2",
                list(ids),
                since,
            )
        return {row["id"]: row["user_name"] for row in rows}

    async def prune(self, before: float, per_user: int) -> int:
        async with self.database.transaction() as conn:
            expired = await conn.execute("DELETE FROM upstream_objects WHERE created < $1", before)
            over = await conn.execute(
                "DELETE FROM upstream_objects WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER"
                " (PARTITION BY user_name ORDER BY created DESC) AS n FROM upstream_objects) ranked WHERE n > $1)",
                per_user,
            )
        return int(expired.split()[-1]) + int(over.split()[-1])

    async def aclose(self) -> None:
        await self.database.release()
