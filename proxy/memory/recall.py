"""What each chat request carries, chosen so that provider prompt caches keep hitting.

Providers cache the longest unchanged prefix of a request. So a session's block is chosen once, on
its first request, and re-sent byte-identical; memories that become relevant later go into a short
note just before the newest user message, and a note once sent is re-sent at the same place. Every
request's prefix then equals the previous request. The block is only rebuilt when one of its
memories is deleted or superseded: forgetting wins over caching. Pinned facts open it, chosen with it
(a pin added mid-session shows in the next session's block), outside the ranked budgets.

Budgets: the block may fill ``memory.max_inject_count`` and ``max_inject_chars`` (of memory text) on the session's
first request, so a first question gets the best memories there are. Notes have budgets of their own: a session's
notes together carry at most ``max_note_count`` memories and ``max_note_chars`` characters, one note at most
``NOTE_MAX`` memories within ``NOTE_SHARE`` of those characters. A note is re-sent on every later request, so without
the session's cap a long session's notes would grow without bound; past it, the memory tools find the rest.
Pure: the caller hands in the owners' indexes.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..config import MemorySettings
from .block import Placement, episode_summary, message_text, newest_user_message, render_block, render_note
from .episodes import Episode, EpisodeIndex
from .excerpts import excerpt, fit
from .given import Given, Indexed, Why
from .pins import NO_PINS, Pinned
from .query import conversation_query
from .ranking import MemoryIndex, Query, Scored, Semantic
from .recall_state import Chosen, Note, given_from, session_of, state_of
from .records import Memory

RECENT_FALLBACK = 5  # with nothing relevant, the block shows the newest few
# The block takes the best max_inject_count entries, however far below the best one they score: a floor at 0.4 of
# the best (kept until issue 40's third round) cost recall on every set measured, 3 points on our dataset's dev split
# through a real proxy (bench/retrieval/injection.py, 0.717 to 0.751; 6 entries a block to 9.5, 256 characters to
# 395), 2 on LongMemEval's tune split, 1.4 on LoCoMo's, 5 on our dev split with embeddings (docs/recall.md).
NOTE_FLOOR = 0.5  # note entries: at least this share of the best new candidate...
# ...and a clear match on their own: this share of what one word found in one memory scores. Measured on the dev
# split (injection.py, modes session and long): 0.8 left half the evidence a note could bring behind; 0.5 keeps
# chit-chat out and finds nearly all of what no bar at all finds.
NOTE_RARE_WORD = 0.5
NOTE_MAX = 3  # memories one note adds, at most...
NOTE_SHARE = 0.15  # ...within this share of max_note_chars: one turn never takes the session's whole note budget
EPISODES_MAX = 2  # episode summaries in a block: the most relevant ones, else the newest one
EPISODES_SHARE = 1 / 3  # of max_inject_chars, at most, for them
MAX_SESSIONS = 10_000


@dataclass(frozen=True, slots=True)
class Recalled:
    placement: Placement
    ids: tuple[str, ...]
    pinned: int = 0  # how many of ``ids`` are pinned facts (they come first)


class Recall:
    def __init__(self, settings: MemorySettings, *, tools: bool = False) -> None:
        self.settings = settings
        self.tools = tools  # the block says how to use the memory tools
        self._sessions: OrderedDict[tuple[str, ...], Chosen] = OrderedDict()
        self._changed: set[tuple[str, ...]] = set()  # sessions whose block or notes changed since ``take_changed``
        # Memories a session's new block or note carried that it had not carried before: injection counts
        self._injected: dict[tuple[str, ...], list[Memory]] = {}

    def __call__(
        self,
        session_key: tuple[str, ...],
        messages: Sequence[dict[str, Any]],
        views: Sequence[MemoryIndex],
        *,
        now: float,
        visible: Callable[[Memory], bool] = lambda memory: True,
        episodes: EpisodeIndex | None = None,
        tools: bool | None = None,
        semantic: Semantic | None = None,
        pinned: Pinned = NO_PINS,
    ) -> Recalled:
        """This session's block and notes for a request's messages (a dialect's chat-shaped view).

        ``episodes``: the owner's episodes; the block shows the most relevant replayable ones. ``tools``: whether
        this request gets the memory tools (None: the default given at construction); a model without them gets
        the same block without the line on them. ``semantic``: the newest user message's embedding, when
        embeddings are on, fused with the lexical ranking. ``pinned``: the pinned facts, already within their
        caps, that a block chosen now opens with (``visible`` should leave them out of the ranking).
        """
        tools = self.tools if tools is None else tools
        newest = newest_user_message(messages)
        if newest is None:
            return Recalled(Placement(), ())

        def live(memory: Memory) -> bool:
            return any(view.is_live(memory.id) for view in views)

        session = self._sessions.get(session_key)
        turn = _digest(messages[newest])
        if session is None or not all(live(m) for m in (*session.pinned.memories, *session.block)):
            text = message_text(messages[newest])
            query = conversation_query(messages, newest, now)
            block, why, excerpts = self._choose_block(query, views, now, visible, semantic)
            shown = self._choose_episodes(text, episodes, block, why, excerpts) if episodes else []
            rendered = None
            if block or shown or not pinned.empty:
                rendered = render_block(block, episodes=shown, tools=tools, pinned=pinned, excerpts=excerpts)
            fresh = (*pinned.memories, *block)
            if session is not None:  # chosen again: only what it had not carried counts as given
                carried = session.carried()
                fresh = tuple(m for m in fresh if m.id not in carried)
            kept = session.notes if session else ()
            session = Chosen(
                block,
                rendered,
                kept,
                tuple(shown),
                tools=tools,
                pinned=pinned,
                why=why,
                query=query.terms,
                excerpts=excerpts,
            )
            self._remember(session_key, session)
            self._changed.add(session_key)
            self._inject(session_key, fresh)
            session.last_turn = turn
        else:
            self._sessions.move_to_end(session_key)
            if session.tools != tools:  # the session changed models: same memories, the tools line added or gone
                session.tools = tools
                if session.text is not None:
                    session.text = render_block(
                        session.block,
                        episodes=session.episodes,
                        tools=tools,
                        pinned=session.pinned,
                        excerpts=session.excerpts,
                    )
        if self._forget_dead_notes(session, live):
            self._changed.add(session_key)
        if session.last_turn != turn:
            session.last_turn = turn
            if not any(note.before == newest and note.digest == turn for note in session.notes):
                query = conversation_query(messages, newest, now)
                if self._add_note(session, newest, turn, query, views, now, visible, semantic):
                    self._changed.add(session_key)
                    self._inject(session_key, session.notes[-1].memories)

        pins = [m.id for m in session.pinned.memories]
        notes, ids = [], pins + [m.id for m in session.block] + [e.id for e in session.episodes]
        for note in session.notes:
            if note.before < len(messages) and _digest(messages[note.before]) == note.digest:
                notes.append((note.before, note.text))
                ids += [m.id for m in note.memories]
        return Recalled(Placement(session.text, tuple(notes)), tuple(ids), len(pins))

    def ranks(self, key: tuple[str, ...], messages: Sequence[dict[str, Any]], views: Sequence[MemoryIndex]) -> bool:
        """Whether this request ranks memories: it chooses the session's block (its first request here, or its block
        lost a memory) or a note for a new user message. A retry or a tool loop's next hop (the same newest user
        message) re-sends what was chosen: it ranks nothing, and needs no embedding of its message."""
        newest = newest_user_message(messages)
        if newest is None:
            return False
        session = self._sessions.get(key)
        if session is None or session.last_turn != _digest(messages[newest]):
            return True
        return not all(any(view.is_live(m.id) for view in views) for m in (*session.pinned.memories, *session.block))

    def forget_session(self, key: tuple[str, ...]) -> None:
        """A new conversation under a name an older one had: its block is chosen afresh."""
        self._sessions.pop(key, None)

    # -- sharing with other replicas (:mod:`.session_state`) -------------------------------------------------

    def has(self, key: tuple[str, ...]) -> bool:
        return key in self._sessions

    def take_changed(self) -> list[tuple[str, ...]]:
        """The sessions whose block or notes changed since the last call: what to write to the shared state."""
        changed, self._changed = [k for k in self._changed if k in self._sessions], set()
        return changed

    def mark_changed(self, key: tuple[str, ...]) -> None:
        self._changed.add(key)

    def take_injected(self, key: tuple[str, ...]) -> list[Memory]:
        """The memories this session's blocks and notes newly carried since the last call: a session counts once
        for each memory it was given (a block re-sent, or adopted from the replica that chose it, counts nothing)."""
        return self._injected.pop(key, [])

    def given(self, key: tuple[str, ...]) -> Given | None:
        """What this process holds of a session's block and notes, entry by entry with why; None: nothing."""
        session = self._sessions.get(key)
        return None if session is None else given_from(session)

    def export(self, key: tuple[str, ...], indexed: Indexed | None = None) -> dict[str, Any] | None:
        """A session's state as JSON, its rendered texts included so another replica re-sends them byte for byte."""
        session = self._sessions.get(key)
        if session is None:
            return None
        return state_of(session, indexed)

    def adopt(self, key: tuple[str, ...], state: dict[str, Any]) -> None:
        """Take a session's state another replica exported, in place of this one's copy (a copy chosen meanwhile is
        not one to share)."""
        self._changed.discard(key)
        self._injected.pop(key, None)  # what this replica chose meanwhile was never sent
        self._remember(key, session_of(state))

    def forget(self, user: str, workspace: str) -> None:
        """Drop the frozen blocks and notes of a caller's sessions: they hold memories that are gone."""
        for key in [key for key in self._sessions if key[:2] == (user, workspace)]:
            del self._sessions[key]
            self._injected.pop(key, None)

    # -- choosing -------------------------------------------------------------------------------------------

    def _choose_block(
        self,
        query: Query,
        views: Sequence[MemoryIndex],
        now: float,
        visible: Callable[[Memory], bool],
        semantic: Semantic | None = None,
    ) -> tuple[list[Memory], dict[str, Why], dict[str, str]]:
        """The block's memories, why each (its score and matched terms, or None for one of the newest), and what it
        shows of those cut short (:mod:`.excerpts`), by id."""
        budget = _Budget(self.settings.max_inject_count, self.settings.max_inject_chars)
        if self.settings.inject_mode == "recent_only":
            newest = budget.fill(_newest(views, visible, self.settings.max_inject_count))
            return newest, dict.fromkeys((m.id for m in newest), None), {}
        ranked = _ranked(query, views, now, self.settings.max_inject_count, visible, semantic)
        if ranked:
            candidates = ranked[: self.settings.max_inject_count]
            count, cut = fit([len(s.memory.text) for s in candidates], self.settings.max_inject_chars)
            picked = candidates[:count]
            excerpts: dict[str, str] = {}
            if cut is not None:
                weights = dict(zip(query.terms, query.weights or (1.0,) * len(query.terms), strict=True))
                for scored in picked:
                    if len(scored.memory.text) > cut:
                        excerpts[scored.memory.id] = excerpt(scored.memory.text, weights, cut)
            return [s.memory for s in picked], _reasons(picked), excerpts
        newest = budget.fill(_newest(views, visible, RECENT_FALLBACK), limit=RECENT_FALLBACK)
        return newest, dict.fromkeys((m.id for m in newest), None), {}

    def _choose_episodes(
        self,
        text: str,
        episodes: EpisodeIndex,
        block: Sequence[Memory],
        why: dict[str, Why],
        excerpts: dict[str, str],
    ) -> list[Episode]:
        """Within what the block's memories (as shown: ``excerpts`` of those cut short) left of the budgets, and at
        most a third of the characters; why each was chosen goes into ``why``."""
        count = min(EPISODES_MAX, self.settings.max_inject_count - len(block))
        chars = self.settings.max_inject_chars - sum(len(excerpts.get(m.id, m.text)) for m in block)
        chars = min(chars, round(EPISODES_SHARE * self.settings.max_inject_chars))
        chosen: list[Episode] = []
        candidates: list[tuple[Episode, float | None, tuple[str, ...]]] = []
        if self.settings.inject_mode == "relevant":
            candidates += episodes.scored(text, limit=EPISODES_MAX)
        candidates = candidates or [(episode, None, ()) for episode in episodes.newest(1)]
        for episode, score, terms in candidates:
            size = len(episode_summary(episode))
            if len(chosen) < count and size <= chars:
                chosen.append(episode)
                chars -= size
                why[episode.id] = None if score is None else (score, terms)
        return chosen

    def _add_note(
        self,
        session: Chosen,
        before: int,
        turn: bytes,
        query: Query,
        views: Sequence[MemoryIndex],
        now: float,
        visible: Callable[[Memory], bool],
        semantic: Semantic | None = None,
    ) -> bool:
        """Whether a note was added."""
        if self.settings.inject_mode != "relevant":
            return False
        noted = [m for note in session.notes for m in note.memories]
        budget = note_budget(self.settings, noted)
        if budget.count <= 0:
            return False
        shown = {m.id for m in session.block} | {m.id for m in noted}
        ranked = _ranked(query, views, now, NOTE_MAX + len(shown), visible, semantic)
        fresh = [s for s in ranked if s.memory.id not in shown]
        if not fresh:
            return False
        count = sum(len(view) for view in views)
        floor = max(NOTE_RARE_WORD * math.log(1 + (count - 0.5) / 1.5), NOTE_FLOOR * fresh[0].score)
        picked = budget.fill_scored((s for s in fresh if s.score >= floor), limit=NOTE_MAX)
        if picked:
            note = Note(before, turn, [s.memory for s in picked], _reasons(picked), query.terms)
            session.notes = (*session.notes, note)
        return bool(picked)

    @staticmethod
    def _forget_dead_notes(session: Chosen, live: Callable[[Memory], bool]) -> bool:
        """Whether any note changed."""
        changed = False
        for note in session.notes:
            if not all(live(m) for m in note.memories):
                note.memories = [m for m in note.memories if live(m)]
                note.text = render_note(note.memories)
                changed = True
        if changed:
            session.notes = tuple(note for note in session.notes if note.memories)
        return changed

    def _inject(self, key: tuple[str, ...], memories: Sequence[Memory]) -> None:
        if memories:
            self._injected.setdefault(key, []).extend(memories)

    def _remember(self, key: tuple[str, ...], session: Chosen) -> None:
        self._sessions[key] = session
        self._sessions.move_to_end(key)
        while len(self._sessions) > MAX_SESSIONS:
            self._injected.pop(self._sessions.popitem(last=False)[0], None)


