""":class:`~proxy.memory.history.HistoryStore` in PostgreSQL: one row per line, its JSON in ``body``.

Rows are keyed by (owner, line key), so a line written twice (two replicas, a re-sent conversation after a
restart) is kept once. A search ranks the owner's lines here, as the files backend does, so both rank alike;
history is read only when someone searches it, never on a plain request. A process keeps the owners it read
lately: a later search reads only rows that arrived since (by ``seq``), in one snapshot with the owner's row count,
and reads everything again when the counts disagree (rows were removed, or one committed out of ``seq`` order).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from ..history import HistoryIndex, HistoryLine
from ..store import Owner
from .pg_forgetting import OWNER_LOCK_SHARED
from .pg_owners import owner_key
from .postgres import Database

log = logging.getLogger("proxy.memory")

MAX_LINES_READ = 50_000  # the owner's newest lines a search looks at
MAX_CACHED_OWNERS = 64


@dataclass(slots=True)
class _Cached:
    index: HistoryIndex
    seq: int  # the newest row read
    total: int  # the owner's rows when read


class PostgresHistory:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database
        self._cache: OrderedDict[str, _Cached] = OrderedDict()

    async def append(self, owner: Owner, lines: Sequence[HistoryLine]) -> int:
        _check_owner(owner)
        if not lines:
            return 0
        key = owner_key(owner)
        async with self.database.transaction() as conn:
            await conn.execute(OWNER_LOCK_SHARED, key)  # a forget-all of the owner waits, or is seen (pg_forgetting)
            added = await conn.fetch(
                "INSERT INTO history (owner_key, key, user_name, workspace, session, ts, body)"
                " SELECT $1, k, $2, $3, s, t, b FROM unnest($4::text[], $5::text[], $6::float8[], $7::jsonb[])"
                " WITH ORDINALITY AS l(k, s, t, b, ord)"
                " WHERE t >= COALESCE((SELECT before FROM forgotten WHERE owner_key = $1), 0) ORDER BY ord"
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
        key = owner_key(owner)
        cached = self._cache.get(key)
        async with self.database.connection() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            total = await conn.fetchval("SELECT count(*) FROM history WHERE owner_key = $1", key)
            if cached is not None and total >= cached.total:
                rows = await conn.fetch(
                    "SELECT seq, body FROM history WHERE owner_key = $1 AND seq > $2 ORDER BY seq", key, cached.seq
                )
                if cached.total + len(rows) == total:  # only new rows since: add them
                    self._cache.move_to_end(key)
                    _add(cached.index, rows, owner)
                    cached.seq, cached.total = max([cached.seq, *(r["seq"] for r in rows)]), total
                    return cached.index
            rows = await conn.fetch(
                "SELECT seq, body FROM (SELECT seq, body FROM history WHERE owner_key = $1 ORDER BY seq DESC LIMIT $2)"
                " n ORDER BY seq",
                key,
                MAX_LINES_READ,
            )
        index = HistoryIndex()
        _add(index, rows, owner)
        self._cache[key] = _Cached(index, max((r["seq"] for r in rows), default=0), total)
        self._cache.move_to_end(key)
        while len(self._cache) > MAX_CACHED_OWNERS:
            self._cache.popitem(last=False)
        return index

    async def count(self, owner: Owner) -> int:
        _check_owner(owner)
        async with self.database.connection() as conn:
            found = await conn.fetchval("SELECT count(*) FROM history WHERE owner_key = $1", owner_key(owner))
        return int(found or 0)

    async def forget(self, owner: Owner) -> int:
        _check_owner(owner)
        self._cache.pop(owner_key(owner), None)
        async with self.database.connection() as conn:
            gone = await conn.fetch("DELETE FROM history WHERE owner_key = $1 RETURNING 1", owner_key(owner))
        return len(gone)

    async def prune(self, before: float) -> int:
        async with self.database.connection() as conn:
            status = await conn.execute("DELETE FROM history WHERE ts < $1", before)
        gone = int(status.rsplit(" ", 1)[-1])
        if gone:
            self._cache.clear()
        return gone

    async def trim(self, owner: Owner, max_chars: int) -> int:
        _check_owner(owner)
        key = owner_key(owner)
        async with self.database.connection() as conn:
            gone = await conn.fetch(
                "DELETE FROM history WHERE owner_key = $1 AND seq IN (SELECT seq FROM (SELECT seq, sum(length(body->>"
                "'text')) OVER (ORDER BY seq DESC) AS newer FROM history WHERE owner_key = $1) kept WHERE newer > $2)"
                " RETURNING 1",
                key,
                max_chars,
            )
        if gone:
            self._cache.pop(key, None)
        return len(gone)

    async def aclose(self) -> None:
        self._cache.clear()
        await self.database.release()


def _add(index: HistoryIndex, rows: Sequence[asyncpg.Record], owner: Owner) -> None:
    bad = 0
    for row in rows:
        try:
            index.add(HistoryLine.from_json(row["body"]))
        except (ValueError, TypeError, KeyError, ArithmeticError):
            bad += 1
    if bad:  # by count only: history holds what users said
        log.warning("skipped %d unreadable history rows of %s", bad, owner.label)


def _check_owner(owner: Owner) -> None:
    if owner.user is None or owner.workspace is None:
        raise ValueError("history belongs to a user in a workspace")
