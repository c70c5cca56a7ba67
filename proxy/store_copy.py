"""``memproxy store copy``: a files store into PostgreSQL, ids, links and versions intact, safe to run again.

A files store names its owners' directories by hashes of the user and workspace; since layout files-2 each
directory records its names (``owner.json``), and a directory written before that is named by the census
(:mod:`.memory.backends.census_files`) from what else carries names: its episodes, the store's jobs and keys, the
other owners' names, and the names the caller passes (``users``, ``workspaces``; ``default`` is always tried).
Every named directory is copied whole (memories, episodes, history, offloaded tool outputs); one whose names stay
unknown is reported, never guessed at, and the command then exits 1.

Rows go in with ``ON CONFLICT DO NOTHING``: what is there already (a second run) is counted as skipped. Each
owner's version is bumped with ``reset`` (replicas running meanwhile read the owner again) and the id
sequence is moved past the highest copied id, so a new memory never takes an old id.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import orjson

from .episodes.jobs import JobQueue
from .memory.backends.census_files import FilesCensus
from .memory.backends.episode_files import FilesEpisodes
from .memory.backends.files import FilesStore, owner_dir
from .memory.backends.history_files import FILE as HISTORY_FILE
from .memory.backends.history_files import FilesHistory
from .memory.backends.key_files import FilesKeys
from .memory.backends.object_files import FilesObjects
from .memory.backends.pg_owners import owner_key
from .memory.backends.postgres import CHANNEL, Database, tag_of
from .memory.backends.version_files import FILE as VERSIONS_FILE
from .memory.details import Detail
from .memory.episodes import Episode
from .memory.history import HistoryLine
from .memory.records import Memory
from .memory.revisions import archived
from .memory.store import GLOBAL, Owner

DATA = ("memories.jsonl", VERSIONS_FILE, "episodes", HISTORY_FILE, "details")  # what an owner directory may hold


@dataclass(slots=True)
class CopyReport:
    memories: int = 0
    versions: int = 0  # past versions of memories (deleted ones' too)
    episodes: int = 0
    jobs: int = 0
    keys: int = 0
    history: int = 0  # conversation lines
    details: int = 0  # offloaded tool outputs
    skipped: int = 0  # already in the database
    unknown: list[str] = field(default_factory=list)  # owner directories holding data whose names are not known

    @property
    def complete(self) -> bool:
        """Everything in the files store was copied (or was there already)."""
        return not self.unknown

    def summary(self) -> str:
        line = (
            f"copied {self.memories} memories, {self.versions} past versions, {self.episodes} episodes,"
            f" {self.jobs} jobs, {self.keys} keys, {self.history} history lines, {self.details} details;"
            f" skipped {self.skipped} already there"
        )
        if self.unknown:
            line += (
                f"\nnot copied: {len(self.unknown)} owner folder(s) whose user or workspace is not named anywhere"
                f" in the store ({', '.join(self.unknown[:5])}): name them with --user and --workspace"
            )
        return line


async def copy_store(
    root: Path, database: Database, *, users: Collection[str] = (), workspaces: Collection[str] = ()
) -> CopyReport:
    """Copy what is in the files store at ``root`` and not yet in ``database``, in one transaction."""
    report = CopyReport()
    jobs = await JobQueue(root).all()
    keys = await FilesKeys(root).keys()
    bindings = await FilesObjects(root).everything()
    census = FilesCensus(root, users=users, workspaces=workspaces)
    directories: dict[Path, Owner | None] = {owner_dir(GLOBAL): GLOBAL, **await asyncio.to_thread(census.directories)}
    owners: list[Owner] = []
    for directory, owner in sorted(directories.items()):
        if owner is None:
            if any(os.path.exists(root / directory / name) for name in DATA):
                report.unknown.append(str(directory))
        else:
            owners.append(owner)

    memories: dict[Owner, list[Memory]] = {}
    versions: dict[Owner, list[Memory]] = {}
    episodes: list[Episode] = []
    said: dict[Owner, list[HistoryLine]] = {}
    details: dict[Owner, list[Detail]] = {}
    files, episode_store, history = FilesStore(root), FilesEpisodes(root), FilesHistory(root)
    try:
        for owner in owners:
            base = root / owner_dir(owner)
            if (base / "memories.jsonl").exists() or (base / VERSIONS_FILE).exists():
                memories[owner] = sorted(await files.view(owner), key=lambda m: m.number)
                versions[owner] = await files.archived(owner)
            if owner.user is not None and owner.workspace is not None:
                if (base / "episodes").is_dir():
                    episodes += list(await episode_store.view(owner))
                if (base / HISTORY_FILE).exists():
                    said[owner] = list((await history.view(owner)).lines)
            if (base / "details").is_dir():
                details[owner] = await asyncio.to_thread(_read_details, base / "details")
    finally:
        await files.aclose()
        await episode_store.aclose()
        await history.aclose()

    async with database.transaction() as conn:
        for owner, found in memories.items():
            copied = await _copy_memories(conn, owner, found)
            report.memories += copied
            report.skipped += len(found) - copied
            copied = await _copy_versions(conn, owner, versions[owner])
            report.versions += copied
            report.skipped += len(versions[owner]) - copied
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
        for owner, found_details in details.items():
            added = await conn.fetch(
                "INSERT INTO details (owner_key, id, created, body)"
                " SELECT $1, i, c, b FROM unnest($2::text[], $3::float8[], $4::jsonb[]) AS d(i, c, b)"
                " ON CONFLICT (owner_key, id) DO NOTHING RETURNING id",
                owner_key(owner),
                [detail.id for detail in found_details],
                [detail.created_at for detail in found_details],
                [detail.to_json() for detail in found_details],
            )
            report.details += len(added)
            report.skipped += len(found_details) - len(added)
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
        every = [m for found in [*memories.values(), *versions.values()] for m in found]
        highest = max((m.number for m in every), default=0)
        if highest:
            await conn.execute(
                "SELECT setval('memory_ids', GREATEST($1, (SELECT last_value FROM memory_ids)))", highest
            )
    return report


def _read_details(directory: Path) -> list[Detail]:
    found = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json"):
            try:
                detail = Detail.from_json(orjson.loads((directory / name).read_bytes()))
            except (OSError, ValueError):
                continue  # unreadable: the files store skips it too
            if detail.id == name.removesuffix(".json"):
                found.append(detail)
    return found


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
                m.to_json(stored=True),
                version,
            )
            for m in fresh
        ],
    )
    return len(fresh)


async def _copy_versions(conn: asyncpg.Connection, owner: Owner, versions: list[Memory]) -> int:
    """Past versions not in the database yet (a second run copies none); returns how many went in."""
    if not versions:
        return 0
    rows = await conn.fetch(
        "INSERT INTO memory_versions (owner_key, id, version, user_name, workspace, deleted, at, body)"
        " SELECT $1, i, v, $2, $3, d, a, b FROM unnest($4::text[], $5::int[], $6::bool[], $7::float8[], $8::jsonb[])"
        " AS l(i, v, d, a, b) ON CONFLICT (owner_key, id, version) DO NOTHING RETURNING id",
        owner_key(owner),
        owner.user,
        owner.workspace,
        [m.id for m in versions],
        [m.version for m in versions],
        [m.change == "deleted" for m in versions],
        [m.changed_at for m in versions],
        [archived(m) for m in versions],
    )
    return len(rows)


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
