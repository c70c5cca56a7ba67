""":class:`~proxy.memory.store.MemoryStore` in PostgreSQL: one row per memory, its JSON line in ``body``.

Each process ranks from its own in-memory :class:`MemoryIndex` per owner, kept current by
:class:`~.pg_owners.OwnerViews`: a catch-up reads only the rows stamped with a newer owner version, and
everything only after rows were removed (a delete or a prune). Ids ``m-<n>`` come from the ``memory_ids``
sequence, so they are never handed out twice, whatever is deleted, rolled back or restarted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

import asyncpg

from ..ranking import MemoryIndex
from ..records import Embedding, Memory, MemoryDraft
from ..revisions import Revision, check_expected, deleted, revised, superseded
from ..store import Owner, prune_order
from ..versions import Actor
from . import pg_versions
from .pg_owners import Change, OwnerViews, Written
from .pg_owners import owner_key as _key
from .postgres import Database

log = logging.getLogger("proxy.memory")

BUILD_IN_THREAD = 200  # a full index of more memories than this is built off the event loop

_CHANGED_SINCE = """
    SELECT v.version, v.reset, m.id, m.body FROM owner_versions v
    LEFT JOIN memories m ON m.owner_key = v.owner_key AND m.changed > $2
    WHERE v.kind = 'memories' AND v.owner_key = $1
    ORDER BY m.number
