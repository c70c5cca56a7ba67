""":class:`~proxy.memory.census.Census` in PostgreSQL: counts in SQL over the rows every replica shares.

The user and workspace columns name every owner; tables keyed only by ``owner_key`` (details) are read for
their owners too. What waits for review is counted through the partial indexes of migration
``0011_held_indexes``, whose predicates are ``HELD_MEMORY`` and ``HELD_EPISODE`` word for word.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..census import Held, Schema, Tally, UserScope
from ..store import Owner
from .pg_schema import MIGRATIONS
from .postgres import Database

HELD_MEMORY = """superseded_by IS NULL AND body @> '{"untrusted": true}' AND NOT body @> '{"user_approved": true}'"""
HELD_EPISODE = (
    """body @> '{"provenance": {"untrusted": true}}' AND NOT body @> '{"provenance": {"user_approved": true}}'"""
)
# The scope as SQL: $1 everyone, $2 named users, $3 a prefix (NULL: none).
_SCOPE = "($1 OR user_name = ANY($2::text[]) OR left(user_name, length($3::text)) = $3::text)"


class PostgresCensus:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database

    async def tallies(self) -> dict[Owner, Tally]:
        counts: dict[Owner, dict[str, int]] = {}
        async with self.database.connection() as conn:
            for row in await conn.fetch(
                "SELECT user_name, workspace,"
                f" count(*) FILTER (WHERE superseded_by IS NULL AND NOT ({HELD_MEMORY})) AS memories,"
                f" count(*) FILTER (WHERE {HELD_MEMORY}) AS held,"
                f" count(*) FILTER (WHERE superseded_by IS NULL AND NOT ({HELD_MEMORY})"
                """ AND body @> '{"pinned": true}') AS pinned,"""
                " count(*) FILTER (WHERE superseded_by IS NOT NULL) AS superseded"
                " FROM memories GROUP BY user_name, workspace"
            ):
                counts.setdefault(Owner(row["user_name"], row["workspace"]), {}).update(
                    memories=row["memories"], held=row["held"], pinned=row["pinned"], superseded=row["superseded"]
                )
            for row in await conn.fetch(
                f"SELECT user_name, workspace, count(*) AS episodes, count(*) FILTER (WHERE {HELD_EPISODE}) AS held"
                " FROM episodes GROUP BY user_name, workspace"
            ):
                counts.setdefault(Owner(row["user_name"], row["workspace"]), {}).update(
                    episodes=row["episodes"], held_episodes=row["held"]
                )
            for row in await conn.fetch(
                "SELECT user_name, workspace, count(*) AS lines FROM history GROUP BY user_name, workspace"
            ):
                counts.setdefault(Owner(row["user_name"], row["workspace"]), {})["history"] = row["lines"]
            for row in await conn.fetch("SELECT owner_key, count(*) AS details FROM details GROUP BY owner_key"):
                owner = _owner(row["owner_key"])
                if owner is not None:
                    counts.setdefault(owner, {})["details"] = row["details"]
            for row in await conn.fetch(
                "SELECT user_name, workspace, count(*) AS files FROM ("
                " SELECT user_name, workspace FROM memory_files WHERE right(path, 1) <> '/'"
                " UNION ALL SELECT user_name, workspace FROM memory_file_proposals) AS both_kinds"
                " GROUP BY user_name, workspace"
            ):
                counts.setdefault(Owner(row["user_name"], row["workspace"]), {})["files"] = row["files"]
        return {owner: Tally(**fields) for owner, fields in counts.items()}

    async def workspaces(self, user: str) -> set[str | None]:
        found: set[str | None] = set()
        prefix = orjson.dumps([user]).decode()[:-1] + ","  # owner keys are JSON [user, workspace]
        async with self.database.connection() as conn:
            tables = ("memories", "episodes", "history", "extraction_jobs", "memory_files", "memory_file_proposals")
            for table in tables:
                rows = await conn.fetch(f"SELECT DISTINCT workspace FROM {table} WHERE user_name = $1", user)
                found.update(row["workspace"] for row in rows)
            for table in ("details", "session_state", "kept_turns"):
                rows = await conn.fetch(
                    f"SELECT DISTINCT owner_key FROM {table} WHERE left(owner_key, length($1)) = $1", prefix
                )
                found.update(owner.workspace for row in rows if (owner := _owner(row["owner_key"])) is not None)
        return found

    async def held(self, scope: UserScope) -> Held:
        args: tuple[Any, ...] = (scope.everyone, sorted(scope.users), scope.prefix)
        async with self.database.connection() as conn:
            memories = await conn.fetchval(f"SELECT count(*) FROM memories WHERE {HELD_MEMORY} AND {_SCOPE}", *args)
            episodes = await conn.fetchval(f"SELECT count(*) FROM episodes WHERE {HELD_EPISODE} AND {_SCOPE}", *args)
            files = await conn.fetchval(f"SELECT count(*) FROM memory_file_proposals WHERE {_SCOPE}", *args)
        return Held(int(memories or 0), int(episodes or 0), int(files or 0))

    async def held_by_owner(self, scope: UserScope) -> dict[Owner, Held]:
        args: tuple[Any, ...] = (scope.everyone, sorted(scope.users), scope.prefix)
        counts: dict[Owner, list[int]] = {}
        async with self.database.connection() as conn:
            kinds = (("memories", HELD_MEMORY), ("episodes", HELD_EPISODE), ("memory_file_proposals", "true"))
            for index, (table, held) in enumerate(kinds):
                query = f"SELECT user_name, workspace, count(*) AS n FROM {table} WHERE {held} AND {_SCOPE}"
                for row in await conn.fetch(query + " GROUP BY user_name, workspace", *args):
                    counts.setdefault(Owner(row["user_name"], row["workspace"]), [0, 0, 0])[index] = int(row["n"])
        return {owner: Held(*waiting) for owner, waiting in counts.items()}

    async def schema(self) -> Schema:
        async with self.database.connection() as conn:
            rows = await conn.fetch("SELECT name FROM schema_migrations ORDER BY applied_at, name")
        applied = tuple(row["name"] for row in rows)
        return Schema("postgres", applied[-1] if applied else "", MIGRATIONS[-1][0], applied)

    async def unnamed(self) -> list[str]:
        return []  # every row carries its owner's names

    async def aclose(self) -> None:
        await self.database.release()


def _owner(key: str) -> Owner | None:
    try:
        user, workspace = orjson.loads(key)
    except (ValueError, TypeError):
        return None
    return Owner(user, workspace) if isinstance(user, str) and isinstance(workspace, str | None) else None
