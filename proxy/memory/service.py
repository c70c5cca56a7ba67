"""Every way in to memory, with the rules that hold on all of them.

The chat pipeline, the management API and the CLI call this, never a store directly, so validation,
the secret scan, scopes, isolation and the admin rule for global memories are decided here once.
Chat requests fail open: a store that errors or is slower than ``memory.store_deadline_ms`` costs the
request its memory, never the request itself.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import orjson

from ..client_json import check_depth
from ..config import MemorySettings
from ..errors import (
    AdminOnly,
    InvalidRequest,
    MemoryNotFound,
    MemoryRejected,
    NotHeld,
    PinRefused,
    ProxyError,
    StoreUnavailable,
    UntrustedSession,
    VersionNotFound,
)
from ..metrics import Metrics
from .block import Placement, message_text, newest_user_message
from .browse import Filters, Page, browse, find, superseded_by
from .caller import Identity
from .census import Held
from .details import Detail, DetailStore
from .episodes import Episode, EpisodeIndex, EpisodeStore
from .given import Given
from .memory_files import MemoryFileStore
from .merging import Judge, band, protects, settle
from .pins import NO_PINS, PinCap, Pinned, cap_for, check_pin, fit, same_text
from .provenance import TRUSTED, Provenance
from .ranking import MemoryIndex, Query, Semantic
from .recall import Recall, Recalled
from .recall_state import given_of
from .records import Embedding, Memory, MemoryDraft, check_draft
from .revisions import Revision, check_expected
from .session_state import InProcessSessionState, SessionState
from .similarity import Similarity, embedded, lexical
from .store import GLOBAL, MemoryStore, Owner, owner_for_scope, owners_visible_to
from .versions import Actor, Version

if TYPE_CHECKING:  # numpy and the model load only when memory.embeddings.model is set
    from .embeddings import Embeddings

log = logging.getLogger("proxy.memory")

SEARCH_LIMIT = 20
MAX_SEARCH_LIMIT = 100
USES_FLUSH_S = 1.0
MAX_FORESEEN = 1000  # facts whose outcome is remembered per owner index
HISTORY_LINE = b'{"kind":"history"'  # how an export's history lines start (HistoryLine.to_json); import skips them
FILE_LINE = b'{"kind":"file"'  # how an export's memory files start (FileService.export): imported by FileService


@dataclass(frozen=True, slots=True)
class Prepared:
    """Where a request's memory goes, and the response headers that say what memory did."""

    placement: Placement = field(default_factory=Placement)
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    shared: SessionShare | None = None  # what the request changed of its session, on its way to the other replicas


class SessionShare:
    """What a request changed of its session's state (a block chosen, a note added), written for the other replicas
    while the upstream works on the request. Its answer waits for it (:meth:`wait`), so the session's next request
    finds it wherever it lands. Written before the upstream call, it held every new conversation's request back by
    a database round trip."""

    __slots__ = ("_write", "_running", "_task")

    def __init__(self, write: Callable[[], Coroutine[Any, Any, None]], running: set[asyncio.Task[None]]) -> None:
        self._write = write
        self._running = running  # the service's: shutdown waits for a write under way
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            task = self._task = asyncio.ensure_future(self._write())
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def wait(self) -> None:
        """Until it is written (or failed: that costs sharing, not the answer). A waiter cancelled, it goes on."""
        self.start()
        assert self._task is not None
        await asyncio.shield(self._task)


@dataclass(frozen=True, slots=True)
class Stored:
    memory: Memory
    superseded: Memory | None = None  # the near-duplicate it replaced
    unchanged: bool = False  # the same memory was there already (a retried store): nothing written


@dataclass(frozen=True, slots=True)
class Inspected:
    memory: Memory
    supersedes: list[Memory]  # the memories it replaced, newest first


@dataclass(frozen=True, slots=True)
class PinnedPlace:
    """One place's pinned facts (the user's profile, the workspace's environment) and its cap."""

    scope: str
    cap: PinCap
    memories: list[Memory]

    def to_json(self) -> dict[str, Any]:
        return {
            "cap": self.cap.chars,
            "setting": self.cap.setting,
            "chars": sum(len(m.text) for m in self.memories),
            "memories": [m.to_json() for m in self.memories],
        }


@dataclass(frozen=True, slots=True)
class Foreseen:
    """What storing a text as an extracted fact would do now, as approving its episode writes it (a dry run)."""

    action: str  # add | supersede | merge (the memory says it already: nothing written) | rejected (the scanner)
    memory: Memory | None = None  # the live memory it would supersede, or merge into
    similarity: float | None = None  # to the live memory most like it, in [0, 1]; None: none shares a word


@dataclass(slots=True)
class ImportReport:
    imported: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # lines already there (same text, place, category): their ids


