""":class:`~proxy.memory.episodes.EpisodeStore` in PostgreSQL: one row per episode, its JSON in ``body``.

An owner has few episodes, so a view that is behind reads all of the owner's again (one query, which also
tells the version when nothing changed). Rows that do not parse are skipped and logged by id only.
"""

from __future__ import annotations

import logging

import asyncpg

from ..episodes import EPISODE_ID, Episode, EpisodeIndex
from ..store import Owner
from .pg_owners import Change, OwnerViews, Written, owner_key
from .postgres import Database

log = logging.getLogger("proxy.memory")

_ALL_IF_CHANGED = """
    SELECT v.version, e.id, e.body FROM owner_versions v
    LEFT JOIN episodes e ON e.owner_key = v.owner_key AND v.version <> $2
    WHERE v.kind = 'episodes' AND v.owner_key = $1
"""


class PostgresEpisodes:
    def __init__(self, database: Database) -> None:
        database.retain()
        self.database = database
        self._views: OwnerViews[EpisodeIndex] = OwnerViews(database, "episodes", empty=EpisodeIndex, fetch=_fetch)

    async def put(self, owner: Owner, episode: Episode) -> None:
        _check_owner(owner)
        if Owner(episode.user, episode.workspace) != owner:
            raise ValueError("an episode is stored under its own user and workspace")
        if not EPISODE_ID.fullmatch(episode.id):
            raise ValueError("an episode id must look like e-<16 hex digits>")

        async def work(conn: asyncpg.Connection, version: int) -> Written[EpisodeIndex, None]:
            await conn.execute(
                "INSERT INTO episodes (owner_key, id, user_name, workspace, session_id, created, body, changed)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                " ON CONFLICT (owner_key, id) DO UPDATE SET session_id = EXCLUDED.session_id,"
                " created = EXCLUDED.created, body = EXCLUDED.body, changed = EXCLUDED.changed",
                owner_key(owner),
                episode.id,
                episode.user,
                episode.workspace,
                episode.session_id,
                episode.created_at,
                episode.to_json(),
                version,
            )
            return Written(None, change=lambda index: EpisodeIndex([*index, episode]))

        await self._views.write(owner, work)

    async def delete(self, owner: Owner, episode_id: str) -> bool:
        _check_owner(owner)

        async def work(conn: asyncpg.Connection, version: int) -> Written[EpisodeIndex, bool]:
            gone = await conn.fetchval(
                "DELETE FROM episodes WHERE owner_key = $1 AND id = $2 RETURNING id", owner_key(owner), episode_id
            )
            change: Change[EpisodeIndex] = lambda index: EpisodeIndex(e for e in index if e.id != episode_id)  # noqa: E731
            return Written(gone is not None, changed=gone is not None, removed=True, change=change)

        return await self._views.write(owner, work)

    async def view(self, owner: Owner) -> EpisodeIndex:
        _check_owner(owner)
        return await self._views.view(owner)

    def cached(self, owner: Owner) -> EpisodeIndex | None:
        _check_owner(owner)
        return self._views.cached(owner)

    async def aclose(self) -> None:
        await self._views.aclose()
        await self.database.release()


def _check_owner(owner: Owner) -> None:
    if owner.user is None or owner.workspace is None:
        raise ValueError("episodes belong to a user in a workspace, never user-wide or global")


async def _fetch(conn: asyncpg.Connection, key: str, known: int) -> tuple[int, Change[EpisodeIndex] | None]:
    rows = await conn.fetch(_ALL_IF_CHANGED, key, known)
    if not rows:  # never written
        return 0, (None if known == 0 else lambda _: EpisodeIndex())
    version = rows[0]["version"]
    if version == known:
        return version, None
    episodes = []
    for row in rows:
        if row["id"] is None:
            continue
        try:
            episode = Episode.from_json(row["body"])
            if episode.id != row["id"]:
                raise ValueError("its body's id is not its row's")
        except (ValueError, TypeError, KeyError) as exc:  # by id only: episodes hold the user's text
            log.warning("skipping an unreadable episode row %s: %s", row["id"], exc)
            continue
        episodes.append(episode)
    index = EpisodeIndex(episodes)
    return version, lambda _: index
