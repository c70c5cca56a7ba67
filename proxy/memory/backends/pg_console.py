""":class:`~proxy.memory.console_sessions.ConsoleSessionStore` in PostgreSQL: one row per sign-in, by the cookie's
hash. Every replica reads the same rows, so a sign-out on one is a sign-out on all."""

from __future__ import annotations

import time

from ..console_sessions import ConsoleSession
from .postgres import Database


class PostgresConsoleSessions:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def get(self, ident: str) -> ConsoleSession | None:
        async with self.database.connection() as conn:
            body = await conn.fetchval("SELECT body FROM console_sessions WHERE id = $1", ident)
        return None if body is None else ConsoleSession.from_json(body)

    async def put(self, session: ConsoleSession) -> None:
        async with self.database.transaction() as conn:
            await conn.execute("DELETE FROM console_sessions WHERE expires < $1", time.time())
            await conn.execute(
                "INSERT INTO console_sessions (id, key_id, expires, body) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (id) DO UPDATE SET key_id = $2, expires = $3, body = $4",
                session.id,
                session.key_id,
                session.expires,
                session.to_json(),
            )

    async def delete(self, ident: str) -> None:
        async with self.database.connection() as conn:
            await conn.execute("DELETE FROM console_sessions WHERE id = $1", ident)

    async def aclose(self) -> None:
        await self.database.release()