def _indexed_terms(views: Sequence[MemoryIndex], memory: Memory) -> set[str] | None:
    for view in views:
        found = view.indexed_terms(memory)
        if found is not None:
            return found
    return None


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        settings: MemorySettings,
        metrics: Metrics | None = None,
        *,
        tools: bool = False,
        episodes: EpisodeStore | None = None,
        sessions: SessionState | None = None,
        details: DetailStore | None = None,
        embeddings: Embeddings | None = None,
        similarity: Similarity | None = None,
        files: MemoryFileStore | None = None,
    ) -> None:
        self.store = store
        self.details = details  # offloaded tool outputs (context.offload_chars); None: none kept
        self.files = files  # the /memories directories of Anthropic's memory tool: forgotten with the memories
        self.embeddings = embeddings  # None: lexical ranking only
        # Merge on write decides by it (memory/similarity.py): the embeddings' cosine when they are on, else words.
        self.similarity = similarity or (embedded(embeddings) if embeddings is not None else lexical)
        self.sessions: SessionState = sessions or InProcessSessionState()  # blocks and notes shared by replicas
        self.episodes = episodes  # None: no episode summaries in blocks or search
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.recall = Recall(settings, tools=tools)
        self._uses: dict[Owner, dict[str, tuple[int, float]]] = {}  # use counts not written yet
        # Memories sessions were newly given, not counted yet: (user, workspace, when, memories)
        self._injections: list[tuple[str, str, float, list[Memory]]] = []
        self._flushing: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._pinning = asyncio.Lock()  # a pin's cap check and its write, one at a time (pins are rare)
        # What foresee found, per owner index and its version: the review queue asks again on every load
        self._foreseen: WeakKeyDictionary[MemoryIndex, tuple[int, dict[str, Foreseen]]] = WeakKeyDictionary()

    async def views(self, caller: Identity) -> list[MemoryIndex]:
        return [await self.store.view(owner) for owner in owners_visible_to(caller.user, caller.workspace)]

    async def current_views(self, caller: Identity) -> list[MemoryIndex]:
        """The caller's owners as the chat path reads them: from memory when each is known to be current (a write of
        any replica reaches this one's cache within milliseconds), else from the store. What a person browses."""
        return self._cached_views(caller) or await self.views(caller)

    def _cached_views(self, caller: Identity) -> list[MemoryIndex] | None:
        """The hot path: every owner current, nothing to wait for (and no deadline timer to set)."""
        views = []
        for owner in owners_visible_to(caller.user, caller.workspace):
            view = self.store.cached(owner)
            if view is None:
                return None
            views.append(view)
        return views

    # -- chat -----------------------------------------------------------------------------------------------

    async def _episode_index(self, caller: Identity, *, wait: bool) -> EpisodeIndex | None:
        if self.episodes is None:
            return None
        owner = Owner(caller.user, caller.workspace)
        index = self.episodes.cached(owner)
        return index if index is not None or not wait else await self.episodes.view(owner)

    async def prepare(
        self, caller: Identity | None, messages: Sequence[dict[str, Any]], session: str, *, tools: bool | None = None
    ) -> Prepared:
        """This session's memory for a request's messages; nothing when memory is off or failed.

        ``tools``: whether this request gets the memory tools, so the block says how to use them (None: whenever
        they are enabled)."""
        if self.settings.inject_mode == "off":
            self.metrics.recall_outcome["off"].inc()
            return Prepared()
        if caller is None:
            self.metrics.recall_outcome["no_identity"].inc()
            return Prepared()
        try:
            views = self._cached_views(caller)
            episodes = await self._episode_index(caller, wait=False)
            if views is None or (episodes is None and self.episodes is not None):
                async with asyncio.timeout(self.settings.store_deadline_ms / 1000):
                    views = views if views is not None else await self.views(caller)
                    episodes = await self._episode_index(caller, wait=True)
            key = (caller.user, caller.workspace, session)
            reading = None  # the shared copy of a session this replica holds none of, read while it chooses
            if self.sessions.shared and not (self.recall.has(key) and self.sessions.fresh(key)):
                if self.recall.has(key):  # a copy another replica changed since: the shared one first
                    async with asyncio.timeout(self.settings.store_deadline_ms / 1000):
                        await self._read_session(key)
                else:
                    reading = asyncio.ensure_future(self.sessions.get(key))
            try:
                if reading is not None:
                    await asyncio.sleep(0)  # its query goes out now, not once the choice is made
                semantic = None  # the newest message's meaning, asked for only when this request ranks
                newest = newest_user_message(messages)
                if self.embeddings is not None and newest is not None and self.recall.ranks(key, messages, views):
                    semantic = await self._semantic(caller, views, message_text(messages[newest]))
                choose = partial(
                    self.recall,
                    key,
                    messages,
                    views,
                    now=time.time(),
                    visible=lambda m: not m.pinned and (m.scope != "session" or m.session == session),
                    episodes=episodes,
                    tools=tools,
                    semantic=semantic,
                    pinned=self._pins(views),
                )
                recalled: Recalled = choose()  # as if nothing were stored: most sessions new here are new anywhere
                if reading is not None:
                    async with asyncio.timeout(self.settings.store_deadline_ms / 1000):
                        state = await reading
                    if state is not None:  # another replica chose this session's block first: that one it is
                        self._adopt(key, state)
                        recalled = choose()
            finally:
                if reading is not None and not reading.done():
                    reading.cancel()
                elif reading is not None and not reading.cancelled():
                    reading.exception()  # taken: a failure after the choice is the one to report
        except Exception as exc:  # noqa: BLE001 - fail open: whatever broke, the request goes on without memory
            reason = "timeout" if isinstance(exc, TimeoutError) else "error"
            if isinstance(exc, TimeoutError | StoreUnavailable):
                log.warning("memory store %s; request sent without memory: %s", reason, exc or type(exc).__name__)
            else:
                log.exception("memory failed; request sent without memory")
            self.metrics.recall_outcome["fail_open"].inc()
            self.metrics.fail_open.labels(reason).inc()
            return Prepared(headers=[(b"x-memproxy-memory", b"unavailable")])
        shared = self._share(key, views)
        if not recalled.ids:
            self.metrics.recall_outcome["nothing"].inc()
            return Prepared(recalled.placement, [], shared)
        self.metrics.recall_outcome["injected"].inc()
        self.metrics.injected.inc(len(recalled.ids))
        headers = [(b"x-memproxy-injected", ",".join(recalled.ids).encode())]
        if recalled.pinned:
            headers.append((b"x-memproxy-pinned", str(recalled.pinned).encode()))
        return Prepared(recalled.placement, headers, shared)

    async def preview_block(self, caller: Identity, query: str = "", *, tools: bool = True) -> str | None:
        """The block a new session of the caller's would open with now, for a first message saying ``query`` (blank:
        nothing in particular, so the newest memories), as chat requests get it; None when nothing qualifies. Chosen
        apart from every session: no session's block, note or count changes."""
        if self.settings.inject_mode == "off":
            return None
        views = await self.views(caller)
        episodes = await self._episode_index(caller, wait=True)
        recalled = Recall(self.settings, tools=tools)(
            ("", "", ""),
            [{"role": "user", "content": query}],
            views,
            now=time.time(),
            visible=lambda m: not m.pinned and m.scope != "session",
            episodes=episodes,
            pinned=self._pins(views),
        )
        return recalled.placement.block

    def _pins(self, views: Sequence[MemoryIndex]) -> Pinned:
        """What a block chosen now opens with: the user's profile and the workspace's environment, within their caps
        (``views`` in :func:`owners_visible_to`'s order)."""
        environment, profile = views[0], views[1]
        pins = Pinned(
            fit(profile.pinned(), self.settings.pinned_user_chars),
            fit(environment.pinned(), self.settings.pinned_env_chars),
        )
        return NO_PINS if pins.empty else pins  # the shared one: sessions keep it, and most have no pins

    async def _semantic(self, caller: Identity, views: Sequence[MemoryIndex], text: str) -> Semantic | None:
        """With embeddings on: the query's vector, bound to the owners' memory vectors (and any owner's memories
        written before embeddings were on get embedded in the background)."""
        if self.embeddings is None or not text:
            return None
        for owner, view in zip(owners_visible_to(caller.user, caller.workspace), views, strict=True):
            self.embeddings.backfill(self.store, owner, view)
        vector = await self.embeddings.query(text)
        return None if vector is None else self.embeddings.bind(vector)

    async def _embedded(self, drafts: Sequence[MemoryDraft]) -> list[MemoryDraft]:
        """Drafts with their embeddings, computed before the write; without them if the model fails (they are
        embedded in the background later)."""
        if self.embeddings is None or not drafts:
            return list(drafts)
        try:
            embedded = await self.embeddings.embed([draft.text for draft in drafts])
        except Exception:  # noqa: BLE001 - the memory matters more than its vector
            log.warning("could not embed %d memories before writing them", len(drafts), exc_info=True)
            return list(drafts)
        return [replace(draft, embedding=e) for draft, e in zip(drafts, embedded, strict=True)]

    async def _read_session(self, key: tuple[str, ...]) -> None:
        """Another replica changed the session this one holds a copy of: take the shared one."""
        state = await self.sessions.get(key)
        if state is not None:
            self._adopt(key, state)
        else:  # expired, or forgotten on another replica: chosen afresh
            self.recall.forget_session(key)

    def _adopt(self, key: tuple[str, ...], state: dict[str, Any]) -> None:
        self.recall.adopt(key, state)
        if not self.sessions.fresh(key):  # half its lifetime gone: written again
            self.recall.mark_changed(key)

    def _share(self, key: tuple[str, ...], views: Sequence[MemoryIndex]) -> SessionShare | None:
        """What the request changed, as it is now, to write for the other replicas; None when nothing is shared.

        A new block or note is also when its memories' injection counts are noted (written in the background)."""
        changed = self.recall.take_changed()
        if changed:
            self._count_injected(key)
        if not self.sessions.shared:
            return None
        indexed = partial(_indexed_terms, views)  # the request's views hold its block's memories' terms
        states = [(k, state) for k in changed if (state := self.recall.export(k, indexed)) is not None]
        return SessionShare(partial(self._write_sessions, states), self._tasks) if states else None

    async def _write_sessions(self, states: list[tuple[tuple[str, ...], dict[str, Any]]]) -> None:
        """A failure costs sharing, not memory: the request still carries its block."""
        try:
            async with asyncio.timeout(self.settings.store_deadline_ms / 1000):
                for key, state in states:
                    await self.sessions.put(key, state)
        except Exception as exc:  # noqa: BLE001 - the request still carries its block
            log.warning("session state not shared with other replicas: %s", exc or type(exc).__name__)

    async def given(self, caller: Identity, session: str) -> Given | None:
        """What one of the caller's sessions was given (block and notes, each entry with why), as far as this process
        knows: the shared copy when replicas share sessions' state (read as a request of the session would read
        it), else this process's own; None when neither holds the session (never chosen here, or long gone)."""
        key = (caller.user, caller.workspace, session)
        if self.sessions.shared and not (self.recall.has(key) and self.sessions.fresh(key)):
            if self.recall.has(key):  # a copy another replica changed since: taken, as its next request would
                await self._read_session(key)
            else:  # never adopted: read only, so a request of it here still chooses or reads it as it would
                state = await self.sessions.get(key)
                if state is not None:
                    try:
                        return given_of(state)
                    except (ValueError, KeyError, TypeError):
                        log.warning("session state of %s is unreadable", session)
                        return None
        return self.recall.given(key)

    # -- management -----------------------------------------------------------------------------------------

    async def add(
        self,
        caller: Identity,
        fields: Mapping[str, Any],
        *,
        origin: str,
        session: str | None = None,
        provenance: Provenance = TRUSTED,
        judge: Judge | None = None,
        actor: Actor | None = None,
    ) -> Stored:
        """Validate, scan and store one memory; :class:`MemoryRejected` stores nothing.

        ``actor``: who writes it (its ``created`` version, and the ``superseded`` one of a memory it replaces);
        None: the writer ``origin`` stands for, with the caller's key and the session.

        Supersede instead of duplicate, by the similarity bands (:mod:`proxy.memory.merging`): a memory
        in the same place at or above ``memory.merge_threshold`` is superseded by a new wording and left as it
        is by the very same one (a client retrying a request); below it the new memory is added, except that
        between ``memory.add_threshold`` and it, ``judge`` (the extraction job's model, never a request's) is
        asked whether the new one is the same, an update or different. An extracted fact never supersedes a
        stated memory. A held write (``provenance`` of an untrusted session) replaces nothing: it is stored
        beside whatever it resembles, for a person to approve.
        """
        try:
            draft = check_draft(fields, session=session or caller.session, origin=origin, provenance=provenance)
            owner = self._writable(caller, draft.scope, draft.session)
        except ProxyError:
            self.metrics.writes.labels("rejected").inc()
            raise
        draft = replace(draft, actor=actor or Actor.of_origin(origin, caller, session or caller.session))
        [draft] = await self._embedded([draft])
        if not draft.pinned:
            return await self._add(owner, draft, judge)
        async with self._pinning:
            try:
                return await self._add(owner, draft, judge)
            except PinRefused:
                self.metrics.writes.labels("rejected").inc()
                raise

    async def _add(self, owner: Owner, draft: MemoryDraft, judge: Judge | None) -> Stored:
        view = await self.store.view(owner)
        match = await self.similarity(draft.text, view, now=time.time())
        cap = cap_for(draft.scope, self.settings)
        if draft.provenance.held:
            if draft.pinned:  # refused now rather than at approval: a duplicate, or no room left
                check_pin(view.pinned(), draft.text, cap)
            same = [m for m in view.held() if _same_place(m, draft) and _same_memory(m, draft)]
            if match is not None and _same_place(match[0], draft) and _same_memory(match[0], draft):
                same.append(match[0])  # already there, word for word: nothing to hold, nothing changed
            if same:
                self.metrics.writes.labels("unchanged").inc()
                return Stored(same[0], unchanged=True)
            memory = await self.store.add(owner, draft, max_total=self.settings.max_total)
            self.metrics.writes.labels("held").inc()
            return Stored(memory)
        previous, found = None, "different"
        if match is not None and _same_place(match[0], draft):
            previous = match[0]
            found = band(match[1], add_threshold=self.settings.add_threshold,
                         merge_threshold=self.settings.merge_threshold)  # fmt: skip
        if draft.pinned and view.pinned():  # a pin near another pin replaces that one, whatever else is nearer
            near = view.closest(draft.text, now=time.time(), candidates=100, where=lambda m: m.pinned)
            if near is not None and near[1] >= self.settings.merge_threshold:
                previous, found = near[0], "same"
        if previous is not None and previous.pinned and not draft.pinned:
            # A pin is replaced by a pin or a person, never by a passing write: that is stored beside it.
            if _same_memory(previous, draft):
                self.metrics.writes.labels("unchanged").inc()
                return Stored(previous, unchanged=True)
            previous = None
        if draft.pinned:
            previous = previous if found == "same" else None  # a pin replaces only the same memory, never asks
            replacing = previous.id if previous is not None and previous.pinned else None
            if previous is not None and same_text(previous.text, draft.text):
                replacing = None  # the same pin again: a duplicate, refused
            check_pin(view.pinned(), draft.text, cap, replacing=replacing)
            if previous is not None and not previous.pinned and _same_memory(previous, draft):
                pin = Revision(previous.id, "pinned", draft.actor or Actor.person(), _pin)  # stored already: pinned
                for pinned in await self.store.revise(owner, [pin]):
                    self.metrics.writes.labels("stored").inc()
                    return Stored(pinned)
                previous = None  # deleted meanwhile: stored anew
        elif previous is not None:
            if _same_memory(previous, draft):
                self.metrics.writes.labels("unchanged").inc()
                return Stored(previous, unchanged=True)
            verdict = await judge(draft.text, previous) if found == "judge" and judge is not None else None
            protected = protects(previous, extracted=draft.origin == "extraction", source=draft.source,
                                 confidence=draft.confidence)  # fmt: skip
            action = settle(found, verdict, protected=protected)  # type: ignore[arg-type]
            if action == "merge":
                self.metrics.writes.labels("unchanged").inc()
                return Stored(previous, unchanged=True)
            if action == "add":
                previous = None
        supersedes = (previous.id,) if previous is not None else ()
        memory = await self.store.add(owner, draft, max_total=self.settings.max_total, supersedes=supersedes)
        self.metrics.writes.labels("stored").inc()
        return Stored(memory, previous)

    async def edit(
        self,
        caller: Identity,
        memory_id: str,
        fields: Mapping[str, Any],
        *,
        actor: Actor | None = None,
        expect: Collection[int] | None = None,
    ) -> Memory:
        """A person changes a memory in place (same id): its ``text``, ``tags``, ``category``, or ``pinned``.

        Checked and scanned like a new memory; a pin edited or made must fit its place's cap and duplicate no other
        pin. A frozen block keeps what it showed: the change shows from the session's next block. It is a new
        version (``edited``, or ``pinned``/``unpinned`` when only the pin changed) by ``actor`` (None: the caller
        through the API). ``expect``: the versions the editor saw (If-Match), checked in the store's write: a stale
        one is a :class:`VersionMismatch` and nothing changes. An edit that changes nothing makes no version.
        """
        unknown = sorted(set(fields) - {"text", "tags", "category", "pinned", "pin"})
        if unknown:
            raise InvalidRequest(
                f"only text, tags, category and pinned can be edited, not {', '.join(unknown)}", param=unknown[0]
            )
        for owner in owners_visible_to(caller.user, caller.workspace):
            memory = (await self.store.view(owner)).get(memory_id)
            if memory is None:
                continue
            if owner == GLOBAL and not caller.admin:
                raise AdminOnly("global memories can only be edited with the admin key (X-Memory-Admin-Key)")
            check_expected(memory, expect)  # early (the store checks again, in its write)
            if not memory.live:
                superseded = f"{memory_id} was superseded by {memory.superseded_by}; edit that one"
                raise InvalidRequest(superseded, param="id", code="superseded")
            merged: dict[str, Any] = {"text": memory.text, "tags": list(memory.tags), "category": memory.category}
            pinned = fields.get("pinned", fields.get("pin"))
            merged |= {"scope": memory.scope, "pinned": memory.pinned if pinned is None else pinned}
            merged |= {key: fields[key] for key in ("text", "tags", "category") if fields.get(key) is not None}
            try:
                draft = check_draft(merged, session=memory.session)
            except ProxyError:
                self.metrics.writes.labels("rejected").inc()
                raise
            embedding = memory.embedding
            if draft.text != memory.text:  # the old vector would rank the new words: embed them again
                [embedded] = await self._embedded([draft])
                embedding = embedded.embedding
            content = (draft.text, draft.tags, draft.category)
            change = "edited"
            if content == (memory.text, memory.tags, memory.category) and draft.pinned != memory.pinned:
                change = "pinned" if draft.pinned else "unpinned"
            edit = partial(_content_of, draft=draft, embedding=embedding)
            revision = Revision(memory_id, change, actor or Actor.person(caller), edit, expect)
            async with self._pinning:
                if draft.pinned and not memory.held:
                    view = await self.store.view(owner)
                    check_pin(view.pinned(), draft.text, cap_for(memory.scope, self.settings), replacing=memory_id)
                made = await self.store.revise(owner, [revision])
            if not made:
                break  # deleted meanwhile
            self.metrics.writes.labels("edited").inc()
            return made[0]
        raise MemoryNotFound(f"no memory {memory_id!r} here", param="id")

    async def versions(self, caller: Identity, memory_id: str) -> list[Version]:
        """A memory's versions, newest first (at most ``MAX_VERSIONS``), held or deleted ones' too: what a person
        reviews. A deleted memory's history ends with its ``deleted`` version while it can be restored."""
        _, history = await self._history(caller, memory_id)
        return [Version.of(memory) for memory in history]

    async def restore(
        self,
        caller: Identity,
        memory_id: str,
        version: int,
        *,
        actor: Actor | None = None,
        expect: Collection[int] | None = None,
    ) -> Memory:
        """Make ``version``'s text, tags, category and pin current again, as a new version (``restored``).

        Checked like an edit: scanned, and a pin must fit its cap. A deleted memory is brought back under its id (an
        undo). The version's ``superseded_by`` comes back with it, so restoring a version from before a supersede
        makes the memory live again. Provenance stays as it is now: a held memory stays held. ``expect`` as for
        :meth:`edit` (a deleted memory's current version is its ``deleted`` one).
        """
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidRequest("'version' must be a whole number from 1", param="version")
        owner, history = await self._history(caller, memory_id)
        if owner == GLOBAL and not caller.admin:
            raise AdminOnly("global memories can only be restored with the admin key (X-Memory-Admin-Key)")
        current = history[0]
        check_expected(current, expect)
        chosen = next((memory for memory in history if memory.version == version), None)
        if chosen is None:
            raise VersionNotFound(
                f"{memory_id} has no version {version}: its versions are {history[-1].version} to {current.version}",
                param="version",
            )
        fields: dict[str, Any] = {"text": chosen.text, "tags": list(chosen.tags), "category": chosen.category}
        fields |= {"scope": current.scope, "pinned": chosen.pinned}
        try:
            draft = check_draft(fields, session=current.session)
        except ProxyError:
            self.metrics.writes.labels("rejected").inc()
            raise
        [embedded] = [draft]
        if draft.text != current.text or current.change == "deleted":  # a tombstone keeps no vector
            [embedded] = await self._embedded([draft])
        link = chosen.superseded_by
        restore = partial(_content_of, draft=draft, embedding=embedded.embedding, relink=True, superseded_by=link)
        revision = Revision(memory_id, "restored", actor or Actor.person(caller), restore, expect)
        async with self._pinning:
            if draft.pinned and not current.held and chosen.superseded_by is None:
                view = await self.store.view(owner)
                check_pin(view.pinned(), draft.text, cap_for(current.scope, self.settings), replacing=memory_id)
            made = await self.store.revise(owner, [revision], max_total=self.settings.max_total)
        if not made:
            raise MemoryNotFound(f"{memory_id} went while it was being restored", param="id")
        self.metrics.writes.labels("restored").inc()
        return made[0]

    async def _history(self, caller: Identity, memory_id: str) -> tuple[Owner, list[Memory]]:
        """Whose the memory is among the caller's owners, and its versions; a deleted one's too."""
        owners = owners_visible_to(caller.user, caller.workspace)
        for owner in owners:
            if (await self.store.view(owner)).get(memory_id) is not None:
                history = await self.store.history(owner, memory_id)
                if history:
                    return owner, history
        for owner in owners:  # deleted, or just now
            history = await self.store.history(owner, memory_id)
            if history:
                return owner, history
        raise MemoryNotFound(f"no memory {memory_id!r} here", param="id")

    async def pinned(self, caller: Identity) -> list[PinnedPlace]:
        """The caller's pinned facts, all of them (a block shows those within the caps): profile, then environment."""
        views = await self.views(caller)
        return [
            PinnedPlace("user", cap_for("user", self.settings), list(views[1].pinned())),
            PinnedPlace("workspace", cap_for("workspace", self.settings), list(views[0].pinned())),
        ]

    async def delete(
        self,
        caller: Identity,
        memory_id: str,
        *,
        session: str | None = None,
        provenance: Provenance = TRUSTED,
        actor: Actor | None = None,
        expect: Collection[int] | None = None,
    ) -> Memory:
        """Delete a memory the caller can see; with ``session``, other sessions' session memories are not seen.

        A writer with held ``provenance`` (an untrusted session) may only delete held memories: what it read
        may be an attacker's, who must not be able to make the user's trusted memory go away. The delete is the
        memory's last version (``deleted``, by ``actor``; None: the caller through the API), kept so that
        :meth:`restore` can undo it; ``expect`` as for :meth:`edit`.
        """
        for owner in owners_visible_to(caller.user, caller.workspace):
            memory = (await self.store.view(owner)).get(memory_id)
            if memory is None or (session is not None and memory.scope == "session" and memory.session != session):
                continue
            if owner == GLOBAL and not caller.admin:
                raise AdminOnly("global memories can only be deleted with the admin key (X-Memory-Admin-Key)")
            if provenance.held and not memory.held:
                raise UntrustedSession(
                    f"{memory_id} was not deleted: this session took in untrusted content "
                    f"({', '.join(provenance.sources)}), so it may not delete trusted memories; "
                    "ask the user to delete it themselves",
                    param="id",
                )
            check_expected(memory, expect)
            by = actor or Actor.person(caller)
            expected = {memory_id: expect} if expect is not None else None
            if await self.store.delete(owner, [memory_id], actor=by, expect=expected):
                return memory
        raise MemoryNotFound(f"no memory {memory_id!r} here", param="id")

    async def search(
        self,
        caller: Identity,
        *,
        query: str | None = None,
        tag: str | None = None,
        category: str | None = None,
        limit: int = SEARCH_LIMIT,
        session: str | None = None,
        held: bool = False,
    ) -> list[Memory]:
        """Live memories the caller can see: by relevance with a query (or a plain substring hit), else newest first.

        With ``session``, session-scoped memories of other sessions are left out (what a model in that session sees).
        Held memories are never among them; ``held`` lists only those instead (newest first, a query matching
        as a substring), for a person to review.
        """
        limit = max(1, min(limit, MAX_SEARCH_LIMIT))
        views = await self.views(caller)

        def wanted(memory: Memory) -> bool:
            return (
                (tag is None or tag in memory.tags)
                and (category is None or memory.category == category)
                and (session is None or memory.scope != "session" or memory.session == session)
            )

        if held:
            waiting = [m for view in views for m in view.held() if wanted(m)]
            if query:
                waiting = [m for m in waiting if query.casefold() in m.text.casefold()]
            waiting.sort(key=lambda m: (m.created, m.number), reverse=True)
            return waiting[:limit]

        if not query:
            newest = [m for view in views for m in view.newest() if wanted(m)]
            newest.sort(key=lambda m: (m.created, m.number), reverse=True)
            return newest[:limit]
        now = time.time()
        ranking = Query.of(query, now)
        semantic = await self._semantic(caller, views, query)
        ranked = [s for view in views for s in view.rank(ranking, now=now, limit=MAX_SEARCH_LIMIT, semantic=semantic)]
        ranked.sort(key=lambda s: s.score, reverse=True)
        found = {s.memory.id: s.memory for s in ranked if wanted(s.memory)}
        needle = query.casefold()
        for view in views:
            for memory in view.newest():
                if needle in memory.text.casefold() and wanted(memory):
                    found.setdefault(memory.id, memory)
        return list(found.values())[:limit]

    async def browse(
        self, caller: Identity, query: str | None, filters: Filters, *, offset: int = 0, limit: int = SEARCH_LIMIT
    ) -> Page:
        """A person's page of the memories the caller can see (:mod:`proxy.memory.browse`): filtered, searched with
        the block's ranking (and the embeddings', when they are on), each result with its score and matched words."""
        views = await self.current_views(caller)
        semantic = await self._semantic(caller, views, query) if query and not filters.held else None
        return browse(views, query, filters, now=time.time(), offset=offset, limit=limit, semantic=semantic)

    async def inspect(self, caller: Identity, memory_id: str) -> Inspected:
        """One memory the caller can see, for a person: held and superseded ones too, with what it replaced."""
        views = await self.current_views(caller)
        memory = find(views, memory_id)
        if memory is None:
            raise MemoryNotFound(f"no memory {memory_id!r} here", param="id")
        return Inspected(memory, superseded_by(views, memory_id))

    async def search_episodes(self, caller: Identity, query: str, *, limit: int) -> list[Episode]:
        """Replayable episodes relevant to ``query``: untrusted ones stay out until approved."""
        index = await self._episode_index(caller, wait=True)
        return index.rank(query, limit=limit) if index is not None and query else []

    async def get(self, caller: Identity, memory_id: str, *, session: str | None = None, held: bool = False) -> Memory:
        """One memory the caller can see, superseded or not (its ``superseded_by`` says by what); a held one only
        with ``held`` (a person reviewing it), never for a model."""
        for view in await self.views(caller):
            memory = view.get(memory_id)
            if memory is not None and (session is None or memory.scope != "session" or memory.session == session):
                if memory.held and not held:
                    raise MemoryNotFound(f"{memory_id} is held until a person approves it", param="id")
                return memory
        raise MemoryNotFound(f"no memory {memory_id!r} here", param="id")

    async def detail(self, caller: Identity, detail_id: str) -> Detail:
        """One offloaded tool output of the caller's (user and workspace): never another's, whatever the id."""
        found = None
        if self.details is not None:
            found = await self.details.get(Owner(caller.user, caller.workspace), detail_id)
        if found is None:
            raise MemoryNotFound(f"no detail {detail_id!r} here", param="id")
        return found

    async def approve(self, caller: Identity, memory_id: str, *, actor: Actor | None = None) -> Stored:
        """A person vouches for a held memory: it may be injected and searched from now on.

        It keeps ``untrusted`` and ``sources`` (where it came from) and gains ``user_approved``. Approval does what
        the write would have done in a trusted session: a near-duplicate in the same place is superseded by it.
        Approving a memory that is not held changes nothing (``unchanged``). The approval is a version (``approved``)
        of the memory, and the supersede one of its near-duplicate, both by ``actor`` (None: the caller, API).
        """
        by = actor or Actor.person(caller)
        for owner in owners_visible_to(caller.user, caller.workspace):
            view = await self.store.view(owner)
            memory = view.get(memory_id)
            if memory is None:
                continue
            if owner == GLOBAL and not caller.admin:
                raise AdminOnly("global memories can only be approved with the admin key (X-Memory-Admin-Key)")
            if not memory.held:
                return Stored(memory, unchanged=True)
            async with self._pinning:
                view = await self.store.view(owner)
                match = await self.similarity(memory.text, view, now=time.time()) if memory.live else None
                previous = None
                if match is not None and match[1] >= self.settings.merge_threshold and _same_place(match[0], memory):
                    previous = match[0]
                if previous is not None and previous.pinned and not memory.pinned:
                    previous = None  # a pin is replaced by a pin or a person
                if memory.pinned and memory.live:  # the cap and duplicates hold for it as for any new pin
                    replacing = previous.id if previous is not None and previous.pinned else None
                    if previous is not None and same_text(previous.text, memory.text):
                        replacing = None
                    check_pin(view.pinned(), memory.text, cap_for(memory.scope, self.settings), replacing=replacing)
                revisions = [Revision(memory_id, "approved", by, _approve)]
                if previous is not None:
                    revisions.append(Revision(previous.id, "superseded", by, partial(_supersede, by=memory_id)))
                made = await self.store.revise(owner, revisions)
                if not made and previous is not None:  # the near-duplicate went meanwhile: approved alone
                    previous, made = None, await self.store.revise(owner, revisions[:1])
            if not made:
                break  # deleted meanwhile
            self.metrics.writes.labels("approved").inc()
            return Stored(made[0], previous)
        raise MemoryNotFound(f"no memory {memory_id!r} here", param="id")

    async def reject(self, caller: Identity, memory_id: str, *, actor: Actor | None = None) -> Memory:
        """A person turns a held memory down: it is deleted (its last version ``deleted``, by ``actor``; None: the
        caller through the API). One that is not held is refused (:class:`NotHeld`): a review rejects what waits
        for it, and deleting a trusted memory is ``delete``'s job."""
        for owner in owners_visible_to(caller.user, caller.workspace):
            memory = (await self.store.view(owner)).get(memory_id)
            if memory is None:
                continue
            if owner == GLOBAL and not caller.admin:
                raise AdminOnly("global memories can only be rejected with the admin key (X-Memory-Admin-Key)")
            if not memory.held:
                raise NotHeld(f"{memory_id} is not held for review; DELETE /memory/memories/{memory_id} deletes it")
            if await self.store.delete(owner, [memory_id], actor=actor or Actor.person(caller)):
                return memory
        raise MemoryNotFound(f"no memory {memory_id!r} here", param="id")

    async def held_count(self, caller: Identity) -> Held:
        """How many of the caller's memories and episodes wait for their review (what their review queue holds):
        cheap, from the indexes this process keeps current, as a person's pages read them. Global held memories
        count for an admin only (nobody else may approve or reject them)."""
        views = await self.current_views(caller)
        memories = sum(len(view.held()) for view in (views if caller.admin else views[:2]))
        episodes = 0
        index = await self._episode_index(caller, wait=True)
        if index is not None:
            episodes = sum(1 for episode in index if episode.provenance.held)
        return Held(memories, episodes)

    async def foresee(self, caller: Identity, text: str) -> Foreseen:
        """What storing ``text`` as an approved episode's fact would do now, nothing written: approval stores it in
        the caller's workspace as an extracted fact with no model to judge the middle band (:meth:`add` with
        ``origin="extraction"`` and no ``judge``), by the same similarity, bands and rules."""
        return (await self.foresee_all(caller, [text]))[0]

    async def foresee_all(self, caller: Identity, texts: Sequence[str]) -> list[Foreseen]:
        """:meth:`foresee` of each text, against one look at the caller's memories. Remembered for the owner's index
        as it is (any change to it forgets it), so a review queue loaded again costs no ranking."""
        view = await self.store.view(Owner(caller.user, caller.workspace))
        version, known = self._foreseen.get(view, (-1, {}))
        if version != view.version:  # the index changed since: nothing it found before holds
            version, known = view.version, {}
            self._foreseen[view] = (version, known)
        found = []
        for text in texts:
            if text not in known:
                if len(known) >= MAX_FORESEEN:
                    known.clear()
                known[text] = await self._foresee(view, text)
            found.append(known[text])
        return found

    async def _foresee(self, view: MemoryIndex, text: str) -> Foreseen:
        try:
            draft = check_draft({"text": text, "source": "extracted"}, origin="extraction")
        except MemoryRejected:
            return Foreseen("rejected")
        match = await self.similarity(draft.text, view, now=time.time())
        if match is None:
            return Foreseen("add")
        previous, similarity = match
        if not _same_place(previous, draft):
            return Foreseen("add", similarity=similarity)
        if _same_memory(previous, draft):
            return Foreseen("merge", previous, similarity)
        if previous.pinned:  # a pin is replaced by a pin or a person: the fact would be stored beside it
            return Foreseen("add", similarity=similarity)
        found = band(similarity, add_threshold=self.settings.add_threshold,
                     merge_threshold=self.settings.merge_threshold)  # fmt: skip
        protected = protects(previous, extracted=True, source=draft.source, confidence=draft.confidence)
        action = settle(found, None, protected=protected)
        return Foreseen(action, None if action == "add" else previous, similarity)

    def count_uses(self, caller: Identity, memories: Sequence[Memory]) -> None:
        """Use counts for memories a search returned, written within ``USES_FLUSH_S``.

        Batched off the request path: a use count is bookkeeping nobody was promised, and writing it on every
        search cost a tool hop more than everything else it does.
        """
        now = time.time()
        for owner in owners_visible_to(caller.user, caller.workspace):
            view = self.store.cached(owner)
            for memory in memories:
                if view is not None and view.get(memory.id) is not None:
                    pending = self._uses.setdefault(owner, {})
                    times, _ = pending.get(memory.id, (0, now))
                    pending[memory.id] = (times + 1, now)
        self._flush_later()

    def _count_injected(self, key: tuple[str, ...]) -> None:
        """The memories the session's new block or note carried: one more session each, written within
        ``USES_FLUSH_S`` as use counts are. The request only notes them; whose they are is worked out when written."""
        injected = self.recall.take_injected(key)
        if injected:
            self._injections.append((key[0], key[1], time.time(), injected))
            self._flush_later()

    def _flush_later(self) -> None:
        """Write what is noted within ``USES_FLUSH_S``: one timer for use and injection counts alike."""
        if (self._uses or self._injections) and self._flushing is None:
            self._flushing = asyncio.get_running_loop().call_later(USES_FLUSH_S, self._flush_soon)

    def _flush_soon(self) -> None:
        self._flushing = None
        task = asyncio.ensure_future(self.flush_uses())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush_uses(self) -> None:
        """Write the use and injection counts noted so far (before reads that show them, and at shutdown)."""
        pending, self._uses = self._uses, {}
        for owner, uses in pending.items():
            try:
                await self.store.count_uses(owner, uses)
            except Exception:  # noqa: BLE001 - a lost use count must not cost anything else
                log.warning("could not write use counts for %s", owner.label, exc_info=True)
        injections, self._injections = self._injections, []
        try:
            counts = await self._injection_counts(injections)
        except Exception:  # noqa: BLE001 - nor a lost injection count
            log.warning("could not count %d injections", len(injections), exc_info=True)
            return
        for owner, injected in counts.items():
            try:
                await self.store.count_injected(owner, injected)
            except Exception:  # noqa: BLE001 - nor a lost injection count
                log.warning("could not write injection counts for %s", owner.label, exc_info=True)

    async def _injection_counts(
        self, injections: list[tuple[str, str, float, list[Memory]]]
    ) -> dict[Owner, dict[str, tuple[int, float]]]:
        """Per owner, how many sessions each memory was given to and when last: a memory is its owner's among those
        the session could see (its workspace's, its user's, global). Each owner's view is read once per flush, from
        memory while it is current: on PostgreSQL a ``view`` is a query, and asking it per injection made every new
        conversation cost three round trips."""
        counts: dict[Owner, dict[str, tuple[int, float]]] = {}
        seen: dict[tuple[str, str], list[tuple[Owner, MemoryIndex]]] = {}
        for user, workspace, when, memories in injections:
            owners = seen.get((user, workspace))
            if owners is None:
                owners = seen[user, workspace] = [
                    (owner, await self._current(owner)) for owner in owners_visible_to(user, workspace)
                ]
            for memory in memories:
                for owner, view in owners:
                    if view.get(memory.id) is not None:
                        pending = counts.setdefault(owner, {})
                        times, last = pending.get(memory.id, (0, when))
                        pending[memory.id] = (times + 1, max(last, when))
                        break
        return counts

    async def _current(self, owner: Owner) -> MemoryIndex:
        view = self.store.cached(owner)
        return view if view is not None else await self.store.view(owner)

    async def aclose(self) -> None:
        if self._flushing is not None:
            self._flushing.cancel()
            self._flushing = None
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.embeddings is not None:
            await self.embeddings.drain()
            self.embeddings.close()
        await self.flush_uses()
        await self.store.aclose()
        if self.episodes is not None:
            await self.episodes.aclose()
        await self.sessions.aclose()
        if self.details is not None:
            await self.details.aclose()
        if self.files is not None:
            await self.files.aclose()

    async def export(self, caller: Identity) -> list[Memory]:
        """The caller's own memories (workspace and user-wide), superseded ones included, oldest first."""
        await self.flush_uses()
        owners = owners_visible_to(caller.user, caller.workspace)[:2]
        memories = [m for owner in owners for m in await self.store.view(owner)]
        return sorted(memories, key=lambda m: (m.created, m.number))

    async def import_lines(
        self, caller: Identity, data: bytes, *, bounded: bool = True, actor: Actor | None = None
    ) -> ImportReport:
        """Import JSONL, checking each line like a new memory: a bad line is reported and nothing of it stored.

        Every line is checked before anything is written; then each owner's memories go in one write (one fsync
        for them all, not one per line). ``bounded``: at most ``memory.max_import_lines`` lines, else a 400 and
        nothing imported (one request must not hold the store for long); the CLI, on its own store, lifts it.
        """
        lines = [
            (number, line)
            for number, line in enumerate(data.splitlines(), 1)
            if line.strip() and not line.startswith((HISTORY_LINE, FILE_LINE))  # an export's history and files
        ]
        limit = self.settings.max_import_lines
        if bounded and len(lines) > limit:
            raise InvalidRequest(
                f"an import holds at most {limit} lines (memory.max_import_lines), this one has {len(lines)}; "
                "nothing was imported: send it in parts",
                code="too_many_lines",
            )
        report = ImportReport()
        by = actor or Actor.importer(caller)
        # Scanning a thousand lines takes a while: in a thread, so the event loop keeps serving meanwhile.
        accepted = await asyncio.to_thread(self._check_lines, caller, lines, report, by)
        renamed: dict[str, str] = {}  # an exported id: what it is called here
        for owner, batch in accepted.items():
            accepted[owner] = batch = await self._not_there(owner, batch, report, renamed)
            if any(draft.pinned for _, _, draft in batch):
                accepted[owner] = await self._check_imported_pins(owner, batch, report)
        report.errors.sort(key=lambda error: int(error["line"]))
        stored: list[tuple[int, str]] = []
        links: dict[Owner, list[tuple[Memory, str]]] = {}
        for owner, batch in accepted.items():
            if not batch:
                continue
            drafts = await self._embedded([draft for _, _, draft in batch])
            memories = await self.store.add_many(owner, drafts, max_total=self.settings.max_total)
            self.metrics.writes.labels("stored").inc(len(memories))
            for (number, fields, _), memory in zip(batch, memories, strict=True):
                stored.append((number, memory.id))
                if isinstance(fields.get("id"), str):
                    renamed[fields["id"]] = memory.id
                if isinstance(fields.get("superseded_by"), str):
                    links.setdefault(owner, []).append((memory, fields["superseded_by"]))
        report.imported = [memory_id for _, memory_id in sorted(stored)]
        for owner, linked in links.items():  # keep supersede links that point inside the import
            updated = [replace(memory, superseded_by=renamed[old]) for memory, old in linked if old in renamed]
            if updated:
                await self.store.replace(owner, updated)
        return report

    def _check_lines(
        self, caller: Identity, lines: list[tuple[int, bytes]], report: ImportReport, actor: Actor
    ) -> dict[Owner, list[tuple[int, dict[str, Any], MemoryDraft]]]:
        """Each import line checked like a new memory: the good ones by owner, the bad ones in ``report``."""
        accepted: dict[Owner, list[tuple[int, dict[str, Any], MemoryDraft]]] = {}
        for number, line in lines:
            try:
                fields = orjson.loads(line)
                check_depth(fields, line, what="the line")
                if not isinstance(fields, dict):
                    raise MemoryRejected("each line must be a JSON object")
                try:  # an exported held memory stays held: an import never launders it
                    provenance = Provenance.of_memory(fields)
                except ValueError as exc:
                    raise MemoryRejected(str(exc), param="untrusted") from None
                draft = check_draft(fields, imported=True, origin="import", provenance=provenance)
                draft = replace(draft, actor=actor)
                owner = self._writable(caller, draft.scope, draft.session)
            except orjson.JSONDecodeError as exc:
                report.errors.append({"line": number, "error": f"not valid JSON: {exc}"})
                self.metrics.writes.labels("rejected").inc()
                continue
            except ProxyError as exc:
                report.errors.append({"line": number, "error": exc.message})
                self.metrics.writes.labels("rejected").inc()
                continue
            accepted.setdefault(owner, []).append((number, fields, draft))
        return accepted

    async def _not_there(
        self,
        owner: Owner,
        batch: list[tuple[int, dict[str, Any], MemoryDraft]],
        report: ImportReport,
        renamed: dict[str, str],
    ) -> list[tuple[int, dict[str, Any], MemoryDraft]]:
        """The lines of ``batch`` not stored already (:func:`_import_key`): importing an export twice changes nothing.
        A line that is there is reported ``unchanged`` with the id it matched, which its exported id now names."""
        there = {_import_key(m): m for m in await self.store.view(owner)}
        fresh = []
        for number, fields, draft in batch:
            found = there.get(_import_key(draft))
            if found is None:
                fresh.append((number, fields, draft))
                continue
            report.unchanged.append(found.id)
            self.metrics.writes.labels("unchanged").inc()
            if isinstance(fields.get("id"), str):
                renamed[fields["id"]] = found.id
        return fresh

    async def _check_imported_pins(
        self, owner: Owner, batch: list[tuple[int, dict[str, Any], MemoryDraft]], report: ImportReport
    ) -> list[tuple[int, dict[str, Any], MemoryDraft]]:
        """An import keeps pins, within their place's cap and without duplicates, as the pins already there and the
        import's earlier lines leave room: a line past them is reported, and nothing of it stored."""
        pins = list((await self.store.view(owner)).pinned())
        kept = []
        for number, fields, draft in batch:
            if draft.pinned:
                try:
                    check_pin(pins, draft.text, cap_for(draft.scope, self.settings))
                except PinRefused as exc:
                    report.errors.append({"line": number, "error": exc.message})
                    self.metrics.writes.labels("rejected").inc()
                    continue
                if not draft.provenance.held:
                    pins.append(draft.stored_as(f"line {number}", 0.0))
            kept.append((number, fields, draft))
        return kept

    async def forget_all(self, caller: Identity) -> int:
        """Delete every memory of the caller, and every version of them: this workspace's and their user-wide ones
        (never global)."""
        return (await self.forget_counted(caller))["memories"]

    async def forget_counted(self, caller: Identity, *, user_wide: bool = True) -> dict[str, int]:
        """What forget-all deletes, with how many of each kind went: memories (superseded ones included, with their
        versions: nothing is left to restore; with ``user_wide``, the user-wide ones too), offloaded tool outputs
        (``details``), the memory tool's files and proposals (``files``), and the sessions' shared state
        (``session_state``, ``kept_turns``: PostgreSQL's; one process's own is in memory)."""
        deleted = 0
        for owner in owners_visible_to(caller.user, caller.workspace)[: 2 if user_wide else 1]:
            deleted += len(await self.store.forget(owner))
        self.recall.forget(caller.user, caller.workspace)
        states, kept = await self.sessions.forget((caller.user, caller.workspace))
        details = files = 0
        if self.details is not None:
            details = await self.details.forget(Owner(caller.user, caller.workspace))
        if self.files is not None:
            files = await self.files.forget(Owner(caller.user, caller.workspace))
        return {"memories": deleted, "details": details, "session_state": states, "kept_turns": kept, "files": files}

    async def forget_preview(self, caller: Identity, *, user_wide: bool = True) -> dict[str, int]:
        """What :meth:`forget_counted` would delete now, counted the same way."""
        memories = 0
        for owner in owners_visible_to(caller.user, caller.workspace)[: 2 if user_wide else 1]:
            memories += sum(1 for _ in await self.store.view(owner))  # every one (len() counts the live ones)
        states, kept = await self.sessions.count((caller.user, caller.workspace))
        details = files = 0
        if self.details is not None:
            details = await self.details.count(Owner(caller.user, caller.workspace))
        if self.files is not None:
            files = await self.files.count(Owner(caller.user, caller.workspace))
        return {"memories": memories, "details": details, "session_state": states, "kept_turns": kept, "files": files}

    def _writable(self, caller: Identity, scope: str, session: str | None = None) -> Owner:
        if scope == "session" and session is None:
            raise MemoryRejected("a session memory needs a session: send X-Memory-Session", param="scope")
        if scope == "global" and not caller.admin:
            raise AdminOnly("global memories can only be written with the admin key (X-Memory-Admin-Key)")
        return owner_for_scope(caller.user, caller.workspace, scope)