"""


class PostgresStore:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database
        self._views: OwnerViews[MemoryIndex] = OwnerViews(database, "memories", empty=MemoryIndex, fetch=_fetch)

    def cached(self, owner: Owner) -> MemoryIndex | None:
        return self._views.cached(owner)

    async def view(self, owner: Owner) -> MemoryIndex:
        return await self._views.view(owner)

    async def add(
        self, owner: Owner, draft: MemoryDraft, *, max_total: int, supersedes: Collection[str] = ()
    ) -> Memory:
        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, Memory]:
            now = time.time()
            number = await conn.fetchval("SELECT nextval('memory_ids')")
            memory = draft.stored_as(f"m-{number}", now)
            # The new memory and its predecessors' new versions go in one transaction: never one without the other.
            before = [old for old in await _memories(conn, owner, supersedes, lock=True) if old.live]
            retired = [superseded(old, memory.id, memory.changed_by, now) for old in before]
            await pg_versions.archive(conn, owner, before)
            await _store(conn, owner, retired, version)
            dropped = await _prune(conn, owner, max_total)
            await _insert(conn, owner, [memory], version)
            return Written(memory, removed=bool(dropped), change=_change([*retired, memory], dropped))

        return await self._views.write(owner, work)

    async def add_many(self, owner: Owner, drafts: Sequence[MemoryDraft], *, max_total: int) -> list[Memory]:
        """An import: every draft in one transaction under fresh ids, then the owner pruned to ``max_total``."""

        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, list[Memory]]:
            now = time.time()
            rows = await conn.fetch("SELECT nextval('memory_ids') AS n FROM generate_series(1, $1)", len(drafts))
            numbers = sorted(row["n"] for row in rows)  # one round trip for the whole batch, ids in order
            added = [draft.stored_as(f"m-{number}", now) for draft, number in zip(drafts, numbers, strict=True)]
            await _insert(conn, owner, added, version)
            dropped = await _prune_batch(conn, owner, added, max_total)
            kept = [memory for memory in added if memory.id not in dropped]
            return Written(added, removed=bool(dropped), change=_change(kept, sorted(dropped)))

        return await self._views.write(owner, work)

    async def replace(self, owner: Owner, memories: Collection[Memory]) -> list[str]:
        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, list[str]]:
            present = {m.id for m in await _memories(conn, owner, [m.id for m in memories], lock=True)}
            kept = [m for m in memories if m.id in present]
            await _store(conn, owner, kept, version)
            return Written([m.id for m in kept], changed=bool(kept), change=_change(kept, []))

        return await self._views.write(owner, work)

    async def revise(
        self, owner: Owner, revisions: Sequence[Revision], *, max_total: int | None = None
    ) -> list[Memory]:
        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, list[Memory]]:
            now = time.time()
            stored = {m.id: m for m in await _memories(conn, owner, [r.id for r in revisions], lock=True)}
            results: list[Memory] = []
            before: list[Memory] = []  # the versions the changed ones replace, archived
            changed: list[Memory] = []
            revived: list[Memory] = []  # deleted memories restored
            for revision in revisions:
                memory = stored.get(revision.id)
                if memory is None and revision.change == "restored":  # a deleted memory, if its history is kept
                    last = await pg_versions.tombstone(conn, owner, revision.id)
                    if last is not None:
                        new = revised(last, revision, now, force=True)
                        assert new is not None
                        revived.append(new)
                        results.append(new)
                        continue
                if memory is None:
                    return Written([], changed=False)  # all or nothing
                new = revised(memory, revision, now)
                results.append(new or memory)
                if new is not None:
                    before.append(memory)
                    changed.append(new)
            await pg_versions.archive(conn, owner, before)
            await _store(conn, owner, changed, version)
            dropped: list[str] = []
            if revived:
                dropped = await _prune(conn, owner, max_total, adding=len(revived)) if max_total is not None else []
                await _insert(conn, owner, revived, version)
            put = [*changed, *revived]
            return Written(results, changed=bool(put), removed=bool(dropped), change=_change(put, dropped))

        return await self._views.write(owner, work)

    async def history(self, owner: Owner, memory_id: str) -> list[Memory]:
        async with self.database.connection() as conn:
            return await pg_versions.versions(conn, owner, memory_id)

    async def count_uses(self, owner: Owner, uses: Mapping[str, tuple[int, float]]) -> None:
        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, None]:
            # The stored versions, locked: a supersede or edit made meanwhile elsewhere is kept, never undone.
            used = [
                replace(m, use_count=m.use_count + uses[m.id][0], last_used=uses[m.id][1])
                for m in await _memories(conn, owner, list(uses), lock=True)
            ]
            await _store(conn, owner, used, version)
            return Written(None, changed=bool(used), change=_change(used, []))

        await self._views.write(owner, work)

    async def count_injected(self, owner: Owner, injected: Mapping[str, tuple[int, float]]) -> None:
        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, None]:
            counted = [
                replace(m, injected_count=m.injected_count + injected[m.id][0], last_injected=injected[m.id][1])
                for m in await _memories(conn, owner, list(injected), lock=True)
            ]
            await _store(conn, owner, counted, version)
            return Written(None, changed=bool(counted), change=_change(counted, []))

        await self._views.write(owner, work)

    async def set_embeddings(self, owner: Owner, embeddings: Mapping[str, Embedding]) -> None:
        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, None]:
            embedded = [
                replace(m, embedding=embeddings[m.id])
                for m in await _memories(conn, owner, list(embeddings), lock=True)
            ]
            await _store(conn, owner, embedded, version)
            return Written(None, changed=bool(embedded), change=_change(embedded, []))

        await self._views.write(owner, work)

    async def delete(
        self,
        owner: Owner,
        ids: Collection[str],
        *,
        actor: Actor | None = None,
        expect: Mapping[str, Collection[int]] | None = None,
    ) -> list[str]:
        by = actor or Actor.person()

        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, list[str]]:
            now = time.time()
            there = await _memories(conn, owner, ids, lock=True)
            for memory in there:
                check_expected(memory, (expect or {}).get(memory.id))
            gone = [memory.id for memory in there]
            if not gone:
                return Written(gone, changed=False)
            await conn.execute("DELETE FROM memories WHERE owner_key = $1 AND id = ANY($2::text[])", _key(owner), gone)
            await pg_versions.archive(conn, owner, [m for old in there for m in (old, deleted(old, by, now))])
            return Written(gone, removed=True, change=_change([], gone))

        return await self._views.write(owner, work)

    async def forget(self, owner: Owner) -> list[str]:
        async def work(conn: asyncpg.Connection, version: int) -> Written[MemoryIndex, list[str]]:
            rows = await conn.fetch("DELETE FROM memories WHERE owner_key = $1 RETURNING id", _key(owner))
            await pg_versions.purge(conn, owner)
            gone = [row["id"] for row in rows]
            return Written(gone, removed=True, change=_change([], gone))

        return await self._views.write(owner, work)

    async def aclose(self) -> None:
        await self._views.aclose()
        await self.database.release()


def _row(owner: Owner, memory: Memory, version: int) -> tuple[Any, ...]:
    return (
        memory.id,
        memory.number,
        _key(owner),
        owner.user,
        owner.workspace,
        memory.created,
        memory.superseded_by,
        memory.to_json(stored=True),
        version,
    )


async def _memories(
    conn: asyncpg.Connection, owner: Owner, ids: Collection[str], *, lock: bool = False
) -> list[Memory]:
    """The owner's stored memories among ``ids`` (others' and unknown ids are left out), oldest first."""
    if not ids:
        return []
    rows = await conn.fetch(
        "SELECT id, body FROM memories WHERE owner_key = $1 AND id = ANY($2::text[]) ORDER BY number"
        + (" FOR UPDATE" if lock else ""),
        _key(owner),
        list(ids),
    )
    return _parse(rows)


async def _prune(conn: asyncpg.Connection, owner: Owner, max_total: int, *, adding: int = 1) -> list[str]:
    """Make room for ``adding`` more memories: remove the owner's first ``prune_order`` past ``max_total - adding``,
    and their versions."""
    count = await conn.fetchval("SELECT count(*) FROM memories WHERE owner_key = $1", _key(owner))
    excess = count + adding - max_total
    if excess <= 0:
        return []
    rows = await conn.fetch("SELECT id, body FROM memories WHERE owner_key = $1", _key(owner))
    doomed = [memory.id for memory in sorted(_parse(rows), key=prune_order)[:excess]]
    await conn.execute("DELETE FROM memories WHERE owner_key = $1 AND id = ANY($2::text[])", _key(owner), doomed)
    await pg_versions.purge(conn, owner, doomed)
    log.info("pruned %d memories of %s past max_total=%d", len(doomed), owner.label, max_total)
    return doomed


async def _prune_batch(conn: asyncpg.Connection, owner: Owner, added: list[Memory], max_total: int) -> set[str]:
    """Past ``max_total`` after a batch: what was there goes first, the batch's own only when it alone is past it."""
    rows = await conn.fetch("SELECT id, body FROM memories WHERE owner_key = $1", _key(owner))
    new = {memory.id for memory in added}
    there = [memory for memory in _parse(rows) if memory.id not in new]
    excess = len(there) + len(added) - max_total
    if excess <= 0:
        return set()
    doomed = {m.id for m in [*sorted(there, key=prune_order), *sorted(added, key=prune_order)][:excess]}
    await conn.execute("DELETE FROM memories WHERE owner_key = $1 AND id = ANY($2::text[])", _key(owner), list(doomed))
    await pg_versions.purge(conn, owner, doomed)
    log.info("pruned %d memories of %s past max_total=%d", len(doomed), owner.label, max_total)
    return doomed


