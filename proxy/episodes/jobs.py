"""The durable queue of extraction jobs: one JSON file per job in ``<root>/jobs``, shared by every process.

- A job file is written to a temp file, fsynced, renamed over ``<id>.json`` and the directory fsynced, so a
  restart or a ``kill -9`` finds every job whose ``put`` returned, whole. A ``put`` that fails (a full disk)
  leaves nothing behind, neither its temp file nor a job it could not make durable; a crash's temp file is
  ignored, and removed once its writer is gone (or it is stale).
- A job that fails waits ``backoff_s`` before it is due again; after ``max_attempts`` it stays, ``failed``,
  for ``memproxy episodes list`` and a user-driven ``retry_now``.
- ``claim`` is a non-blocking ``flock`` on ``<id>.lock``: one worker runs a job at a time, the others skip it.
  ``done`` removes the job file first and its lock file last, and a claim that finds the job gone or changed
  (run by another worker meanwhile) yields False, so a removed lock file never lets a job run twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

import orjson

from ..errors import StoreUnavailable
from ..memory.backends.durable import fsync_dir, left_by_a_crash, writer_gone
from ..memory.records import format_ts
from .extraction_wire import APIS

log = logging.getLogger("proxy.jobs")

T = TypeVar("T")
STATES = ("pending", "failed")
MAX_ERROR_CHARS = 500
STALE_TEMP_S = 3600.0  # a temp file this old was left by a crash, not being written
_ID = re.compile(r"j-[0-9a-f]{32}")


@dataclass(frozen=True, slots=True)
class Job:
    id: str
    user: str
    workspace: str
    session_id: str
    model: str | None  # the session's model (used when extraction.model is null)
    turns: int
    transcript: str  # stripped and redacted by the caller: safe to write
    untrusted: bool
    sources: tuple[str, ...]
    created_at: float
    attempts: int = 0
    next_at: float = 0.0  # not before this time (epoch seconds)
    last_error: str | None = None
    state: str = "pending"  # "pending" | "failed" (gave up after max_attempts)
    api: str = "chat"  # the dialect the session's requests spoke: its extraction goes where and as they went
    started_at: float = 0.0  # when its session began (0: not recorded; created_at counts then)

    def __post_init__(self) -> None:
        if not self.started_at:
            object.__setattr__(self, "started_at", self.created_at)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "sources": list(self.sources)}

    def status_json(self) -> dict[str, Any]:
        """The job as its user sees it (API, CLI): how it is doing, never its transcript."""
        return {
            "id": self.id,
            "session_id": self.session_id,
            "turns": self.turns,
            "state": self.state,
            "attempts": self.attempts,
            "next_at": format_ts(self.next_at) if self.next_at else None,
            "last_error": self.last_error,
            "created_at": format_ts(self.created_at),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Job:
        """Strict about every type (ValueError): a job file is only ever written by this module."""
        if not isinstance(obj, Mapping):
            raise ValueError("a job must be a JSON object")
        fields: dict[str, Any] = {}
        for name, kinds in _KINDS.items():
            value = obj.get(name)
            if name not in obj or isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
                raise ValueError(f"{name!r} is missing or of the wrong type")
            fields[name] = float(obj[name]) if float in kinds else value
        sources = obj.get("sources")
        if not isinstance(sources, list) or not all(isinstance(source, str) for source in sources):
            raise ValueError("'sources' must be a list of strings")
        if not _ID.fullmatch(fields["id"]) or fields["state"] not in STATES or fields["attempts"] < 0:
            raise ValueError("bad 'id', 'state' or 'attempts'")
        api = obj.get("api", "chat")  # jobs written before sessions recorded it were all extracted as chat
        if api not in APIS:
            raise ValueError("bad 'api'")
        started = obj.get("started_at", 0.0)
        if isinstance(started, bool) or not isinstance(started, int | float):
            raise ValueError("bad 'started_at'")
        return cls(**fields, sources=tuple(sources), api=api, started_at=float(started))


_KINDS: dict[str, tuple[type, ...]] = {
    **dict.fromkeys(("id", "user", "workspace", "session_id", "transcript", "state"), (str,)),
    **dict.fromkeys(("model", "last_error"), (str, type(None))),
    **dict.fromkeys(("turns", "attempts"), (int,)),
    **dict.fromkeys(("created_at", "next_at"), (int, float)),
    "untrusted": (bool,),
}


def new_job(
    *,
    user: str,
    workspace: str,
    session_id: str,
    model: str | None,
    turns: int,
    transcript: str,
    untrusted: bool,
    sources: tuple[str, ...],
    now: float,
    api: str = "chat",
    started_at: float = 0.0,
) -> Job:
    return Job(
        id=f"j-{uuid.uuid4().hex}",
        user=user,
        workspace=workspace,
        session_id=session_id,
        model=model,
        turns=turns,
        transcript=transcript,
        untrusted=untrusted,
        sources=tuple(sources),
        created_at=now,
        api=api,
        started_at=started_at or now,
    )


def backoff_s(attempts: int, *, base_s: float, cap_s: float) -> float:
    """The wait after the ``attempts``-th failure: doubling from ``base_s``, never past ``cap_s``."""
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    return float(min(base_s * 2 ** min(attempts - 1, 64), cap_s))


class Jobs(Protocol):
    """The durable queue of extraction jobs every process shares (``JobQueue``: files; ``PostgresJobs``).

    Every method may raise :class:`StoreUnavailable`.
    """

    async def put(self, job: Job) -> None:
        """Store a job durably before returning (a restart or a crash finds it)."""
        ...

    async def all(self) -> list[Job]:
        """Every job not done, failed ones included, oldest first."""
        ...

    async def due(self, now: float) -> list[Job]:
        """The pending jobs whose time has come, oldest first (another worker may be running one)."""
        ...

    async def next_due_at(self) -> float | None: ...

    async def done(self, job_id: str) -> None:
        """Remove a job for good (an unknown id is fine)."""
        ...

    async def retry_later(self, job: Job, error: str, now: float) -> Job:
        """One more failed attempt: backed off, or ``failed`` past the attempts; a job done meanwhile stays done."""
        ...

    async def retry_now(self, job_id: str) -> Job | None:
        """Due at once (a job being run is left to its worker and returned as it is); None when unknown."""
        ...

    async def running(self) -> set[str]:
        """The ids of the jobs a worker (of any process) is running now."""
        ...

    def claim(self, job: Job) -> contextlib.AbstractAsyncContextManager[bool]:
        """True inside while this worker holds the job; False when another holds it or has run it since
        ``job`` was read."""
        ...

    async def aclose(self) -> None: ...


class JobQueue:
    """:class:`Jobs` as files: see the module's docstring."""

    def __init__(
        self, root: str | Path, *, max_attempts: int = 8, base_backoff_s: float = 2.0, max_backoff_s: float = 600.0
    ) -> None:
        self.root = Path(root)
        self.directory = self.root / "jobs"
        self.max_attempts = max_attempts
        self.base_backoff_s = base_backoff_s
        self.max_backoff_s = max_backoff_s

    async def put(self, job: Job) -> None:
        await _in_thread(lambda: self._write(job))

    async def aclose(self) -> None:
        """Nothing held open."""

    async def all(self) -> list[Job]:
        return await _in_thread(self._scan)

    async def due(self, now: float) -> list[Job]:
        return [job for job in await self.all() if job.state == "pending" and job.next_at <= now]

    async def next_due_at(self) -> float | None:
        return min((job.next_at for job in await self.all() if job.state == "pending"), default=None)

    async def done(self, job_id: str) -> None:
        if _ID.fullmatch(job_id):
            await _in_thread(lambda: self._remove(job_id))

    async def retry_later(self, job: Job, error: str, now: float) -> Job:
        """Called by the claim's holder. A job removed meanwhile (``done`` elsewhere) stays removed."""
        attempts = job.attempts + 1
        wait = backoff_s(attempts, base_s=self.base_backoff_s, cap_s=self.max_backoff_s)
        state = "failed" if attempts >= self.max_attempts else "pending"
        later = replace(job, attempts=attempts, next_at=now + wait, last_error=error[:MAX_ERROR_CHARS], state=state)
        await _in_thread(lambda: self._write(later, only_if_present=True))
        return later

    async def retry_now(self, job_id: str) -> Job | None:
        """Due at once, keeping its attempts (one more try before it counts as failed again). A job being run
        right now is returned as it is: its worker decides what becomes of it."""

        def work() -> Job | None:
            fd, job = self._hold(job_id)
            try:
                if fd is None or job is None:
                    return job
                job = replace(job, state="pending", next_at=0.0)
                self._write(job)
                return job
            finally:
                _close(fd)

        return await _in_thread(work)

    async def running(self) -> set[str]:
        def scan() -> set[str]:
            found = set()
            with contextlib.suppress(FileNotFoundError):
                for entry in os.scandir(self.directory):
                    if entry.name.endswith(".lock") and _ID.fullmatch(entry.name.removesuffix(".lock")):
                        with contextlib.suppress(OSError, ValueError):
                            with open(entry.path, "rb") as handle:
                                holder = handle.read(32).strip()
                            if holder and not writer_gone(int(holder), os.stat(entry.path).st_mtime):
                                found.add(entry.name.removesuffix(".lock"))
            return found

        return await _in_thread(scan)

    @contextlib.asynccontextmanager
    async def claim(self, job: Job) -> AsyncIterator[bool]:
        """Holds the job's lock while the body runs; False when another worker has it, or has already run it.

        The holder writes its pid into the lock file while it runs the job (``running`` reads it), and empties it
        before letting go; a pid a crash left there names no live process (or this one, before it started).
        """

        def acquire() -> int | None:
            fd, stored = self._hold(job.id)
            if stored != job:  # gone, or changed: another worker ran it since `job` was read
                _close(fd)
                return None
            if fd is not None:
                with contextlib.suppress(OSError):  # only what `running` shows: the claim holds without it
                    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd

        # Shielded: a cancelled claimer must still close the lock it may have just taken, or nobody could run the job.
        task = asyncio.ensure_future(_in_thread(acquire))
        try:
            fd = await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(_close_claimed)
            raise
        try:
            yield fd is not None
        finally:
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)  # no longer running it
            _close(fd)  # closing releases the lock

    # -- in a thread ----------------------------------------------------------------------------------------

    def _path(self, job_id: str) -> Path:
        if not _ID.fullmatch(job_id):
            raise ValueError("not a job id")  # ids become file names: nothing else is ever a path
        return self.directory / f"{job_id}.json"

    def _lock_path(self, job_id: str) -> Path:
        return self.directory / f"{job_id}.lock"

    def _hold(self, job_id: str) -> tuple[int | None, Job | None]:
        """The job's lock, taken without waiting (None when another holder has it), and the job as stored now."""
        if not _ID.fullmatch(job_id) or not self._path(job_id).exists():
            return None, None
        path = self._path(job_id)
        fd = os.open(self._lock_path(job_id), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            return None, self._read(path)
        job = self._read(path)
        if job is None and not path.exists():  # removed meanwhile: so is its lock file, which we hold
            self._lock_path(job_id).unlink(missing_ok=True)
            os.close(fd)
            return None, None
        return fd, job

    def _write(self, job: Job, *, only_if_present: bool = False) -> None:
        path = self._path(job.id)
        if not self.directory.is_dir():
            self.directory.mkdir(parents=True, exist_ok=True)
            fsync_dir(self.root)  # the new directory's own entry
        new = not path.exists()
        if only_if_present and new:
            return
        temp = self.directory / f"{job.id}.json.tmp-{os.getpid()}-{threading.get_ident()}"
        renamed = False
        try:
            with open(temp, "wb") as handle:
                handle.write(orjson.dumps(job.to_json()))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
            renamed = True
            fsync_dir(self.directory)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
                if renamed and new:  # not durable, so not written: its session stays live and is queued again
                    path.unlink(missing_ok=True)
            raise

    def _remove(self, job_id: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(job_id).unlink()
            fsync_dir(self.directory)
        self._lock_path(job_id).unlink(missing_ok=True)  # last: a claim taken now finds the job gone

    def _read(self, path: Path) -> Job | None:
        try:
            job = Job.from_json(orjson.loads(path.read_bytes()))
        except FileNotFoundError:
            return None
        except ValueError as exc:  # never the transcript: the messages name fields and positions only
            log.warning("%s: skipping an unreadable job: %s", path, exc)
            return None
        if job.id != path.stem:
            log.warning("%s: skipping a job whose id does not match its file name", path)
            return None
        return job

    def _scan(self) -> list[Job]:
        jobs = []
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return []
        for entry in entries:
            if entry.name.endswith(".json"):
                job = self._read(Path(entry.path))
                if job is not None:
                    jobs.append(job)
            elif ".json.tmp-" in entry.name or (
                entry.name.endswith(".lock") and not os.path.exists(entry.path.removesuffix(".lock") + ".json")
            ):  # left by a crash (a lock file by one inside `done`)
                with contextlib.suppress(FileNotFoundError):
                    mtime = entry.stat().st_mtime
                    if mtime < time.time() - STALE_TEMP_S or left_by_a_crash(entry.name, mtime):
                        os.unlink(entry.path)
        return sorted(jobs, key=lambda job: (job.created_at, job.id))


def _close(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def _close_claimed(task: asyncio.Future[int | None]) -> None:
    if not task.cancelled() and task.exception() is None:
        _close(task.result())


async def _in_thread(work: Callable[[], T]) -> T:
    try:
        return await asyncio.to_thread(work)
    except OSError as exc:
        raise StoreUnavailable(f"the job queue failed: {exc.strerror or exc}") from exc