def _reasons(picked: Sequence[Scored]) -> dict[str, Why]:
    """Each chosen memory's score; its matched terms are worked out when asked for (:func:`matched`)."""
    return {s.memory.id: (s.score, None) for s in picked}


def note_budget(settings: MemorySettings, noted: Sequence[Memory]) -> _Budget:
    """What the next note may add, given the memories the session's notes already carry.

    Its own budget, never the block's: at most ``NOTE_MAX`` memories and ``NOTE_SHARE`` of ``max_note_chars``,
    within what the session's notes together have left of ``max_note_count`` and ``max_note_chars``.
    """
    count, chars = settings.max_note_count, settings.max_note_chars
    count_left, chars_left = count - len(noted), chars - sum(len(m.text) for m in noted)
    return _Budget(max(0, min(NOTE_MAX, count_left)), max(0, min(round(NOTE_SHARE * chars), chars_left)))


class _Budget:
    def __init__(self, count: int, chars: int) -> None:
        self.count, self.chars = count, chars

    def fill(self, candidates: Iterable[Memory], *, limit: int | None = None) -> list[Memory]:
        """Take candidates in order while they fit; one too long to fit is skipped, not a stop."""
        chosen: list[Memory] = []
        room = self.count if limit is None else min(self.count, limit)
        for memory in candidates:
            if len(chosen) >= room:
                break
            if len(memory.text) <= self.chars:
                chosen.append(memory)
                self.chars -= len(memory.text)
        self.count -= len(chosen)
        return chosen

    def fill_scored(self, candidates: Iterable[Scored], *, limit: int | None = None) -> list[Scored]:
        """:meth:`fill` for ranked candidates, keeping their scores."""
        chosen: list[Scored] = []
        room = self.count if limit is None else min(self.count, limit)
        for scored in candidates:
            if len(chosen) >= room:
                break
            size = len(scored.memory.text)
            if size <= self.chars:
                chosen.append(scored)
                self.chars -= size
        self.count -= len(chosen)
        return chosen


def _ranked(
    query: Query,
    views: Sequence[MemoryIndex],
    now: float,
    limit: int,
    visible: Callable[[Memory], bool],
    semantic: Semantic | None = None,
) -> list[Scored]:
    ranked = [
        s for view in views for s in view.rank(query, now=now, limit=limit, semantic=semantic) if visible(s.memory)
    ]
    ranked.sort(key=lambda s: s.score, reverse=True)
    return ranked


def _newest(views: Sequence[MemoryIndex], visible: Callable[[Memory], bool], n: int) -> list[Memory]:
    newest = [m for view in views for m in view.newest(2 * n + 20) if visible(m)]
    newest.sort(key=lambda m: (m.created, m.number), reverse=True)
    return newest


def _digest(message: dict[str, Any]) -> bytes:
    return hashlib.blake2b(orjson.dumps(message, option=orjson.OPT_SORT_KEYS), digest_size=16).digest()