async def _insert(conn: asyncpg.Connection, owner: Owner, memories: Sequence[Memory], version: int) -> None:
    await conn.executemany(
        "INSERT INTO memories (id, number, owner_key, user_name, workspace, created, superseded_by, body,"
        " changed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [_row(owner, memory, version) for memory in memories],
    )


async def _store(conn: asyncpg.Connection, owner: Owner, memories: Sequence[Memory], version: int) -> None:
    """New versions of memories that are there (the caller locked them)."""
    if memories:
        await conn.executemany(
            "UPDATE memories SET created = $3, superseded_by = $4, body = $5, changed = $6"
            " WHERE owner_key = $1 AND id = $2",
            [(_key(owner), m.id, m.created, m.superseded_by, m.to_json(stored=True), version) for m in memories],
        )


def _parse(rows: Sequence[asyncpg.Record]) -> list[Memory]:
    memories = []
    for row in rows:
        try:
            memory = Memory.from_json(row["body"])
            if memory.id != row["id"]:
                raise ValueError("its body's id is not its row's")
        except (ValueError, KeyError, TypeError) as exc:  # logged by id only: a memory's text is the user's
            log.warning("skipping unreadable memory row %s: %s", row["id"], exc)
            continue
        memories.append(memory)
    return memories


def _change(put: Sequence[Memory], dropped: Sequence[str]) -> Change[MemoryIndex]:
    def change(index: MemoryIndex) -> MemoryIndex:
        for memory in put:
            index.put(memory)
        for memory_id in dropped:  # last: a memory superseded and pruned in one write is gone
            index.drop(memory_id)
        return index

    return change


async def _fetch(conn: asyncpg.Connection, key: str, known: int) -> tuple[int, Change[MemoryIndex] | None]:
    """What changed since version ``known``: the rows stamped later, or all of them after a removal."""
    rows = await conn.fetch(_CHANGED_SINCE, key, known)
    if not rows:  # never written
        return 0, (None if known == 0 else lambda _: MemoryIndex())
    version, reset = rows[0]["version"], rows[0]["reset"]
    if version == known:
        return version, None
    full = known < 0 or reset > known
    if full and known >= 0:
        rows = await conn.fetch(_CHANGED_SINCE, key, -1)
        version = rows[0]["version"]
    memories = _parse([row for row in rows if row["id"] is not None])
    if not full:
        return version, _change(memories, [])
    if len(memories) > BUILD_IN_THREAD:
        built = await asyncio.to_thread(MemoryIndex, memories)
    else:
        built = MemoryIndex(memories)
    return version, lambda _: built
