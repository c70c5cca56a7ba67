""":class:`~proxy.memory.memory_files.MemoryFileStore` in PostgreSQL (migration ``0016_memory_tool_files``).

One row per file and per proposal. A write runs in one transaction that first takes a transaction-scoped advisory
lock named by the owner, so writers of one owner take turns across replicas (a file that does not exist yet has no
row to lock), then checks the versions it expects and writes; it is committed, so durable, before it returns.
Files are read only when the memory tool or a person asks: nothing here is cached.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import asyncpg

from ..file_paths import is_marker
from ..memory_files import FileConflict, FileProposal, MemoryFile
from ..store import Owner
from .pg_owners import owner_key
from .postgres import Database

log = logging.getLogger("proxy.memory")

_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('memory_files ' || $1, 0))"


class PostgresMemoryFiles:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def files(self, owner: Owner) -> list[MemoryFile]:
        async with self.database.connection() as conn:
            rows = await conn.fetch("SELECT body FROM memory_files WHERE owner_key = $1", owner_key(owner))
        return [file for row in rows if (file := _file(row["body"])) is not None]

    async def commit(
        self, owner: Owner, changes: Mapping[str, MemoryFile | None], expect: Mapping[str, int | None]
    ) -> None:
        key = owner_key(owner)
        async with self.database.transaction() as conn:
            await conn.execute(_LOCK, key)
            await _check(conn, key, expect)
            await _apply(conn, owner, key, changes)

    async def proposals(self, owner: Owner) -> list[FileProposal]:
        async with self.database.connection() as conn:
            rows = await conn.fetch(
                "SELECT body FROM memory_file_proposals WHERE owner_key = $1 ORDER BY created, id", owner_key(owner)
            )
        found = []
        for row in rows:
            try:
                found.append(FileProposal.from_json(row["body"]))
            except ValueError as exc:
                log.warning("skipping an unreadable memory file proposal: %s", exc)
        return found

    async def propose(self, owner: Owner, proposals: Sequence[FileProposal]) -> None:
        if not proposals:
            return
        key = owner_key(owner)
        assert owner.user is not None and owner.workspace is not None
        async with self.database.transaction() as conn:
            await conn.execute(_LOCK, key)
            await conn.executemany(
                "INSERT INTO memory_file_proposals (owner_key, id, user_name, workspace, created, body)"
                " VALUES ($1, $2, $3, $4, $5, $6)"
                " ON CONFLICT (owner_key, id) DO UPDATE SET created = EXCLUDED.created, body = EXCLUDED.body",
                [(key, p.id, owner.user, owner.workspace, p.created_at, p.to_json()) for p in proposals],
            )

    async def settle(
        self,
        owner: Owner,
        proposal_id: str,
        changes: Mapping[str, MemoryFile | None] | None = None,
        expect: Mapping[str, int | None] | None = None,
    ) -> FileProposal | None:
        key = owner_key(owner)
        async with self.database.transaction() as conn:
            await conn.execute(_LOCK, key)
            body = await conn.fetchval(
                "DELETE FROM memory_file_proposals WHERE owner_key = $1 AND id = $2 RETURNING body", key, proposal_id
            )
            if body is None:
                return None
            await _check(conn, key, expect or {})
            await _apply(conn, owner, key, changes or {})
        return FileProposal.from_json(body)

    async def count(self, owner: Owner) -> int:
        key = owner_key(owner)
        async with self.database.connection() as conn:
            files = await conn.fetchval(
                "SELECT count(*) FROM memory_files WHERE owner_key = $1 AND right(path, 1) <> '/'", key
            )
            proposals = await conn.fetchval("SELECT count(*) FROM memory_file_proposals WHERE owner_key = $1", key)
        return int(files or 0) + int(proposals or 0)

    async def forget(self, owner: Owner) -> int:
        key = owner_key(owner)
        async with self.database.transaction() as conn:
            await conn.execute(_LOCK, key)
            files = await conn.fetch("DELETE FROM memory_files WHERE owner_key = $1 RETURNING path", key)
            proposals = await conn.fetch("DELETE FROM memory_file_proposals WHERE owner_key = $1 RETURNING id", key)
        return sum(1 for row in files if not is_marker(row["path"])) + len(proposals)

    async def aclose(self) -> None:
        await self.database.release()


async def _check(conn: asyncpg.Connection, key: str, expect: Mapping[str, int | None]) -> None:
    if not expect:
        return
    rows = await conn.fetch(
        "SELECT path, version FROM memory_files WHERE owner_key = $1 AND path = ANY($2::text[])", key, list(expect)
    )
    found = {row["path"]: row["version"] for row in rows}
    for path, version in expect.items():
        if found.get(path) != version:
            raise FileConflict(path)


async def _apply(conn: asyncpg.Connection, owner: Owner, key: str, changes: Mapping[str, MemoryFile | None]) -> None:
    gone = [path for path, file in changes.items() if file is None]
    kept = [file for file in changes.values() if file is not None]
    if gone:
        await conn.execute("DELETE FROM memory_files WHERE owner_key = $1 AND path = ANY($2::text[])", key, gone)
    if kept:
        assert owner.user is not None and owner.workspace is not None
        await conn.executemany(
            "INSERT INTO memory_files (owner_key, path, user_name, workspace, version, body)"
            " VALUES ($1, $2, $3, $4, $5, $6)"
            " ON CONFLICT (owner_key, path) DO UPDATE SET version = EXCLUDED.version, body = EXCLUDED.body",
            [(key, f.path, owner.user, owner.workspace, f.version, f.to_json()) for f in kept],
        )


def _file(body: Any) -> MemoryFile | None:
    try:
        return MemoryFile.from_json(body)
    except ValueError as exc:  # by message only: files hold the user's text
        log.warning("skipping an unreadable memory file row: %s", exc)
        return None
