"""History's way in and out: what requests said, queued in memory and written in the background; searches;
export, forget-all and retention.

A request pays for an append to an in-memory queue and nothing more: the rendering (redaction of every new
message) and the durable write happen in one background task, which gathers what comes in for ``LINGER_S`` and
writes it as one batch: one thread hop and one fsync a second, not one per request (per request they cost a
busy proxy about a fifth of its CPU). Rendering runs on the event loop in slices, the file work in a thread.
History is acknowledged to nobody, so it is best-effort across a ``kill -9``: what was queued and not yet
written (up to the last second's lines) is lost, while a graceful shutdown writes everything. A search, an
export or a forget first writes what is queued, so the model finds what was said a moment ago. Lines older than
``history.retention_days`` are never shown and are pruned in the background (at start and then hourly).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

from ..config import HistorySettings
from ..errors import ProxyError, UnstorableInput
from ..metrics import Metrics
from .caller import Identity
from .history import Found, HistoryLine, HistoryStore, SessionSummary, retention_cutoff
from .store import Owner

log = logging.getLogger("proxy.memory.history")

PRUNE_EVERY_S = 3600.0
LINGER_S = 1.0  # what is queued is written this long after the first of it arrived
RENDER_SLICE_S = 0.0005  # rendering yields to requests this often
RETRY_S = 1.0  # a failed write is tried again after this long
MAX_QUEUED = 10_000  # batches waiting; past it the oldest is dropped (the store has been failing for a while)
SEARCH_DEFAULT = 5  # results of a history search by default
SEARCH_MAX = 50

Render = Callable[[], Sequence[HistoryLine]]  # called by the writer on the event loop, in the order queued


@dataclass(frozen=True, slots=True)
class _Queued:
    owner: Owner
    render: Render


class HistoryService:
    def __init__(self, store: HistoryStore, settings: HistorySettings, metrics: Metrics | None = None) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics or Metrics()
        self._queue: deque[_Queued] = deque()
        self._wake = asyncio.Event()
        self._writing = asyncio.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        # When each owner last forgot everything (proxy.memory.forgetting): lines said before it are never written.
        self.forgotten_before: Callable[[Owner], float] | None = None
        # Characters written per owner since their history was last held to its quota (checked every tenth of it).
        self._unchecked: dict[Owner, int] = {}

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    # -- the request path ---------------------------------------------------------------------------------------

    def note(self, owner: Owner, render: Render) -> None:
        """Queue what ``render`` makes (a session's new lines) for the owner's history; no I/O, no rendering here."""
        if not self.settings.enabled:
            return
        self._queue.append(_Queued(owner, render))
        if len(self._queue) > MAX_QUEUED:
            self._queue.popleft()
            self.metrics.history_lines.labels("dropped").inc()
            log.warning("history: more than %d batches waiting to be written; dropped the oldest", MAX_QUEUED)
        self._wake.set()

    # -- writing ------------------------------------------------------------------------------------------------

    async def flush(self) -> None:
        """Write everything queued so far; a batch the store refused is queued again (and retried later)."""
        async with self._writing:
            failed: list[_Queued] = []
            batch = list(self._queue)  # what came in while this writes waits for the next batch
            self._queue.clear()
            rendered = await _render(batch)
            for owner, lines in rendered.items():
                if self.forgotten_before is not None:
                    before = self.forgotten_before(owner)
                    lines = [line for line in lines if line.ts >= before] if before else lines
                    if not lines:
                        continue
                try:
                    kept = await self.store.append(owner, lines)
                except UnstorableInput:
                    await self._one_by_one(owner, lines)
                    continue
                except ProxyError as exc:
                    log.warning("history: could not write %d lines of %s: %s", len(lines), owner.label,
                                exc.message)  # fmt: skip
                    failed.append(_Queued(owner, _already(lines)))
                    continue
                self.metrics.history_lines.labels("kept").inc(kept)
                self.metrics.history_lines.labels("repeated").inc(len(lines) - kept)
                await self._hold_to_quota(owner, sum(len(line.text) for line in lines))
            if failed:
                self._queue.extendleft(reversed(failed))
                asyncio.get_running_loop().call_later(RETRY_S, self._wake.set)

    async def _hold_to_quota(self, owner: Owner, written: int) -> None:
        """Past ``history.max_chars_per_owner`` the owner's oldest lines go. Looked at once a tenth of the quota has
        been written since the last look (and on the first write after a start), so history is read rarely."""
        quota = self.settings.max_chars_per_owner
        unchecked = self._unchecked.get(owner, quota) + written
        if unchecked < quota // 10:
            self._unchecked[owner] = unchecked
            return
        self._unchecked[owner] = 0
        if len(self._unchecked) > MAX_QUEUED:
            self._unchecked.clear()
        try:
            trimmed = await self.store.trim(owner, quota)
        except ProxyError as exc:
            log.warning("history: could not hold %s to its quota: %s", owner.label, exc.message)
            return
        if trimmed:
            self.metrics.history_lines.labels("trimmed").inc(trimmed)
            log.info("history: %s is past its quota of %d characters: its %d oldest lines went", owner.label, quota,
                     trimmed)  # fmt: skip

    async def _one_by_one(self, owner: Owner, lines: Sequence[HistoryLine]) -> None:
        """A batch the store refused for what is in it: each line on its own, so one it can never hold (dropped,
        and counted) does not keep the lines behind it out. A store that fails meanwhile keeps the rest queued."""
        for number, line in enumerate(lines):
            try:
                kept = await self.store.append(owner, [line])
            except UnstorableInput as exc:
                self.metrics.history_lines.labels("dropped").inc()
                log.warning("history: a line of %s was dropped, the store refused it: %s", owner.label, exc.message)
            except ProxyError:
                self._queue.appendleft(_Queued(owner, _already(lines[number:])))
                asyncio.get_running_loop().call_later(RETRY_S, self._wake.set)
                return
            else:
                self.metrics.history_lines.labels("kept").inc(kept)
                self.metrics.history_lines.labels("repeated").inc(1 - kept)

    async def _write_loop(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(LINGER_S)  # let the batch gather
            self._wake.clear()
            try:
                await self.flush()
            except Exception:  # noqa: BLE001 - the writer outlives any one failure
                log.exception("history: writing failed")

    async def prune(self, now: float | None = None) -> int:
        """Remove lines past ``history.retention_days``; returns how many went."""
        before = retention_cutoff(time.time() if now is None else now, self.settings.retention_days)
        gone = await self.store.prune(before)
        if gone:
            log.info("history: pruned %d lines older than %g days", gone, self.settings.retention_days)
        return gone

    async def _prune_loop(self) -> None:
        while True:
            try:
                await self.prune()
            except Exception:  # noqa: BLE001 - retention tries again next round
                log.warning("history: pruning failed", exc_info=True)
            await asyncio.sleep(PRUNE_EVERY_S)

    # -- reading ------------------------------------------------------------------------------------------------

    async def search(
        self, caller: Identity, query: str, *, limit: int, person: bool, session: str | None = None
    ) -> list[Found]:
        """The caller's history lines best matching ``query``, with snippets.

        ``person``: a person asks (the API), who sees sessions that took in untrusted content too; the model does
        not (its search could otherwise replay an attacker's words as the user's). ``session``: the model's own
        session, whose newest turn (the question it is answering) is left out.
        """
        await self.flush()
        index = await self.store.view(Owner(caller.user, caller.workspace))
        since = retention_cutoff(time.time(), self.settings.retention_days)
        return await asyncio.to_thread(
            partial(index.search, query, limit=limit, since=since, untrusted=person, current=session)
        )

    async def export(self, caller: Identity) -> list[HistoryLine]:
        """The caller's history in this workspace within retention, oldest first."""
        await self.flush()
        index = await self.store.view(Owner(caller.user, caller.workspace))
        since = retention_cutoff(time.time(), self.settings.retention_days)
        return [line for line in list(index.lines) if line.ts >= since]

    async def count(self, caller: Identity) -> int:
        """How many lines of the caller's in this workspace ``forget`` would remove now, queued ones written first."""
        await self.flush()
        return await self.store.count(Owner(caller.user, caller.workspace))

    async def sessions(self, caller: Identity) -> list[SessionSummary]:
        """The caller's sessions in this workspace that history holds lines of within retention (their summaries
        count only those lines from the last prune on)."""
        await self.flush()
        index = await self.store.view(Owner(caller.user, caller.workspace))
        since = retention_cutoff(time.time(), self.settings.retention_days)
        return [summary for summary in await asyncio.to_thread(index.sessions) if summary.last >= since]

    async def session_lines(self, caller: Identity, session: str) -> list[HistoryLine]:
        """What one of the caller's sessions in this workspace said, as history keeps it (redacted), within retention,
        in the order it was said: a person's view (``GET /memory/sessions/{id}``, the console, the review's
        evidence), a session that took in untrusted content too, its lines marked so."""
        return (await self.lines_of(caller, [session]))[session]

    async def lines_of(self, caller: Identity, sessions: Iterable[str]) -> dict[str, list[HistoryLine]]:
        """:meth:`session_lines` of several sessions, from one look at the store (a review page cites many)."""
        await self.flush()
        index = await self.store.view(Owner(caller.user, caller.workspace))
        since = retention_cutoff(time.time(), self.settings.retention_days)
        wanted = list(dict.fromkeys(sessions))

        def read() -> dict[str, list[HistoryLine]]:
            return {s: [line for line in index.session_lines(s) if line.ts >= since] for s in wanted}

        return await asyncio.to_thread(read)

    def drop_queued(self, owner: Owner) -> None:
        """Forget what is queued for ``owner`` and not written yet (a forget-all, here or on another replica)."""
        self._queue = deque(q for q in self._queue if q.owner != owner)

    async def forget(self, caller: Identity) -> int:
        """All of the caller's history in this workspace, queued lines included; returns how many lines went."""
        owner = Owner(caller.user, caller.workspace)
        await self.flush()  # what is queued is stored first (a re-sent line once), so the count says what was said
        async with self._writing:  # no write of theirs runs meanwhile, and none queued survives
            self._queue = deque(q for q in self._queue if q.owner != owner)
            return await self.store.forget(owner)

    # -- lifetime -----------------------------------------------------------------------------------------------

    def start(self) -> None:
        self._tasks = [asyncio.ensure_future(self._write_loop()), asyncio.ensure_future(self._prune_loop())]

    async def aclose(self) -> None:
        """Write what is queued, then stop."""
        async with self._writing:  # a write under way finishes: cancelled, its batch would be lost
            for task in self._tasks:
                task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        with contextlib.suppress(Exception):
            await self.flush()
        if self._queue:
            log.error("history: %d batches could not be written at shutdown", len(self._queue))
        await self.store.aclose()


async def _render(batch: list[_Queued]) -> dict[Owner, list[HistoryLine]]:
    """Every batch's lines, in order, per owner (one write each).

    On the event loop, a slice at a time: in a thread, this Python work would hold the GIL against the loop, and
    the loop waits up to the interpreter's switch interval (5 ms) for it back after every system call it makes.
    """
    lines: dict[Owner, list[HistoryLine]] = {}
    slice_ends = time.perf_counter() + RENDER_SLICE_S
    for queued in batch:
        try:
            made = queued.render()
        except Exception:  # noqa: BLE001 - one odd conversation must not lose the others' lines
            log.exception("history: could not render a session's lines")
            continue
        if made:
            lines.setdefault(queued.owner, []).extend(made)
        if time.perf_counter() >= slice_ends:
            await asyncio.sleep(0)  # requests go on between slices
            slice_ends = time.perf_counter() + RENDER_SLICE_S
    return lines


def _already(lines: Sequence[HistoryLine]) -> Render:
    return lambda: lines
