"""Sessions end, episodes follow: turns counted in passing, extraction jobs queued durably and run in the background.

A chat request only notes its session (:meth:`EpisodeService.observe`, no I/O). A session ends after
``sessions.idle_timeout_s`` of silence, on ``POST /memory/sessions/{id}/end``, or at shutdown; with at least
``sessions.min_turns_for_extraction`` turns it becomes a job, written to disk before anything is acknowledged.
One worker per process runs due jobs: the extraction call, the episode, then the facts. A job that fails is
retried with backoff; one that ran before (a crash after the episode was written) finds its own episode and
only finishes what is left, so a session yields one episode however often its job runs.

Provenance (seed 002): a session that called a tool named in ``extraction.untrusted_tools`` or an MCP tool
(``server__tool``) yields an untrusted episode, kept for audit but never injected, searched, or turned into
memories until a person approves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from ..config import Settings
from ..errors import InvalidRequest, MemoryNotFound, MemoryRejected, ProxyError
from ..memory.caller import Identity
from ..memory.episodes import Episode, EpisodeStore, Provenance, episode_id
from ..memory.service import MemoryService
from ..memory.store import Owner
from ..metrics import Metrics
from ..scanning import redact, scan
from .extraction import ExtractionFailed, Extractor
from .jobs import Job, Jobs, new_job
from .sessions import Session, SessionTracker
from .transcript import MalformedExtraction, build_transcript, derive_provenance, extraction_messages, parse_extraction

log = logging.getLogger("proxy.episodes")

MAX_KEYS = 10_000
MAX_SWEEP_S = 30.0  # the idle sweep runs at least this often...
MIN_SWEEP_S = 0.2  # ...and at most this often
MAX_WAIT_S = 60.0  # the worker looks for jobs other processes queued at least this often


class SessionNotFound(InvalidRequest):
    status = 404
    code = "session_not_found"


@dataclass(frozen=True, slots=True)
class Ended:
    session: Session
    job: Job | None  # None: too few turns, or extraction is off
    reason: str


class EpisodeService:
    def __init__(
        self,
        settings: Settings,
        memory: MemoryService,
        store: EpisodeStore,
        jobs: Jobs,
        extractor: Extractor,
        metrics: Metrics,
        *,
        proxy_tools: frozenset[str],
    ) -> None:
        self.settings = settings
        self.memory = memory
        self.store = store
        self.jobs = jobs
        self.extractor = extractor
        self.metrics = metrics
        self.proxy_tools = proxy_tools
        self.sessions = SessionTracker()
        self._keys: OrderedDict[str, str] = OrderedDict()  # user -> their latest bearer token; never written
        self._forgotten: dict[tuple[str, str], float] = {}  # (user, workspace) -> when they asked to forget all
        self._want_key: set[str] = set()  # users whose jobs an upstream refused for want of their key
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._ending: set[asyncio.Task[Any]] = set()

    # -- the chat path ----------------------------------------------------------------------------------------

    def observe(self, caller: Identity, session_id: str, payload: dict[str, Any]) -> None:
        """Note a request of a session. No I/O: requests never wait on sessions or extraction."""
        self.sessions.observe(caller.user, caller.workspace, session_id, payload, now=time.time())
        if len(self.sessions) > self.sessions.limit:
            for session in self.sessions.overflow():
                if self._extracts(session):
                    self._end_soon(session, "overflow")
                else:  # the common case under load (one-shot requests): no task, no I/O
                    self.metrics.sessions_ended.labels("no_extraction").inc()

    def confirm(self, caller: Identity, session_id: str, model: Any, client_key: str | None) -> None:
        """The upstream accepted a request: its model is what the session used, and its key may pay for extraction.

        Only an accepted request counts, so a caller with a bogus key or a model of its choosing can neither
        break a user's extractions nor choose what they run on.
        """
        session = self.sessions.get(caller.user, caller.workspace, session_id)
        if session is not None and isinstance(model, str):
            session.model = model
        if client_key is not None and self.settings.upstream.api_key is None:
            self._keys[caller.user] = client_key
            self._keys.move_to_end(caller.user)
            if len(self._keys) > MAX_KEYS:
                self._keys.popitem(last=False)
            if caller.user in self._want_key:
                self._want_key.discard(caller.user)
                self._wake.set()

    def key_of(self, user: str) -> str | None:
        """The user's upstream key as their latest accepted request carried it (memory only, never disk)."""
        return self._keys.get(user)

    # -- ending sessions --------------------------------------------------------------------------------------

    async def end(self, caller: Identity, session_id: str) -> Ended:
        session = self.sessions.end((caller.user, caller.workspace, session_id))
        if session is None:
            raise SessionNotFound(f"no active session {session_id!r} here", param="session_id")
        return await self._ended(session, "ended by request")

    def _extracts(self, session: Session) -> bool:
        settings = self.settings
        return settings.extraction.enabled and session.turns >= settings.sessions.min_turns_for_extraction

    async def _ended(self, session: Session, reason: str) -> Ended:
        settings = self.settings
        if not self._extracts(session):
            self.metrics.sessions_ended.labels("no_extraction").inc()
            return Ended(session, None, reason)
        untrusted, sources = derive_provenance(session.tools, settings.extraction.untrusted_tools)
        # Milliseconds for a long session (redacting every message): off the event loop.
        transcript = await asyncio.to_thread(build_transcript, session.messages, proxy_tools=self.proxy_tools)
        job = new_job(
            user=session.user,
            workspace=session.workspace,
            session_id=session.id,
            model=session.model,
            turns=session.turns,
            transcript=transcript,
            untrusted=untrusted,
            sources=sources,
            now=time.time(),
        )
        await self.jobs.put(job)
        self.metrics.sessions_ended.labels("queued").inc()
        log.info("session %s of %s ended (%s): %d turns, job %s queued", session.id, session.user, reason,
                 session.turns, job.id)  # fmt: skip
        self._wake.set()
        return Ended(session, job, reason)

    def _end_soon(self, session: Session, reason: str) -> None:
        task = asyncio.ensure_future(self._ended(session, reason))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)
        task.add_done_callback(_log_failure)

    async def _sweep(self) -> None:
        timeout = self.settings.sessions.idle_timeout_s
        interval = min(max(timeout / 4, MIN_SWEEP_S), MAX_SWEEP_S)
        while True:
            await asyncio.sleep(interval)
            for session in self.sessions.idle(time.time(), timeout):
                try:
                    await self._ended(session, "idle")
                except Exception:  # noqa: BLE001 - one session's failure must not stop the sweep
                    log.exception("could not queue extraction for session %s", session.id)

    # -- the worker -------------------------------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.run_due()
                next_at = self.next_due(await self.jobs.all())
            except Exception:  # noqa: BLE001 - the worker outlives any one failure
                log.exception("extraction worker failed; trying again shortly")
                next_at = time.time() + 5
            wait = MAX_WAIT_S if next_at is None else min(max(next_at - time.time(), 0.0), MAX_WAIT_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=wait)

    def next_due(self, jobs: list[Job]) -> float | None:
        """Show what is queued in the metrics; returns when the next pending job is due."""
        pending = [job for job in jobs if job.state == "pending"]
        self.metrics.extraction_pending.labels("pending").set(len(pending))
        self.metrics.extraction_pending.labels("failed").set(len(jobs) - len(pending))
        waiting = (job.next_at for job in pending if job.user not in self._want_key)  # those wait for a request
        return min(waiting, default=None)

    async def run_due(self) -> int:
        """Run every job that is due now; returns how many ran to completion."""
        finished = 0
        for job in await self.jobs.due(time.time()):
            if job.user in self._want_key:
                continue  # until the user's next request brings their key back
            async with self.jobs.claim(job) as mine:
                if mine and await self.run_job(job):
                    finished += 1
        return finished

    async def run_job(self, job: Job) -> bool:
        """One job: its episode (made now, or found from an earlier run of the same job), then its facts."""
        owner = Owner(job.user, job.workspace)
        episode = (await self.store.view(owner)).get(episode_id(job.user, job.workspace, job.session_id))
        if episode is None or episode.job != job.id:
            try:
                answer = await self.extractor.extract(
                    extraction_messages(job.transcript),
                    session_model=job.model,
                    client_key=self.key_of(job.user),
                )
                extracted = parse_extraction(answer.text)
            except ExtractionFailed as exc:
                if exc.keyless and exc.upstream_status in (401, 403):
                    # After a restart the user's key is not known yet: wait for it without using up attempts.
                    self._want_key.add(job.user)
                    log.info("extraction job %s waits for a request from its user to bring their key", job.id)
                    return False
                return await self._retry(job, exc)
            except (ProxyError, MalformedExtraction) as exc:
                return await self._retry(job, exc)
            self.metrics.extraction_tokens.labels("prompt").inc(answer.prompt_tokens)
            self.metrics.extraction_tokens.labels("completion").inc(answer.completion_tokens)
            episode = self._episode(job, extracted.summary, extracted.facts, answer.model)
            await self.store.put(owner, episode)
        if job.created_at <= self._forgotten.get((job.user, job.workspace), 0.0):
            await self.store.delete(owner, episode.id)  # forgotten while it ran: keep nothing
            await self.jobs.done(job.id)
            return False
        if episode.provenance.replayable:
            await self._remember(episode)
        await self.jobs.done(job.id)
        self.metrics.extraction_jobs.labels("done").inc()
        held = "" if episode.provenance.replayable else " (untrusted: held for approval)"
        log.info("episode %s from session %s of %s: %d facts%s", episode.id, job.session_id, job.user,
                 len(episode.facts), held)  # fmt: skip
        return True

    async def _retry(self, job: Job, exc: Exception) -> bool:
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        later = await self.jobs.retry_later(job, message, time.time())
        outcome = "failed" if later.state == "failed" else "retry"
        self.metrics.extraction_jobs.labels(outcome).inc()
        log.warning("extraction job %s (session %s) attempt %d %s: %s", job.id, job.session_id, later.attempts,
                    "gave up" if outcome == "failed" else "will be retried", message)  # fmt: skip
        return False

    def _episode(self, job: Job, summary: str, facts: tuple[str, ...], model: str) -> Episode:
        """The episode a job's answer makes, after the same scan every memory write passes."""
        sources = job.sources
        summary = redact(summary)
        flagged = scan(summary)
        if flagged is not None:  # kept for audit, never replayed unless a person says so
            sources = (*sources, f"summary:{flagged.kind}")
        kept = []
        for fact in facts:
            finding = scan(fact)
            if finding is None:
                kept.append(fact)
            else:
                self.metrics.extraction_facts.labels("rejected").inc()
                log.warning("episode of session %s: a fact was rejected: %s", job.session_id, finding.reason)
        return Episode(
            id=episode_id(job.user, job.workspace, job.session_id),
            session_id=job.session_id,
            user=job.user,
            workspace=job.workspace,
            turns=job.turns,
            created_at=time.time(),
            summary=summary,
            facts=tuple(kept),
            provenance=Provenance(untrusted=job.untrusted or flagged is not None, sources=sources),
            job=job.id,
            model=model,
        )

    async def _remember(self, episode: Episode) -> None:
        """Trusted facts become memories through the one write path: scan, then merge or supersede."""
        caller = Identity(episode.user, episode.workspace)
        for fact in episode.facts:
            try:
                stored = await self.memory.add(
                    caller, {"text": fact, "source": "extracted"}, session=episode.session_id
                )
            except MemoryRejected as exc:
                self.metrics.extraction_facts.labels("rejected").inc()
                log.warning("episode %s: a fact was not stored: %s", episode.id, exc.message)
                continue
            outcome = "merged" if stored.unchanged else "superseded" if stored.superseded else "stored"
            self.metrics.extraction_facts.labels(outcome).inc()

    # -- management ---------------------------------------------------------------------------------------

    async def of(self, caller: Identity) -> tuple[list[Episode], list[Job]]:
        """The caller's episodes (untrusted ones too: this is the audit view) and their jobs not yet done."""
        episodes = list(await self.store.view(Owner(caller.user, caller.workspace)))
        jobs = [j for j in await self.jobs.all() if j.user == caller.user and j.workspace == caller.workspace]
        return episodes, jobs

    async def forget(self, caller: Identity) -> dict[str, int]:
        """Everything of the caller's in this workspace: live sessions, pending and failed jobs, episodes.

        A job already running when this is called finds its owner forgotten and keeps nothing.
        """
        owner = (caller.user, caller.workspace)
        self._forgotten[owner] = time.time()
        sessions = self.sessions.forget(caller.user, caller.workspace)
        jobs = 0
        for job in await self.jobs.all():
            if (job.user, job.workspace) == owner:
                await self.jobs.done(job.id)
                jobs += 1
        episodes = 0
        store_owner = Owner(caller.user, caller.workspace)
        for episode in list(await self.store.view(store_owner)):
            episodes += await self.store.delete(store_owner, episode.id)
        return {"sessions": sessions, "jobs": jobs, "episodes": episodes}

    async def approve(self, caller: Identity, ident: str) -> Episode:
        owner = Owner(caller.user, caller.workspace)
        episode = await self._get(owner, ident)
        if not episode.provenance.user_approved:
            episode = replace(episode, provenance=replace(episode.provenance, user_approved=True))
            await self.store.put(owner, episode)
        await self._remember(episode)
        return episode

    async def reject(self, caller: Identity, ident: str) -> Episode:
        owner = Owner(caller.user, caller.workspace)
        episode = await self._get(owner, ident)
        await self.store.delete(owner, episode.id)
        return episode

    async def _get(self, owner: Owner, ident: str) -> Episode:
        episode = (await self.store.view(owner)).get(ident)
        if episode is None:
            raise MemoryNotFound(f"no episode {ident!r} here", param="id")
        return episode

    # -- lifetime -------------------------------------------------------------------------------------------

    def start(self) -> None:
        self._tasks = [asyncio.ensure_future(self._work()), asyncio.ensure_future(self._sweep())]

    async def aclose(self) -> None:
        """Stop the worker (a job it was running stays queued) and end every live session: their jobs are kept."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._ending, return_exceptions=True)
        self._tasks = []
        await self.extractor.aclose()
        for session in self.sessions.end_all():
            try:
                await self._ended(session, "shutdown")
            except Exception:  # noqa: BLE001 - the rest still get their jobs
                log.exception("could not queue extraction for session %s at shutdown", session.id)
        await self.jobs.aclose()


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("could not queue extraction for a session", exc_info=task.exception())
