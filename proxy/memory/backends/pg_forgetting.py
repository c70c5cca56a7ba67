"""forget-all marks in PostgreSQL: one row per owner that ever forgot; ``version`` is the ``owner_versions`` counter
of kind ``forgotten``, bumped with every mark.

A mark takes the owner's advisory lock exclusively in its transaction; a history write takes it shared and reads
the mark in the same transaction (:mod:`.pg_history`). So a history write either lands before the mark commits
(and forget-all, which deletes only after marking, deletes it) or sees the mark and keeps nothing said before it:
no line another replica was writing at the moment of forget-all survives it.
"""

from __future__ import annotations

from ..forgetting import OwnerKey
from ..store import Owner
from .pg_owners import owner_key
from .postgres import Database

OWNER_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended($1, 7))"
OWNER_LOCK_SHARED = "SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 7))"
_BUMP = (
    "INSERT INTO owner_versions (kind, owner_key, version) VALUES ('forgotten', '', 1)"
    " ON CONFLICT (kind, owner_key) DO UPDATE SET version = owner_versions.version + 1"
)


class PostgresForgetting:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def mark(self, user: str, workspace: str, before: float) -> None:
        key = owner_key(Owner(user, workspace))
        async with self.database.transaction() as conn:
            await conn.execute(OWNER_LOCK, key)
            await conn.execute(
                "INSERT INTO forgotten (owner_key, user_name, workspace, before) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (owner_key) DO UPDATE SET before = GREATEST(forgotten.before, EXCLUDED.before)",
                key,
                user,
                workspace,
                before,
            )
            await conn.execute(_BUMP)

    async def marks(self) -> dict[OwnerKey, float]:
        async with self.database.connection() as conn:
            rows = await conn.fetch("SELECT user_name, workspace, before FROM forgotten")
        return {(row["user_name"], row["workspace"]): row["before"] for row in rows}

    async def version(self) -> object:
        async with self.database.connection() as conn:
            return await conn.fetchval("SELECT version FROM owner_versions WHERE kind = 'forgotten' AND owner_key = ''")

    async def aclose(self) -> None:
        await self.database.release()
