""":class:`~proxy.memory.history.HistoryStore` in PostgreSQL: one row per line, its JSON in ``body``.

Rows are keyed by (owner, line key), so a line written twice (two replicas, a re-sent conversation after a
restart) is kept once. A search reads the owner's lines and ranks them here, as the files backend does, so both
rank alike; history is read only when someone searches it, never on a plain request.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..history import HistoryIndex, HistoryLine
from ..store import Owner
from .pg_owners import owner_key
from .postgres import Database

log = logging.getLogger("proxy.memory")

MAX_LINES_READ = 50_000  # the owner's newest lines a search looks at


class PostgresHistory:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def append(self, owner: Owner, lines: Sequence[HistoryLine]) -> int:
        _check_owner(owner)
        if not lines:
            return 0
        key = owner_key(owner)
        async with self.database.transaction() as conn:
            added = await conn.fetch(
                "INSERT INTO history (owner_key, key, user_name, workspace, session, ts, body)"
                " SELECT $1, k, $2, $3, s, t, b FROM unnest($4::text[], $5::text[], $6::float8[], $7::jsonb[])"
                " WITH ORDINALITY AS l(k, s, t, b, ord) ORDER BY ord"
                " ON CONFLICT (owner_key, key) DO NOTHING RETURNING key",
                key,
                owner.user,
                owner.workspace,
                [line.key for line in lines],
                [line.session for line in lines],
                [line.ts for line in lines],
                [line.to_json() for line in lines],
            )
        return len(added)

    async def view(self, owner: Owner) -> HistoryIndex:
        _check_owner(owner)
        async with self.database.connection() as conn:
            rows = await conn.fetch(
                "SELECT body FROM (SELECT seq, body FROM history WHERE owner_key = $1 ORDER BY seq DESC LIMIT $2) n"
                " ORDER BY seq",
                owner_key(owner),
                MAX_LINES_READ,
            )
        index = HistoryIndex()
        bad = 0
        for row in rows:
            try:
                index.add(HistoryLine.from_json(row["body"]))
            except (ValueError, TypeError, KeyError, ArithmeticError):
                bad += 1
        if bad:
            log.warning("skipped %d unreadable history rows of %s", bad, owner.label)
        return index

    async def forget(self, owner: Owner) -> int:
        _check_owner(owner)
        async with self.database.connection() as conn:
            gone = await conn.fetch("DELETE FROM history WHERE owner_key = $1 RETURNING 1", owner_key(owner))
        return len(gone)

    async def prune(self, before: float) -> int:
        async with self.database.connection() as conn:
            status = await conn.execute("DELETE FROM history WHERE ts < $1", before)
        return int(status.rsplit(" ", 1)[-1])

    async def aclose(self) -> None:
        await self.database.release()


def _check_owner(owner: Owner) -> None:
    if owner.user is None or owner.workspace is None:
        raise ValueError("history belongs to a user in a workspace")
