"""Sessions end, episodes follow: turns counted in passing, extraction jobs queued durably and run in the background.

A chat request only notes its session (:meth:`EpisodeService.observe`, no I/O). A session ends after
``sessions.idle_timeout_s`` of silence, on ``POST /memory/sessions/{id}/end``, or at shutdown; with at least
``sessions.min_turns_for_extraction`` turns it becomes a job, written to disk before anything is acknowledged;
a session whose job cannot be written (a full disk) is kept, live, and ends again later (the next end, sweep or
shutdown), so its episode is never lost to a failed write.
One worker per process runs due jobs: the extraction call, the episode, then the facts. It takes memproxy keys in
turn (one job per key each round; a service key's end users take turns among themselves), and a user keeps at
most ``extraction.max_pending_per_user`` jobs waiting (past it their oldest is dropped), so one user's sessions
never hold everyone else's back. A job that fails is retried
with backoff; one that ran before (a crash after the episode was written) finds its own episode and
only finishes what is left, so a session yields one episode however often its job runs.

Provenance (docs/security.md): a session that took in content from a tool ``extraction.trusted_tools`` does not name (a
call, a result, a hosted tool of the upstream's, a result whose call is not in sight) yields an untrusted episode,
kept for audit but never injected, searched, or turned into memories until a person approves it; approving it
approves its facts. The same session's own memory writes are held from the first request that shows it
(:meth:`EpisodeService.trust`). A session's taint is shared through the store, so an episode made by any replica,
or after the session was let go, knows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from ..config import Settings
from ..errors import (
    InvalidRequest,
    MemoryNotFound,
    MemoryRejected,
    ProxyError,
    StoreUnavailable,
    UnstorableInput,
)
from ..memory.caller import Identity
from ..memory.episodes import Episode, EpisodeStore, episode_id
from ..memory.forgetting import Forgetting, InProcessForgetStore
from ..memory.history_service import HistoryService
from ..memory.merging import Judge, Verdict
from ..memory.provenance import Provenance
from ..memory.records import Memory
from ..memory.service import MemoryService
from ..memory.store import Owner
from ..memory.versions import Actor
from ..metrics import Metrics
from ..pipe.providers import LiteLLMRoute
from ..scanning import redact, scan
from .evidence import tools_seen
from .extraction import ExtractionFailed, Extractor
from .extraction_wire import OPENAI, Credential, destination
from .history_turns import HistoryTurns
from .jobs import Job, Jobs, new_job
from .judgement import judgement_messages, parse_verdict
from .quotas import key_of_user
from .sessions import Followed, Session, SessionTracker
from .transcript import MalformedExtraction, build_transcript, extraction_messages, parse_extraction
from .trust import SessionTrust
from .untrusted import UntrustedTools

log = logging.getLogger("proxy.episodes")

MAX_KEYS = 10_000
MAX_SWEEP_S = 30.0  # the idle sweep runs at least this often...
MIN_SWEEP_S = 0.2  # ...and at most this often
MAX_WAIT_S = 60.0  # the worker looks for jobs other processes queued at least this often


class _Forgotten(Exception):
    """The job's user forgot everything while one of its facts was being judged: keep nothing more."""


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
        history: HistoryService | None = None,
        forgetting: Forgetting | None = None,
    ) -> None:
        self.settings = settings
        self.memory = memory
        self.store = store
        self.jobs = jobs
        self.extractor = extractor
        self.metrics = metrics
        self.proxy_tools = proxy_tools
        self.untrusted = UntrustedTools.of(settings.extraction, own=proxy_tools)
        self.sessions = SessionTracker(settings.sessions.max_live, untrusted=self.untrusted)
        self._sharing: set[asyncio.Task[None]] = set()  # taints and chain links on their way to the store
        self.history = history  # each session's conversation, kept per owner (the raw conversation log)
        self._history_turns = HistoryTurns(history, proxy_tools) if history is not None else None
        # (user, destination) -> the credential their latest accepted request there carried; never written
        self._keys: OrderedDict[tuple[str, str], Credential] = OrderedDict()
        self._route = LiteLLMRoute.of(settings.upstream)  # which chat models went through litellm
        # When each owner last forgot everything, in every process: what they said before it is never kept.
        self.forgetting = forgetting if forgetting is not None else Forgetting(InProcessForgetStore())
        self.forgetting.subscribe(self._forgot)
        if history is not None:
            history.forgotten_before = lambda owner: self.forgetting.before(owner.user or "", owner.workspace or "")
        # (user, destination) whose jobs that upstream refused for want of the user's key
        self._want_key: set[tuple[str, str]] = set()
        self._served: OrderedDict[str, int] = OrderedDict()  # user -> the worker's turn a job of theirs last ran
        self._turns = 0
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._ending: set[asyncio.Task[Any]] = set()

    # -- the chat path ----------------------------------------------------------------------------------------

    def observe(
        self,
        caller: Identity,
        session_id: str,
        messages: Sequence[dict[str, Any]],
        chain: Followed | None = None,
        hosted: tuple[str, ...] = (),
        *,
        size: int = 0,
    ) -> Provenance:
        """Note a request of a session; returns the session's provenance, which its memory writes carry."""
        return self.note(caller, session_id, messages, chain, hosted).provenance

        return self.note(caller, session_id, messages, chain, hosted, size=size).provenance

    def trust(
        self,
        caller: Identity,
        session_id: str,
        messages: Sequence[dict[str, Any]],
        chain: Followed | None = None,
        hosted: tuple[str, ...] = (),
        *,
        size: int = 0,
    ) -> SessionTrust:
        """A request's view of its session's provenance (:class:`SessionTrust`): the session is noted when it is
        first asked for (while the upstream works), then widened by what the answer brings in."""
        take = partial(self.note, caller, session_id, messages, chain, hosted, size=size)
        return SessionTrust(self.sessions, self.memory.sessions, caller, session_id, take, self._sharing)

    async def follow(self, caller: Identity, answer_id: str) -> Followed | None:
        """The chain a ``previous_response_id`` continues: this process's, else one an untrusted session's answer
        left in the store (another replica's, or one this process let go). Its sources come with it: the session
        it continues is untrusted."""
        found = self.sessions.follow(caller.user, caller.workspace, answer_id)
        if found is not None:
            return found
        try:
            shared = await self.memory.sessions.get_link((caller.user, caller.workspace), answer_id)
        except StoreUnavailable as exc:  # the request goes on, its chain unknown: results of unseen calls are held
            log.warning("chain %s not looked up: %s", answer_id[:100], exc.message)
            return None
        found = Followed.from_json(shared)
        if found is not None:
            sources = shared.get("sources") if isinstance(shared, dict) else None
            extra = tuple(("", str(name)) for name in sources) if isinstance(sources, list) else ()
            found = replace(found, called=(*found.called, *extra))
        return found

    def note(
        self,
        caller: Identity,
        session_id: str,
        messages: Sequence[dict[str, Any]],
        chain: Followed | None = None,
        hosted: tuple[str, ...] = (),
        *,
        size: int = 0,
    ) -> Session:
        """Note a request of a session: its turn, the tools it shows (:meth:`SessionTracker.observe`), its history.

        ``chain``: where a chained request goes on from (the conversation before its items, the calls it made);
        ``hosted``: tools the upstream runs for it out of sight (:meth:`Dialect.hosted`); ``size``: the request's
        bytes, what holding its conversation costs (against its key's share). No I/O: requests never wait on
        sessions or extraction.
        """
        now = time.time()
        # After a forget-all, a conversation first seen keeps only what is said from now on: a client that simply
        # goes on re-sends all of it, and none of that may come back.
        fresh_only = self.forgetting.before(caller.user, caller.workspace) > 0.0
        observed = self.sessions.observe(
            caller.user,
            caller.workspace,
            session_id,
            messages,
            now=now,
            chain=chain,
            hosted=hosted,
            fresh_only=fresh_only,
            size=size,
        )
        if self._history_turns is not None:  # queued: rendered and written in the background
            self._history_turns.note(observed, observed.own(), now)
        limits = self.settings.sessions
        ended = self.sessions.overflow() if len(self.sessions) > self.sessions.limit else []
        ended += self.sessions.over_quota(
            key_of_user(caller.user),
            max_count=limits.max_live_per_key,
            max_bytes=limits.max_bytes_per_key,
            max_total_bytes=limits.max_bytes,
        )
        for session in ended:  # the least recently seen end early; their episodes are not lost
            if self._extracts(session):
                self._end_soon(session, "overflow")
            else:  # the common case under load (one-shot requests): no task, no I/O
                self._history_ended(session)
                self.metrics.sessions_ended.labels("no_extraction").inc()
        return observed

    def confirm(
        self,
        caller: Identity,
        session_id: str,
        model: Any,
        credential: Credential | None,
        answer: Callable[[], Sequence[dict[str, Any]]] | None = None,
        *,
        api: str = "chat",
    ) -> None:
        """The upstream accepted a request of ``api`` (the dialect's name): its model and format are what the
        session used, and its credential may pay for extraction on that same upstream, and only there.

        Only an accepted request counts, so a caller with a bogus key or a model of its choosing can neither
        break a user's extractions nor choose what they run on.
        """
        session = self.sessions.get(caller.user, caller.workspace, session_id)
        if session is not None:
            if isinstance(model, str):
                session.model = model
            session.api = api
            session.answer = answer
        if credential is not None and self.settings.upstream.api_key is None:
            where = (caller.user, self._destination(api, model if isinstance(model, str) else None))
            self._keys[where] = credential
            self._keys.move_to_end(where)
            if len(self._keys) > MAX_KEYS:
                self._keys.popitem(last=False)
            if where in self._want_key:
                self._want_key.discard(where)
                self._wake.set()

    def key_of(self, user: str, destination: str = OPENAI) -> Credential | None:
        """The user's credential for an upstream (``OPENAI``, ``ANTHROPIC``, ``LITELLM``) as their latest request
        it accepted carried it (memory only, never disk)."""
        return self._keys.get((user, destination))

    def _one_per_key(self, jobs: list[Job]) -> list[Job]:
        """One round of the worker: each key's job, keys in the order of their oldest (``jobs`` is oldest first);
        a key's user is the one of its users served longest ago, and the job that user's oldest."""
        by_key: dict[str, dict[str, Job]] = {}
        for job in jobs:
            by_key.setdefault(key_of_user(job.user), {}).setdefault(job.user, job)
        return [min(users.values(), key=lambda job: self._served.get(job.user, 0)) for users in by_key.values()]

    def _forgotten_before(self, user: str, workspace: str) -> float:
        return self.forgetting.before(user, workspace)

    def _forgot(self, owner: tuple[str, str], before: float) -> None:
        """An owner forgot everything (here or on another replica): drop their live sessions, unextracted, and the
        history queued for them."""
        dropped = self.sessions.forget(*owner)
        if self.history is not None:
            self.history.drop_queued(Owner(*owner))
        if dropped:
            log.info("dropped %d live sessions of %s: forgotten", dropped, owner[0])

    def _destination(self, api: str, model: str | None) -> str:
        return destination(api, model, self._route.handles(model))

    def _job_key(self, job: Job) -> tuple[str, str]:
        return (job.user, self._destination(job.api, job.model))

    def _extract_kwargs(self, job: Job) -> dict[str, Any]:
        """Where and how a job's calls go: its session's format, and the credential its upstream accepted."""
        credential = self._keys.get(self._job_key(job))
        return {
            "session_model": job.model,
            "api": job.api,
            "client_key": credential.value if credential is not None else None,
            "key_header": credential.header if credential is not None else "authorization",
        }

    # -- ending sessions --------------------------------------------------------------------------------------

    async def end(self, caller: Identity, session_id: str) -> Ended:
        session = self.sessions.end((caller.user, caller.workspace, session_id))
        if session is None:
            raise SessionNotFound(f"no active session {session_id!r} here", param="session_id")
        return await self._ended(session, "ended by request")

    def _extracts(self, session: Session) -> bool:
        settings = self.settings
        return settings.extraction.enabled and session.turns >= settings.sessions.min_turns_for_extraction

    def _history_ended(self, session: Session) -> None:
        if self._history_turns is not None:
            self._history_turns.ended(session)

    async def _ended(self, session: Session, reason: str) -> Ended:
        if session.started_at <= self._forgotten_before(session.user, session.workspace):
            self.metrics.sessions_ended.labels("forgotten").inc()  # its owner forgot everything since it began
            return Ended(session, None, reason)
        self._history_ended(session)
        if not self._extracts(session):
            self.metrics.sessions_ended.labels("no_extraction").inc()
            return Ended(session, None, reason)
        try:  # what other replicas (or this one, before it let the session go) saw it take in
            shared = await self.memory.sessions.taint((session.user, session.workspace), session.id)
        except StoreUnavailable:
            self._keep(session)
            raise
        self.sessions.taint(session, shared)
        # The last answer the session kept is in its transcript: what its hops brought in counts.
        self.sessions.taint(session, tools_seen(session.conversation(), len(session.messages)))
        untrusted, sources = session.provenance.untrusted, session.provenance.sources
        # Milliseconds for a long session (redacting every message): off the event loop.
        transcript = await asyncio.to_thread(build_transcript, session.conversation(), proxy_tools=self.proxy_tools)
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
            api=session.api,
            started_at=session.started_at,
        )
        try:
            await self.jobs.put(job)
        except StoreUnavailable:
            self._keep(session)
            raise
        except UnstorableInput as exc:  # never storable, however often it is tried: ended without an episode
            self.metrics.sessions_ended.labels("unstorable").inc()
            log.error("session %s of %s ended without extraction: the store refused its job: %s", session.id,
                      session.user, exc.message)  # fmt: skip
            return Ended(session, None, reason)
        self.metrics.sessions_ended.labels("queued").inc()
        log.info("session %s of %s ended (%s): %d turns, job %s queued", session.id, session.user, reason,
                 session.turns, job.id)  # fmt: skip
        self._wake.set()
        try:
            await self._cap_pending(session.user)
        except StoreUnavailable as exc:  # the job is written: the cap waits for the next one
            log.warning("could not check %s's pending extraction jobs: %s", session.user, exc.message)
        return Ended(session, job, reason)

    async def _cap_pending(self, user: str) -> None:
        """Past ``extraction.max_pending_per_user`` jobs not done, drop the user's oldest (failed ones first)."""
        cap = self.settings.extraction.max_pending_per_user
        waiting = [job for job in await self.jobs.all() if job.user == user]
        if len(waiting) <= cap:
            return
        waiting.sort(key=lambda job: (job.state != "failed", job.created_at, job.id))
        for job in waiting[: len(waiting) - cap]:
            await self.jobs.done(job.id)
            self.metrics.extraction_dropped.inc()
            log.warning("extraction job %s (session %s of %s, %s) dropped: more than %d jobs waiting for this user "
                        "(extraction.max_pending_per_user)", job.id, job.session_id, user, job.state, cap)  # fmt: skip

    def _keep(self, session: Session) -> None:
        """Back among the live sessions, its job not written: unless its user forgot everything meanwhile."""
        if self._forgotten_before(session.user, session.workspace) < session.last_seen:
            self.sessions.restore(session)

    async def _end_all(self, sessions: list[Session], reason: str) -> int:
        """End sessions in turn; returns how many were kept because their jobs could not be written.

        The first job that cannot be written keeps the rest too: the store is failing, and trying each would
        only build their transcripts to fail the same way (and fill the log).
        """
        for number, session in enumerate(sessions):
            try:
                await self._ended(session, reason)
            except StoreUnavailable as exc:
                for later in sessions[number + 1 :]:
                    self._keep(later)
                kept = len(sessions) - number
                log.warning("could not queue extraction for %d sessions (%s), kept for later: %s", kept, reason,
                            exc.message)  # fmt: skip
                return kept
            except Exception:  # noqa: BLE001 - one session's failure must not stop the others
                log.exception("could not queue extraction for session %s", session.id)
        return 0

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
            await self._end_all(self.sessions.idle(time.time(), timeout), "idle")

    # -- the worker -------------------------------------------------------------------------------------------

    def wake(self) -> None:
        """Look at the queue now, not at the next poll: a job was put there by another hand (a tool, a test)."""
        self._wake.set()

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
        # Those waiting for a request of their user to bring a key are not due.
        waiting = (job.next_at for job in pending if self._job_key(job) not in self._want_key)
        return min(waiting, default=None)

    async def run_due(self) -> int:
        """Run every job that is due now, keys in turn; returns how many ran to completion.

        Each round runs one due job per memproxy key (keys by their oldest job): a person's own, or a service key's
        end users taking turns among themselves, each its oldest. A backlog holds a newcomer's job back by one round
        at most, never by its whole queue, and a service key that names a hundred end users is still one key.
        """
        finished = 0
        tried: set[str] = set()  # each job once per call: one claimed elsewhere stays due meanwhile
        while True:
            due = [
                job
                for job in await self.jobs.due(time.time())
                if job.id not in tried and self._job_key(job) not in self._want_key  # those wait for their user's key
            ]
            if not due:
                return finished
            for job in self._one_per_key(due):
                tried.add(job.id)
                self._turns += 1
                self._served[job.user] = self._turns
                self._served.move_to_end(job.user)
                if len(self._served) > MAX_KEYS:
                    self._served.popitem(last=False)
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
                answer = await self.extractor.extract(extraction_messages(job.transcript), **self._extract_kwargs(job))
                extracted = parse_extraction(answer.text)
            except ExtractionFailed as exc:
                if exc.keyless and exc.upstream_status in (401, 403):
                    # After a restart the user's key is not known yet: wait for it without using up attempts.
                    self._want_key.add(self._job_key(job))
                    log.info("extraction job %s waits for a request from its user to bring their key", job.id)
                    return False
                return await self._retry(job, exc)
            except (ProxyError, MalformedExtraction) as exc:
                return await self._retry(job, exc)
            self.metrics.extraction_tokens.labels("prompt").inc(answer.prompt_tokens)
            self.metrics.extraction_tokens.labels("completion").inc(answer.completion_tokens)
            episode = self._episode(job, extracted.summary, extracted.facts, answer.model)
            await self.store.put(owner, episode)
        with contextlib.suppress(StoreUnavailable):
            await self.forgetting.refresh()  # a forget-all on another replica while it ran
        if job.started_at <= self._forgotten_before(job.user, job.workspace):
            await self.store.delete(owner, episode.id)  # forgotten while it ran: keep nothing
            await self.jobs.done(job.id)
            return False
        if episode.provenance.replayable:
            await self._remember(episode, judge=self._judge(job), since=job.created_at)
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
            if finding is None or not finding.certain:  # a suspect fact is stored held for review (records.check_draft)
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

    async def _remember(self, episode: Episode, *, judge: Judge | None = None, since: float | None = None) -> None:
        """Replayable facts become memories through the one write path: scan, then merge, supersede or add.

        They carry the episode's provenance: an approved episode's facts are approved too (and say where they
        came from), so they are injected and searched like any trusted memory. ``judge`` settles the middle
        similarity band (the job's own model; an approval, on a person's request, goes without and keeps both).
        ``since``: the job's start; a forget-all after it stops the remaining facts (judging them takes a while).
        """
        caller = Identity(episode.user, episode.workspace)
        for fact in episode.facts:
            if since is not None and since <= self._forgotten_before(episode.user, episode.workspace):
                return
            try:
                stored = await self.memory.add(
                    caller,
                    {"text": fact, "source": "extracted"},
                    origin="extraction",
                    session=episode.session_id,
                    provenance=episode.provenance,
                    judge=judge,
                    actor=Actor.extraction(episode.id, episode.session_id),
                )
            except _Forgotten:
                return
            except MemoryRejected as exc:
                self.metrics.extraction_facts.labels("rejected").inc()
                log.warning("episode %s: a fact was not stored: %s", episode.id, exc.message)
                continue
            outcome = "merged" if stored.unchanged else "superseded" if stored.superseded else "stored"
            self.metrics.extraction_facts.labels(outcome).inc()

    def _judge(self, job: Job) -> Judge:
        """Asks the job's extraction model whether a fact is the same as, updates or differs from a memory.

        Any failure (the call, or an answer that is not the verdict asked for) is ``different``: both are kept,
        and the job goes on; its episode is written already, and a lost judgement only costs a near-duplicate.
        """

        async def judge(fact: str, memory: Memory) -> Verdict:
            try:
                messages = judgement_messages(fact, memory.text)
                answer = await self.extractor.extract(messages, **self._extract_kwargs(job))
            except Exception as exc:  # noqa: BLE001 - the safe fallback, whatever went wrong
                answer = None
                self.metrics.extraction_judgements.labels("failed").inc()
                log.warning("extraction job %s: judging a fact against %s failed, both kept: %s", job.id, memory.id,
                            getattr(exc, "message", None) or type(exc).__name__)  # fmt: skip
            if job.started_at <= self._forgotten_before(job.user, job.workspace):
                raise _Forgotten  # while the model thought: the fact must not be written now
            if answer is None:
                return "different"
            self.metrics.extraction_tokens.labels("prompt").inc(answer.prompt_tokens)
            self.metrics.extraction_tokens.labels("completion").inc(answer.completion_tokens)
            verdict = parse_verdict(answer.text)
            self.metrics.extraction_judgements.labels(verdict or "unreadable").inc()
            if verdict is None:
                log.warning("extraction job %s: the judgement of a fact against %s was unreadable, both kept",
                            job.id, memory.id)  # fmt: skip
            return verdict or "different"

        return judge

    # -- management ---------------------------------------------------------------------------------------

    async def of(self, caller: Identity) -> tuple[list[Episode], list[Job]]:
        """The caller's episodes (untrusted ones too: this is the audit view) and their jobs not yet done."""
        episodes = list(await self.store.view(Owner(caller.user, caller.workspace)))
        jobs = [j for j in await self.jobs.all() if j.user == caller.user and j.workspace == caller.workspace]
        return episodes, jobs

    async def held(self, caller: Identity) -> list[Episode]:
        """The caller's episodes waiting for a person's approval (untrusted, not approved), newest first."""
        owner = Owner(caller.user, caller.workspace)
        index = self.store.cached(owner) or await self.store.view(owner)
        return sorted((e for e in index if e.provenance.held), key=lambda e: (e.created_at, e.id), reverse=True)

    async def episode(self, caller: Identity, ident: str) -> Episode | None:
        """One of the caller's episodes (this workspace's), held or not; None when it is not theirs."""
        return (await self.store.view(Owner(caller.user, caller.workspace))).get(ident)

    async def forget(self, caller: Identity) -> dict[str, int]:
        """Everything of the caller's in this workspace: live sessions, pending and failed jobs, episodes, history.

        A job already running when this is called finds its owner forgotten and keeps nothing.
        """
        owner = (caller.user, caller.workspace)
        sessions = len(self.sessions.of(caller.user, caller.workspace))
        if self.history is not None:
            await self.history.flush()  # what this process queued is written, then deleted: the count says all
        # First, in the store: every process drops what it holds of the owner (this one at once), and whatever is
        # written after this (another replica's queued history, a job it was running) keeps nothing said before.
        await self.forgetting.mark(caller.user, caller.workspace)
        history = 0
        if self.history is not None:
            history = await self.history.forget(caller)  # waits for a write of theirs in flight
        jobs = 0
        for job in await self.jobs.all():
            if (job.user, job.workspace) == owner:
                await self.jobs.done(job.id)
                jobs += 1
        episodes = 0
        store_owner = Owner(caller.user, caller.workspace)
        for episode in list(await self.store.view(store_owner)):
            episodes += await self.store.delete(store_owner, episode.id)
        return {"sessions": sessions, "jobs": jobs, "episodes": episodes, "history": history}

    async def forget_preview(self, caller: Identity) -> dict[str, int]:
        """What :meth:`forget` would delete now, counted the same way (queued history written first)."""
        owner = Owner(caller.user, caller.workspace)
        jobs = sum(1 for job in await self.jobs.all() if (job.user, job.workspace) == (caller.user, caller.workspace))
        return {
            "sessions": len(self.sessions.of(caller.user, caller.workspace)),
            "jobs": jobs,
            "episodes": len(await self.store.view(owner)),
            "history": await self.history.count(caller) if self.history is not None else 0,
        }

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
        if self.history is not None:
            self.history.start()

    async def aclose(self) -> None:
        """Stop the worker (a job it was running stays queued) and end every live session: their jobs are kept."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._ending, *self._sharing, return_exceptions=True)
        self._tasks = []
        await self.extractor.aclose()
        kept = await self._end_all(self.sessions.end_all(), "shutdown")
        if kept:
            log.error("%d sessions could not be queued for extraction at shutdown: their episodes are lost", kept)
        if self.history is not None:  # after the sessions ended: their last answers are queued
            await self.history.aclose()
        await self.jobs.aclose()


def _log_failure(task: asyncio.Task[Any]) -> None:
    if task.cancelled() or task.exception() is None:
        return
    exc = task.exception()
    if isinstance(exc, StoreUnavailable):  # the session was kept: it ends again later
        log.warning("could not queue extraction for a session, kept for later: %s", exc.message)
    else:
        log.error("could not queue extraction for a session", exc_info=exc)
