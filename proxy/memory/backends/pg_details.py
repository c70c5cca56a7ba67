""":class:`~proxy.memory.details.DetailStore` in PostgreSQL (migration ``0009_details``): one row per detail.

Details never change once written (their ids are content-addressed), so there is nothing to cache or notify:
a ``put`` is one committed ``INSERT ... ON CONFLICT DO NOTHING`` for all of a request's new details, a ``get``
one indexed read, done only when the model asks for one.
"""

from __future__ import annotations

import logging

from ..details import DETAIL_ID, Detail
from ..store import Owner
from .pg_owners import owner_key
from .postgres import Database

log = logging.getLogger("proxy.memory")


class PostgresDetails:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def put(self, owner: Owner, details: list[Detail]) -> None:
        if not details:
            return
        key = owner_key(owner)
        async with self.database.transaction() as conn:
            await conn.executemany(
                "INSERT INTO details (owner_key, id, created, body) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (owner_key, id) DO NOTHING",
                [(key, detail.id, detail.created_at, detail.to_json()) for detail in details],
            )

    async def get(self, owner: Owner, detail_id: str) -> Detail | None:
        if not DETAIL_ID.fullmatch(detail_id):
            return None
        async with self.database.connection() as conn:
            body = await conn.fetchval(
                "SELECT body FROM details WHERE owner_key = $1 AND id = $2", owner_key(owner), detail_id
            )
        if body is None:
            return None
        try:
            detail = Detail.from_json(body)
        except (ValueError, TypeError) as exc:  # by id only: details hold the user's text
            log.warning("skipping an unreadable detail row %s: %s", detail_id, exc)
            return None
        return detail if detail.id == detail_id else None

    async def count(self, owner: Owner) -> int:
        async with self.database.connection() as conn:
            found = await conn.fetchval("SELECT count(*) FROM details WHERE owner_key = $1", owner_key(owner))
        return int(found or 0)

    async def forget(self, owner: Owner) -> int:
        async with self.database.transaction() as conn:
            gone = await conn.fetch("DELETE FROM details WHERE owner_key = $1 RETURNING id", owner_key(owner))
        return len(gone)

    async def aclose(self) -> None:
        await self.database.release()
