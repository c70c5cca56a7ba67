"""``memproxy store copy``: a files store into PostgreSQL, ids and links intact, safe to run again.

A files store names its owners' directories by hashes of the user and workspace, and memory records do not
repeat them, so the names come from what does carry them: episodes, jobs and keys, plus the names the caller
passes (``users``, ``workspaces``; ``default`` is always tried). A memory directory whose names stay unknown
is reported, never guessed at.

Rows go in with ``ON CONFLICT DO NOTHING``: what is there already (a second run) is counted as skipped. Each
owner's version is bumped with ``reset`` (replicas running meanwhile read the owner again) and the id
sequence is moved past the highest copied id, so a new memory never takes an old id.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from .episodes.jobs import JobQueue
from .memory.backends.episode_files import FilesEpisodes
from .memory.backends.files import FilesStore, owner_dir
from .memory.backends.history_files import FILE as HISTORY_FILE
from .memory.backends.history_files import FilesHistory
from .memory.backends.key_files import FilesKeys
from .memory.backends.object_files import FilesObjects
from .memory.backends.pg_owners import owner_key
from .memory.backends.postgres import CHANNEL, Database, tag_of
from .memory.episodes import Episode
from .memory.history import HistoryLine
from .memory.records import Memory
from .memory.store import GLOBAL, Owner

DEFAULT_WORKSPACE = "default"


@dataclass(slots=True)
class CopyReport:
    memories: int = 0
    episodes: int = 0
    jobs: int = 0
    keys: int = 0
    history: int = 0  # conversation lines
    skipped: int = 0  # already in the database
    unknown: list[str] = field(default_factory=list)  # memory directories whose owner names are not known

    def summary(self) -> str:
        line = (
            f"copied {self.memories} memories, {self.episodes} episodes, {self.jobs} jobs, {self.keys} keys,"
            f" {self.history} history lines; skipped {self.skipped} already there"
        )
        if self.unknown:
            line += (
                f"\nnot copied: {len(self.unknown)} memory or history folder(s) whose user or workspace is not named"
                " anywhere"
                f" in the store ({', '.join(self.unknown[:5])}): name them with --user and --workspace"
            )
        return line


def owners_by_dir(users: set[str], workspaces: set[str]) -> dict[Path, Owner]:
    """Every owner the names can make, by the directory the files store keeps it in."""
    owners = {owner_dir(GLOBAL): GLOBAL}
    for user in users:
        owners[owner_dir(Owner(user, None))] = Owner(user, None)
        for workspace in workspaces | {DEFAULT_WORKSPACE}:
            owners[owner_dir(Owner(user, workspace))] = Owner(user, workspace)
    return owners


async def copy_store(
    root: Path, database: Database, *, users: Collection[str] = (), workspaces: Collection[str] = ()
) -> CopyReport:
    """Copy what is in the files store at ``root`` and not yet in ``database``, in one transaction."""
    report = CopyReport()
    jobs = await JobQueue(root).all()
    keys = await FilesKeys(root).keys()
    bindings = await FilesObjects(root).everything()
    episode_store = FilesEpisodes(root)
    names_users = set(users) | {j.user for j in jobs} | {k.user for k in keys}
    names_workspaces = set(workspaces) | {j.workspace for j in jobs}
    # Episodes live under their owner's directory: known names find them, and their records name more owners.
    owners = owners_by_dir(names_users, names_workspaces)
    episodes: list[Episode] = []
    for owner in {o for o in owners.values() if o.user is not None and o.workspace is not None}:
        episodes += list(await episode_store.view(owner))
    await episode_store.aclose()
    owners = owners_by_dir(names_users | {e.user for e in episodes}, names_workspaces | {e.workspace for e in episodes})

    memories: dict[Owner, list[Memory]] = {}
    files = FilesStore(root)
    for path in sorted(root.glob("**/memories.jsonl")):
        directory = path.parent.relative_to(root)
        known = owners.get(directory)
        if known is None:
            report.unknown.append(str(directory))
            continue
        memories[known] = sorted(await files.view(known), key=lambda m: m.number)
    await files.aclose()
    said: dict[Owner, list[HistoryLine]] = {}
    history = FilesHistory(root)
    for path in sorted(root.glob(f"**/{HISTORY_FILE}")):
        directory = path.parent.relative_to(root)
        known = owners.get(directory)
        if known is None or known.user is None or known.workspace is None:
            if str(directory) not in report.unknown:
                report.unknown.append(str(directory))
            continue
        said[known] = list((await history.view(known)).lines)
    await history.aclose()

    async with database.transaction() as conn:
        for owner, found in memories.items():
            copied = await _copy_memories(conn, owner, found)
            report.memories += copied
            report.skipped += len(found) - copied
        for owner, group in itertools.groupby(
            sorted(episodes, key=lambda e: (e.user, e.workspace)), key=lambda e: Owner(e.user, e.workspace)
        ):
            batch = list(group)
            copied = await _copy_episodes(conn, owner, batch)
            report.episodes += copied
            report.skipped += len(batch) - copied
        for job in jobs:
            done = await conn.execute(
                "INSERT INTO extraction_jobs (id, user_name, workspace, created_at, state, next_at, body)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
                job.id,
                job.user,
                job.workspace,
                job.created_at,
                job.state,
                job.next_at,
                job.to_json(),
            )
            report.jobs += done.endswith(" 1")
            report.skipped += done.endswith(" 0")
        for owner, lines in said.items():
            added = await conn.fetch(
                "INSERT INTO history (owner_key, key, user_name, workspace, session, ts, body)"
                " SELECT $1, k, $2, $3, s, t, b FROM unnest($4::text[], $5::text[], $6::float8[], $7::jsonb[])"
                " WITH ORDINALITY AS l(k, s, t, b, ord) ORDER BY ord"
                " ON CONFLICT (owner_key, key) DO NOTHING RETURNING key",
                owner_key(owner),
                owner.user,
                owner.workspace,
                [line.key for line in lines],
                [line.session for line in lines],
                [line.ts for line in lines],
                [line.to_json() for line in lines],
            )
            report.history += len(added)
            report.skipped += len(lines) - len(added)
        copied_keys = 0
        for key in keys:
            done = await conn.execute(
                "INSERT INTO api_keys (id, user_name, kind, hash, created, revoked) VALUES ($1, $2, $3, $4, $5, $6)"
                " ON CONFLICT DO NOTHING",
                key.id,
                key.user,
                key.kind,
                key.hash,
                key.created,
                key.revoked,
            )
            copied_keys += done.endswith(" 1")
        report.keys, report.skipped = copied_keys, report.skipped + len(keys) - copied_keys
        if copied_keys:
            await _bump(conn, "keys", "")
        if bindings:  # who made which upstream object: without them, a shared key's stored responses would be nobody's
            await conn.execute(
                "INSERT INTO upstream_objects (id, user_name, created)"
                " SELECT * FROM unnest($1::text[], $2::text[], $3::float8[]) ON CONFLICT (id) DO NOTHING",
                [o.id for o in bindings],
                [o.user for o in bindings],
                [o.created for o in bindings],
            )
        highest = max((m.number for found in memories.values() for m in found), default=0)
        if highest:
            await conn.execute(
                "SELECT setval('memory_ids', GREATEST($1, (SELECT last_value FROM memory_ids)))", highest
            )
    return report


async def _copy_memories(conn: asyncpg.Connection, owner: Owner, memories: list[Memory]) -> int:
    if not memories:
        return 0
    key = owner_key(owner)
    there = {
        r["id"]
        for r in await conn.fetch("SELECT id FROM memories WHERE id = ANY($1::text[])", [m.id for m in memories])
    }
    fresh = [m for m in memories if m.id not in there]
    if not fresh:
        return 0
    version = await _bump(conn, "memories", key)
    await conn.executemany(
        "INSERT INTO memories (id, number, owner_key, user_name, workspace, created, superseded_by, body, changed)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [
            (
                m.id,
                m.number,
                key,
                owner.user,
                owner.workspace,
                m.created,
                m.superseded_by,
                m.to_json(embedding=True),
                version,
            )
            for m in fresh
        ],
    )
    return len(fresh)


async def _copy_episodes(conn: asyncpg.Connection, owner: Owner, episodes: list[Episode]) -> int:
    key = owner_key(owner)
    there = {
        r["id"]
        for r in await conn.fetch(
            "SELECT id FROM episodes WHERE owner_key = $1 AND id = ANY($2::text[])", key, [e.id for e in episodes]
        )
    }
    fresh = [e for e in episodes if e.id not in there]
    if not fresh:
        return 0
    version = await _bump(conn, "episodes", key)
    await conn.executemany(
        "INSERT INTO episodes (owner_key, id, user_name, workspace, session_id, created, body, changed)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [(key, e.id, e.user, e.workspace, e.session_id, e.created_at, e.to_json(), version) for e in fresh],
    )
    return len(fresh)


async def _bump(conn: asyncpg.Connection, kind: str, key: str) -> int:
    """A new version for the owner that every cache of it reads from scratch (``reset``), announced."""
    version: int = await conn.fetchval(
        "INSERT INTO owner_versions (kind, owner_key, version, reset) VALUES ($1, $2, 1, 1)"
        " ON CONFLICT (kind, owner_key) DO UPDATE"
        " SET version = owner_versions.version + 1, reset = owner_versions.version + 1 RETURNING version",
        kind,
        key,
    )
    await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{kind}:{tag_of(key)}:{version}")
    return version
