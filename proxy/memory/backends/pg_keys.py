""":class:`~proxy.memory.keys.KeyStore` in PostgreSQL: one row per key, hashed; revoking stamps the row.

``version`` is the ``owner_versions`` counter of kind ``keys``, bumped in the same transaction as every add
and revoke: one primary-key lookup, so every replica can poll it twice a second.
"""

from __future__ import annotations

import asyncpg

from ..keys import KeyRecord
from .postgres import Database

_BUMP = (
    "INSERT INTO owner_versions (kind, owner_key, version) VALUES ('keys', '', 1)"
    " ON CONFLICT (kind, owner_key) DO UPDATE SET version = owner_versions.version + 1"
)


class PostgresKeys:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def keys(self) -> list[KeyRecord]:
        async with self.database.connection() as conn:
            rows = await conn.fetch("SELECT id, user_name, kind, hash, created, revoked FROM api_keys ORDER BY created")
        return [_record(row) for row in rows]

    async def version(self) -> object:
        async with self.database.connection() as conn:
            return await conn.fetchval("SELECT version FROM owner_versions WHERE kind = 'keys' AND owner_key = ''")

    async def add(self, record: KeyRecord) -> None:
        async with self.database.transaction() as conn:
            await conn.execute(
                "INSERT INTO api_keys (id, user_name, kind, hash, created, revoked) VALUES ($1, $2, $3, $4, $5, $6)",
                record.id,
                record.user,
                record.kind,
                record.hash,
                record.created,
                record.revoked,
            )
            await conn.execute(_BUMP)

    async def revoke(self, key_id: str, when: float) -> KeyRecord | None:
        async with self.database.transaction() as conn:
            row = await conn.fetchrow(
                "SELECT id, user_name, kind, hash, created, revoked FROM api_keys WHERE id = $1 FOR UPDATE", key_id
            )
            if row is None:
                return None
            record = _record(row)
            if record.revoked is None:  # revoked once: the first time stays
                await conn.execute("UPDATE api_keys SET revoked = $2 WHERE id = $1", key_id, when)
                await conn.execute(_BUMP)
                record = KeyRecord(record.id, record.user, record.kind, record.hash, record.created, when)
        return record

    async def aclose(self) -> None:
        await self.database.release()


def _record(row: asyncpg.Record) -> KeyRecord:
    return KeyRecord(row["id"], row["user_name"], row["kind"], row["hash"], row["created"], row["revoked"])