def _content_of(
    stored: Memory,
    *,
    draft: MemoryDraft,
    embedding: Embedding | None,
    relink: bool = False,
    superseded_by: str | None = None,
) -> Memory:
    """``stored`` with a checked draft's text, tags, category and pin (an edit's, or a restored version's), and
    with ``relink``, ``superseded_by``. Its embedding is the stored one while the text stays, else ``embedding``.
    The scanner's verdict on the new text is its provenance's (:func:`_rescanned`)."""
    new = replace(stored, text=draft.text, tags=draft.tags, category=draft.category, pinned=draft.pinned)
    if stored.text != draft.text or draft.provenance.reason is not None:
        new = replace(new, provenance=_rescanned(stored.provenance, draft.provenance.reason))
    if relink:
        new = replace(new, superseded_by=superseded_by)
    return new if stored.text == draft.text and stored.embedding is not None else replace(new, embedding=embedding)


def _pin(memory: Memory) -> Memory:
    return replace(memory, pinned=True)


def _approve(memory: Memory) -> Memory:
    return replace(memory, provenance=memory.provenance.approved())


def _supersede(memory: Memory, *, by: str) -> Memory:
    return replace(memory, superseded_by=by) if memory.live else memory


def _same_place(memory: Memory, draft: Memory | MemoryDraft) -> bool:
    return memory.scope == draft.scope and (draft.scope != "session" or memory.session == draft.session)


