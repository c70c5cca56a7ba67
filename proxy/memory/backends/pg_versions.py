"""Past versions of memories in PostgreSQL: ``memory_versions``, written in the transaction of the change.

A memory's current version is its row in ``memories``; a change archives the version it replaces (a delete,
its tombstone too) here in the same transaction, so a committed change always has its history. The bounds
of :mod:`proxy.memory.versions` are kept as rows are written: a memory's versions past ``MAX_VERSIONS`` and
the histories of deleted memories past the owner's newest ``KEPT_DELETED`` are deleted in that transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence

import asyncpg

from .. import versions as bounds
from ..records import Memory
from ..revisions import archived
from ..store import Owner
from ..versions import history
from .pg_owners import owner_key

log = logging.getLogger("proxy.memory")


async def archive(conn: asyncpg.Connection, owner: Owner, versions: Sequence[Memory]) -> None:
    """Archive ``versions``, then drop each memory's versions past ``MAX_VERSIONS`` below the newest archived."""
    if not versions:
        return
    key = owner_key(owner)
    await conn.executemany(
        "INSERT INTO memory_versions (owner_key, id, version, user_name, workspace, deleted, at, body)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (owner_key, id, version)"
        " DO UPDATE SET deleted = EXCLUDED.deleted, at = EXCLUDED.at, body = EXCLUDED.body",
        [
            (key, m.id, m.version, owner.user, owner.workspace, m.change == "deleted", m.changed_at, archived(m))
            for m in versions
        ],
    )
    # The current version (archived version + 1, or a tombstone's own) counts among the MAX_VERSIONS kept.
    tops: dict[str, int] = {}
    for m in versions:
        top = m.version if m.change == "deleted" else m.version + 1
        tops[m.id] = max(tops.get(m.id, 0), top)
    await conn.execute(
        "DELETE FROM memory_versions v USING unnest($2::text[], $3::int[]) AS t(id, top)"
        " WHERE v.owner_key = $1 AND v.id = t.id AND v.version <= t.top - $4",
        key,
        list(tops),
        list(tops.values()),
        bounds.MAX_VERSIONS,
    )
    if any(m.change == "deleted" for m in versions):
        await conn.execute(
            "DELETE FROM memory_versions WHERE owner_key = $1 AND id IN ("
            " SELECT v.id FROM memory_versions v WHERE v.owner_key = $1 AND v.deleted"
            " AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = v.id)"
            " GROUP BY v.id ORDER BY max(v.at) DESC OFFSET $2)",
            key,
            bounds.KEPT_DELETED,
        )


async def purge(conn: asyncpg.Connection, owner: Owner, ids: Collection[str] | None = None) -> None:
    """Remove the versions of ``ids`` (pruned memories), or every version of the owner (None: forgotten)."""
    if ids is None:
        await conn.execute("DELETE FROM memory_versions WHERE owner_key = $1", owner_key(owner))
    elif ids:
        await conn.execute(
            "DELETE FROM memory_versions WHERE owner_key = $1 AND id = ANY($2::text[])", owner_key(owner), list(ids)
        )


async def tombstone(conn: asyncpg.Connection, owner: Owner, memory_id: str) -> Memory | None:
    """A deleted memory's last version, if its history is kept (and it is not back already)."""
    row = await conn.fetchrow(
        "SELECT body FROM memory_versions WHERE owner_key = $1 AND id = $2 ORDER BY version DESC LIMIT 1",
        owner_key(owner),
        memory_id,
    )
    memory = _parsed(row["body"], memory_id) if row is not None else None
    return memory if memory is not None and memory.change == "deleted" else None


async def versions(conn: asyncpg.Connection, owner: Owner, memory_id: str) -> list[Memory]:
    """``memory_id``'s versions, newest first: its row and its archived versions, read in one statement (one
    snapshot: never half of a change)."""
    rows = await conn.fetch(
        "SELECT body, false AS current, version FROM memory_versions WHERE owner_key = $1 AND id = $2"
        " UNION ALL SELECT body, true, 0 FROM memories WHERE owner_key = $1 AND id = $2 ORDER BY 3",
        owner_key(owner),
        memory_id,
    )
    current = [m for row in rows if row["current"] and (m := _parsed(row["body"], memory_id)) is not None]
    past = [m for row in rows if not row["current"] and (m := _parsed(row["body"], memory_id)) is not None]
    return history(past, current[0] if current else None)


def _parsed(body: object, memory_id: str) -> Memory | None:
    try:
        return Memory.from_json(body)  # type: ignore[arg-type]
    except (ValueError, KeyError, TypeError) as exc:  # logged by id only: a memory's text is the user's
        log.warning("skipping an unreadable version of memory %s: %s", memory_id, exc)
        return None
