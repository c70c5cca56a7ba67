"""The extraction job queue: durable across restarts and ``kill -9``, backed off on failure, claimed by one worker."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from proxy.episodes import jobs as jobs_module
from proxy.episodes.jobs import Job, JobQueue, Jobs, backoff_s, new_job
from proxy.errors import StoreUnavailable

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
SECRET = "the transcript says hunter2"


def job(now: float = 1000.0, session: str = "s-1") -> Job:
    return new_job(
        user="alice",
        workspace="w",
        session_id=session,
        model="gpt-x",
        turns=3,
        transcript=SECRET,
        untrusted=False,
        sources=("user", "assistant"),
        now=now,
    )


class Processes:
    """Python processes running a snippet with the repository importable; any still running are killed (by pid)."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, code: str, *args: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.started.append(process)
        return process

    def close(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.communicate()


@pytest.fixture
def processes() -> Iterator[Processes]:
    started = Processes()
    yield started
    started.close()


OpenQueue = Callable[..., Jobs]


@pytest.fixture(params=["files", "postgres"])
async def queues(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[OpenQueue]:
    """Builds queues on one storage (each what another process would build, options as JobQueue's); closes them."""
    opened: list[Jobs] = []
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else ""

    def build(**options: Any) -> Jobs:
        if request.param == "files":
            opened.append(JobQueue(tmp_path, **options))
        else:
            from proxy.episodes.pg_jobs import PostgresJobs
            from proxy.memory.backends.postgres import Database

            opened.append(PostgresJobs(Database(dsn), **options))
        return opened[-1]

    build.files = request.param == "files"  # type: ignore[attr-defined]
    yield build
    for queue in opened:
        await queue.aclose()


def on_files(queues: OpenQueue) -> bool:
    """Whether the queues keep files under tmp_path, which a test may then look at."""
    return bool(getattr(queues, "files", False))


def test_backoff_doubles_from_the_base_and_stops_at_the_cap() -> None:
    waits = [backoff_s(attempts, base_s=2.0, cap_s=600.0) for attempts in range(1, 11)]
    assert waits == [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 600.0]
    assert backoff_s(10_000, base_s=2.0, cap_s=600.0) == 600.0  # no overflow however many attempts
    with pytest.raises(ValueError):
        backoff_s(0, base_s=2.0, cap_s=600.0)


def test_a_job_survives_its_json_round_trip_and_bad_types_are_refused() -> None:
    original = dataclasses.replace(job(), attempts=2, next_at=1234.5, last_error="boom", state="failed")
    assert original.id.startswith("j-") and len(original.id) == 34
    assert Job.from_json(orjson.loads(orjson.dumps(original.to_json()))) == original
    for field, bad in [("turns", True), ("untrusted", 1), ("sources", ["a", 1]), ("model", 3), ("state", "running")]:
        with pytest.raises(ValueError):
            Job.from_json({**original.to_json(), field: bad})
    for name in ("../evil", "j-1"):  # ids become file names
        with pytest.raises(ValueError):
            Job.from_json({**original.to_json(), "id": name})
    with pytest.raises(ValueError):
        Job.from_json({k: v for k, v in original.to_json().items() if k != "user"})


async def test_a_put_job_is_listed_and_due_until_it_is_done(queues: OpenQueue, tmp_path: Path) -> None:
    queue = queues()
    assert await queue.all() == [] and await queue.next_due_at() is None
    second, first = job(now=2000.0), job(now=1000.0)
    await queue.put(second)
    await queue.put(first)
    assert await queue.all() == [first, second]  # oldest created first
    assert await queue.due(now=3000.0) == [first, second]
    assert await queue.next_due_at() == 0.0

    await queue.done(first.id)
    assert await queue.all() == [second]
    await queue.done(first.id)  # already gone: fine
    await queue.done("../not-a-job")
    if on_files(queues):
        assert sorted(os.listdir(tmp_path / "jobs")) == [f"{second.id}.json"]


async def test_due_waits_for_next_at_and_skips_failed_jobs(queues: OpenQueue) -> None:
    queue = queues()
    waiting = dataclasses.replace(job(now=1000.0), next_at=500.0)
    failed = dataclasses.replace(job(now=1001.0), state="failed")
    ready = job(now=1002.0)
    for each in (waiting, failed, ready):
        await queue.put(each)
    assert await queue.due(now=499.0) == [ready]
    assert await queue.due(now=500.0) == [waiting, ready]
    assert await queue.next_due_at() == 0.0
    await queue.done(ready.id)
    assert await queue.next_due_at() == 500.0
    assert len(await queue.all()) == 2  # the failed job stays listed


async def test_retry_later_backs_off_exponentially_then_leaves_the_job_failed(queues: OpenQueue) -> None:
    queue = queues(max_attempts=4, base_backoff_s=2.0, max_backoff_s=5.0)
    current = job()
    await queue.put(current)
    waits = []
    for now in (100.0, 200.0, 300.0):
        current = await queue.retry_later(current, "the model said no", now)
        waits.append(current.next_at - now)
        assert current.state == "pending" and await queues().all() == [current]
    assert waits == [2.0, 4.0, 5.0]
    assert await queue.due(now=304.0) == [] and await queue.due(now=305.0) == [current]

    current = await queue.retry_later(current, "x" * 2000, 400.0)
    assert (current.attempts, current.state, current.last_error) == (4, "failed", "x" * 500)
    assert await queues().all() == [current]
    assert await queue.due(now=1e12) == [] and await queue.next_due_at() is None


async def test_retry_later_does_not_bring_back_a_job_done_meanwhile(queues: OpenQueue) -> None:
    queue = queues()
    await queue.put(original := job())
    await queue.done(original.id)
    await queue.retry_later(original, "late failure", 100.0)
    assert await queue.all() == []


async def test_retry_now_makes_a_failed_or_waiting_job_due_at_once(queues: OpenQueue, tmp_path: Path) -> None:
    queue = queues(max_attempts=1)
    await queue.put(original := job())
    failed = await queue.retry_later(original, "boom", 100.0)
    assert failed.state == "failed"

    again = await queue.retry_now(original.id)
    assert again == dataclasses.replace(failed, state="pending", next_at=0.0)
    assert await queues().due(now=1.0) == [again]
    assert await queue.retry_now("j-" + "0" * 32) is None
    assert await queue.retry_now("../etc/passwd") is None
    if on_files(queues):  # no lock file left for unknown ids
        assert {p.name for p in (tmp_path / "jobs").iterdir()} <= {f"{original.id}.json", f"{original.id}.lock"}


async def test_a_new_queue_on_the_same_root_sees_the_jobs_of_the_old_one(queues: OpenQueue) -> None:
    before = queues()
    await before.put(pending := job(now=1000.0))
    await before.put(waiting := job(now=2000.0, session="s-2"))
    waiting = await before.retry_later(waiting, "boom", 100.0)
    after = queues()
    assert await after.all() == [pending, waiting]
    await after.done(pending.id)
    assert await before.all() == [waiting]


async def test_a_claim_is_exclusive_across_two_queues_in_one_process(queues: OpenQueue) -> None:
    one, two = queues(), queues()
    await one.put(claimed := job())
    async with one.claim(claimed) as held:
        assert held
        async with two.claim(claimed) as also, one.claim(claimed) as again:
            assert not also and not again  # flock is per open file description, not per process
        assert await two.retry_now(claimed.id) == claimed  # being run: left to its worker
    async with two.claim(claimed) as held:
        assert held


async def test_a_claim_is_exclusive_across_processes(tmp_path: Path, processes: Processes) -> None:
    queue = JobQueue(tmp_path)
    await queue.put(claimed := job())
    holder = processes.start(
        "import asyncio, sys\n"
        "from proxy.episodes.jobs import JobQueue\n"
        "async def main():\n"
        "    queue = JobQueue(sys.argv[1])\n"
        "    [job] = await queue.all()\n"
        "    async with queue.claim(job) as held:\n"
        "        print('held' if held else 'refused', flush=True)\n"
        "        sys.stdin.readline()\n"
        "asyncio.run(main())\n",
        str(tmp_path),
    )
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline() == b"held\n"
    async with queue.claim(claimed) as held:
        assert not held
    holder.communicate(b"go\n", timeout=30)
    assert holder.returncode == 0
    async with queue.claim(claimed) as held:
        assert held


async def test_a_claim_on_a_job_run_meanwhile_by_another_worker_is_refused(queues: OpenQueue, tmp_path: Path) -> None:
    """Both workers saw the job due; the first ran it before the second tried to claim it."""
    one, two = queues(), queues()
    await one.put(first := job(now=1000.0))
    await one.put(second := job(now=2000.0))
    [seen_first, seen_second] = await two.due(now=1.0)
    async with one.claim(first) as held:
        assert held
        await one.done(first.id)
    async with one.claim(second) as held:
        assert held
        await one.retry_later(second, "boom", 100.0)
    for stale in (seen_first, seen_second):
        async with two.claim(stale) as held:
            assert not held
    if on_files(queues):
        assert {p.suffix for p in (tmp_path / "jobs").iterdir()} == {".json", ".lock"}
        assert not (tmp_path / "jobs" / f"{first.id}.lock").exists()


async def test_a_claim_cancelled_while_taking_the_lock_does_not_keep_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = JobQueue(tmp_path), JobQueue(tmp_path)
    await one.put(claimed := job())
    hold_lock, taken = JobQueue._hold, threading.Event()

    def slow_hold(queue: JobQueue, job_id: str) -> tuple[int | None, Job | None]:
        time.sleep(0.2)  # the claimer is cancelled meanwhile; the thread still takes the lock
        try:
            return hold_lock(queue, job_id)
        finally:
            taken.set()

    async def run() -> None:
        async with one.claim(claimed):
            await asyncio.sleep(60)

    monkeypatch.setattr(JobQueue, "_hold", slow_hold)
    task = asyncio.ensure_future(run())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    monkeypatch.undo()
    assert await asyncio.to_thread(taken.wait, 5)
    deadline = time.monotonic() + 120
    while True:
        async with two.claim(claimed) as held:
            if held:
                break
        assert time.monotonic() < deadline, "a cancelled claim kept the job locked"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"", b"[]", b'{"id": "j-1"}', SECRET.encode()],
)
async def test_an_unreadable_job_file_is_skipped_with_a_warning_that_never_shows_the_transcript(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    queue = JobQueue(tmp_path)
    await queue.put(good := job())
    bad = job()
    (tmp_path / "jobs" / f"{bad.id}.json").write_bytes(content)
    mismatched = dataclasses.replace(job(), id=job().id)  # a valid job under another job's name
    (tmp_path / "jobs" / f"{job().id}.json").write_bytes(orjson.dumps(mismatched.to_json()))
    with caplog.at_level(logging.WARNING, logger="proxy.jobs"):
        assert await queue.all() == [good]
        assert await queue.due(now=1.0) == [good]
    assert len(caplog.records) == 4
    assert all(SECRET not in record.getMessage() for record in caplog.records)


async def test_a_crash_s_temp_file_is_ignored_and_removed_once_stale(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path)
    await queue.put(good := job())
    fresh = tmp_path / "jobs" / f"{job().id}.json.tmp-1-2"
    stale = tmp_path / "jobs" / f"{job().id}.json.tmp-3-4"
    orphan_lock = tmp_path / "jobs" / f"{job().id}.lock"
    for path in (fresh, stale, orphan_lock):
        path.write_bytes(b'{"half": ')
    for path in (stale, orphan_lock):
        os.utime(path, (time.time() - 7200, time.time() - 7200))
    assert await queue.all() == [good]
    assert fresh.exists() and not stale.exists() and not orphan_lock.exists()


def no_space(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("failing", ["fsync", "fsync_dir"])
async def test_a_put_that_fails_leaves_neither_a_temp_file_nor_a_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    """A put that raised was not acknowledged: a job it left (renamed, but not durable) would be queued twice."""
    queue = JobQueue(tmp_path)
    await queue.put(kept := job(session="kept"))
    with monkeypatch.context() as patched:
        if failing == "fsync":
            patched.setattr(jobs_module.os, "fsync", no_space)
        else:
            patched.setattr(jobs_module, "fsync_dir", no_space)
        with pytest.raises(StoreUnavailable):
            await queue.put(job(session="lost"))
        with pytest.raises(StoreUnavailable):
            await queue.retry_later(kept, "boom", now=2000.0)  # an existing job is never removed by a failure
    assert sorted(path.name for path in (tmp_path / "jobs").iterdir()) == [f"{kept.id}.json"]
    assert [found.id for found in await queue.all()] == [kept.id]


async def test_a_temp_file_whose_writer_is_gone_is_removed_at_once(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path)
    await queue.put(good := job())
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    crashed = tmp_path / "jobs" / f"{good.id}.json.tmp-{process.pid}-1"
    crashed.write_bytes(b'{"half": ')
    assert await queue.all() == [good]
    assert not crashed.exists()


async def test_a_job_whose_id_is_not_a_job_id_is_never_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        await JobQueue(tmp_path / "data").put(dataclasses.replace(job(), id="../escaped"))
    assert not any(tmp_path.rglob("*escaped*"))


async def test_a_file_system_error_is_a_store_unavailable(tmp_path: Path) -> None:
    (tmp_path / "jobs").write_text("a file where the directory should be")
    queue = JobQueue(tmp_path)
    with pytest.raises(StoreUnavailable):
        await queue.put(job())
    with pytest.raises(StoreUnavailable):
        await queue.all()


async def test_every_acknowledged_put_survives_kill_9(tmp_path: Path, processes: Processes) -> None:
    putter = processes.start(
        "import asyncio, sys, time\n"
        "from proxy.episodes.jobs import JobQueue, new_job\n"
        "async def main():\n"
        "    queue = JobQueue(sys.argv[1])\n"
        "    while True:\n"
        "        job = new_job(user='u', workspace='w', session_id='s', model=None, turns=1,\n"
        "                      transcript='x' * 20000, untrusted=True, sources=(), now=time.time())\n"
        "        await queue.put(job)\n"
        "        print('ok', job.id, flush=True)\n"
        "asyncio.run(main())\n",
        str(tmp_path),
    )
    assert putter.stdout is not None and putter.stderr is not None
    acked: list[str] = []
    while len(acked) < 30:
        line = putter.stdout.readline()
        if not line:
            pytest.fail(f"the putter stopped early: {putter.stderr.read().decode()}")
        acked.append(line.split()[1].decode())
    putter.send_signal(signal.SIGKILL)
    out, _ = putter.communicate()
    assert putter.returncode == -signal.SIGKILL
    acked += [line.split()[1].decode() for line in out.splitlines() if line.startswith(b"ok ")]

    stored = await JobQueue(tmp_path).all()
    assert set(acked) <= {each.id for each in stored}
    assert all(each.transcript == "x" * 20000 and each.untrusted for each in stored)
    assert len(stored) == len(list((tmp_path / "jobs").glob("*.json")))  # no torn job file


async def test_a_job_keeps_the_format_its_session_spoke_and_an_older_job_reads_as_chat(queues: OpenQueue) -> None:
    """Where its extraction goes depends on it (an Anthropic session is extracted through Anthropic's upstream)."""
    queue = queues()
    spoke = dataclasses.replace(job(), api="messages")
    await queue.put(spoke)
    assert [found.api for found in await queues().all()] == ["messages"]
    older = {key: value for key, value in job().to_json().items() if key != "api"}
    assert Job.from_json(older).api == "chat"
    with pytest.raises(ValueError):
        Job.from_json({**older, "api": "smtp"})
