""":class:`~proxy.episodes.jobs.Jobs` in PostgreSQL: one row per job, shared by every replica.

- A job is its JSON (``body``, as the files queue writes it) with the columns queries need beside it.
- ``claim`` takes a lease: in one transaction the row is locked with ``FOR UPDATE SKIP LOCKED`` (a worker
  never waits for another), checked to be free (``locked_until`` past) and unchanged since the caller read
  it, and given ``locked_until`` = now + ``lease_s`` by the database's clock (replicas' clocks may differ).
  While the body runs the lease is renewed every third of it; at the end it is let go. A replica that dies
  holding a job lets its lease run out, and then another worker claims it: each job runs once, or again
  only after its worker died (and a job that runs twice finds its own episode).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

import asyncpg

from ..errors import StoreUnavailable
from ..memory.backends.postgres import Database
from .jobs import _ID, MAX_ERROR_CHARS, Job, backoff_s

log = logging.getLogger("proxy.jobs")

LEASE_S = 60.0
_FREE = "(locked_until IS NULL OR locked_until < clock_timestamp())"


class PostgresJobs:
    def __init__(
        self,
        database: Database,
        *,
        max_attempts: int = 8,
        base_backoff_s: float = 2.0,
        max_backoff_s: float = 600.0,
        lease_s: float = LEASE_S,
    ) -> None:
        database.retain()
        self.database = database
        self.max_attempts = max_attempts
        self.base_backoff_s = base_backoff_s
        self.max_backoff_s = max_backoff_s
        self.lease_s = lease_s
        self._letting_go: set[asyncio.Future[None]] = set()

    async def put(self, job: Job) -> None:
        if not _ID.fullmatch(job.id):
            raise ValueError("not a job id")
        async with self.database.connection() as conn:
            await conn.execute(
                "INSERT INTO extraction_jobs (id, user_name, workspace, created_at, state, next_at, body)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7)"
                " ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, next_at = EXCLUDED.next_at,"
                " body = EXCLUDED.body",
                job.id,
                job.user,
                job.workspace,
                job.created_at,
                job.state,
                job.next_at,
                job.to_json(),
            )

    async def all(self) -> list[Job]:
        async with self.database.connection() as conn:
            rows = await conn.fetch("SELECT id, body FROM extraction_jobs ORDER BY created_at, id")
        return _parse(rows)

    async def due(self, now: float) -> list[Job]:
        async with self.database.connection() as conn:
            rows = await conn.fetch(
                "SELECT id, body FROM extraction_jobs WHERE state = 'pending' AND next_at <= $1"
                " ORDER BY created_at, id",
                now,
            )
        return _parse(rows)

    async def next_due_at(self) -> float | None:
        async with self.database.connection() as conn:
            found = await conn.fetchval("SELECT min(next_at) FROM extraction_jobs WHERE state = 'pending'")
        return None if found is None else float(found)

    async def done(self, job_id: str) -> None:
        async with self.database.connection() as conn:
            await conn.execute("DELETE FROM extraction_jobs WHERE id = $1", job_id)

    async def retry_later(self, job: Job, error: str, now: float) -> Job:
        attempts = job.attempts + 1
        wait = backoff_s(attempts, base_s=self.base_backoff_s, cap_s=self.max_backoff_s)
        state = "failed" if attempts >= self.max_attempts else "pending"
        later = replace(job, attempts=attempts, next_at=now + wait, last_error=error[:MAX_ERROR_CHARS], state=state)
        async with self.database.connection() as conn:  # a job done meanwhile has no row: it stays done
            await conn.execute(
                "UPDATE extraction_jobs SET state = $2, next_at = $3, body = $4 WHERE id = $1",
                later.id,
                later.state,
                later.next_at,
                later.to_json(),
            )
        return later

    async def retry_now(self, job_id: str) -> Job | None:
        async with self.database.transaction() as conn:
            row = await conn.fetchrow(
                f"SELECT id, body, NOT {_FREE} AS leased FROM extraction_jobs WHERE id = $1 FOR UPDATE", job_id
            )
            jobs = _parse([row] if row is not None else [])
            if not jobs or row is None or row["leased"]:
                return jobs[0] if jobs else None  # being run: its worker decides what becomes of it
            job = replace(jobs[0], state="pending", next_at=0.0)
            await conn.execute(
                "UPDATE extraction_jobs SET state = $2, next_at = $3, body = $4 WHERE id = $1",
                job.id,
                job.state,
                job.next_at,
                job.to_json(),
            )
        return job

    async def running(self) -> set[str]:
        async with self.database.connection() as conn:
            rows = await conn.fetch(f"SELECT id FROM extraction_jobs WHERE NOT {_FREE}")
        return {row["id"] for row in rows}

    @contextlib.asynccontextmanager
    async def claim(self, job: Job) -> AsyncIterator[bool]:
        token = uuid.uuid4().hex
        # Shielded: a claimer cancelled while the lease is being taken still lets go of it.
        taking = asyncio.ensure_future(self._take(job, token))
        try:
            held = await asyncio.shield(taking)
        except asyncio.CancelledError:
            taking.add_done_callback(lambda _: self._let_go_soon(job.id, token))
            raise
        if not held:
            yield False
            return
        renewing = asyncio.ensure_future(self._renew(job.id, token))
        try:
            yield True
        finally:
            renewing.cancel()
            await asyncio.shield(asyncio.ensure_future(self._let_go(job.id, token)))

    async def aclose(self) -> None:
        if self._letting_go:
            await asyncio.gather(*self._letting_go, return_exceptions=True)
        await self.database.release()

    # -- leases ---------------------------------------------------------------------------------------------

    async def _take(self, job: Job, token: str) -> bool:
        async with self.database.transaction() as conn:
            row = await conn.fetchrow(
                f"SELECT id, body FROM extraction_jobs WHERE id = $1 AND {_FREE} FOR UPDATE SKIP LOCKED", job.id
            )
            if row is None or _parse([row]) != [job]:  # held, gone, or changed: another worker has it or ran it
                return False
            await conn.execute(
                "UPDATE extraction_jobs SET locked_until = clock_timestamp() + $2 * interval '1 second',"
                " locked_by = $3 WHERE id = $1",
                job.id,
                self.lease_s,
                token,
            )
        return True

    async def _renew(self, job_id: str, token: str) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 3)
            try:
                async with self.database.connection() as conn:
                    await conn.execute(
                        "UPDATE extraction_jobs SET locked_until = clock_timestamp() + $2 * interval '1 second'"
                        " WHERE id = $1 AND locked_by = $3",
                        job_id,
                        self.lease_s,
                        token,
                    )
            except StoreUnavailable as exc:  # the next renewal may get through before the lease runs out
                log.warning("could not renew the lease on job %s: %s", job_id, exc.message)

    def _let_go_soon(self, job_id: str, token: str) -> None:
        task = asyncio.ensure_future(self._let_go(job_id, token))
        self._letting_go.add(task)
        task.add_done_callback(self._letting_go.discard)

    async def _let_go(self, job_id: str, token: str) -> None:
        try:
            async with self.database.connection() as conn:
                await conn.execute(
                    "UPDATE extraction_jobs SET locked_until = NULL, locked_by = NULL WHERE id = $1 AND locked_by = $2",
                    job_id,
                    token,
                )
        except StoreUnavailable as exc:  # the lease runs out by itself
            log.warning("could not let go of job %s (its lease will run out): %s", job_id, exc.message)


def _parse(rows: Sequence[asyncpg.Record]) -> list[Job]:
    jobs = []
    for row in rows:
        try:
            job = Job.from_json(row["body"])
            if job.id != row["id"]:
                raise ValueError("its body's id is not its row's")
        except (ValueError, TypeError) as exc:  # never the transcript: the messages name fields only
            log.warning("skipping an unreadable job row %s: %s", row["id"], exc)
            continue
        jobs.append(job)
    return jobs