def _same_memory(memory: Memory, draft: Memory | MemoryDraft) -> bool:
    """The same text and category, and no tag the memory lacks: writing it again adds nothing (its tags are kept)."""
    return (
        _words(memory.text) == _words(draft.text)
        and memory.category == draft.category
        and set(draft.tags) <= set(memory.tags)
    )


def _rescanned(provenance: Provenance, reason: str | None) -> Provenance:
    """A memory's provenance after a person's edit: held for what the scanner suspects in the new text, and no longer
    for what it suspected in the old one (a person fixed it). An untrusted memory stays held by where it came from."""
    cleared = replace(provenance, reason=None) if provenance.reason is not None and reason is None else provenance
    return cleared.flagged(reason) if reason is not None else cleared


def _words(text: str) -> str:
    return " ".join(text.casefold().split())


def _import_key(memory: Memory | MemoryDraft) -> tuple[str, ...]:
    """What makes an import line the memory already there: its text, place and category. Not the exported id: an
    export is imported into other stores too, where the same id names another memory."""
    return (_words(memory.text), memory.scope, memory.session or "" if memory.scope == "session" else "",
            memory.category)  # fmt: skip


def search_limit(limit: int) -> int:
    """A client's ``limit`` (API or CLI): refused when out of range rather than quietly changed."""
    if not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise InvalidRequest(f"'limit' must be from 1 to {MAX_SEARCH_LIMIT}, got {limit}", param="limit")
    return limit


def as_json(memories: Sequence[Memory]) -> dict[str, Any]:
    return {"count": len(memories), "memories": [m.to_json() for m in memories]}
