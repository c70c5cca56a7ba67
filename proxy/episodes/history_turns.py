"""Which of a session's messages history has kept, so each is kept once however often the client re-sends it.

A client re-sends the whole conversation on every turn; history must grow by what is new, not by the whole
conversation again. Per live session this remembers the conversation it last rendered: a request that extends
it adds only its new messages (the common case, one comparison at each end), a retry adds nothing. A request
that does not extend it (a client that trimmed or compacted its context, a chained Responses request carrying
only its new items, a conversation first seen after a restart) is read again from its start: its user messages
are matched in order to the turns already known, so they keep their turn numbers, and the store leaves out any
line it holds already (same session, turn, role and text).

The request path only queues (:meth:`HistoryTurns.note`); deciding what is new and rendering it (redacting each
message, as the extraction transcript does: :func:`~proxy.episodes.transcript.spoken`) runs in the history
writer's thread, in order, under a lock.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..memory.history import HistoryLine
from ..memory.history_service import HistoryService
from ..memory.provenance import Provenance
from ..memory.store import Owner
from .sessions import Session, SessionKey
from .transcript import spoken

TOOL_CHARS = 1000  # a tool result kept in history: enough to find it again, not the whole file it read
TEXT_CHARS = 20_000  # a user message or an answer
MAX_SESSIONS = 5_000  # sessions remembered; a forgotten one is read again from its start (the store dedupes)


@dataclass(slots=True)
class _Said:
    last: Sequence[dict[str, Any]] = ()  # the conversation as last rendered
    called: dict[str, str] = field(default_factory=dict)  # call id -> tool name, for results that name only the id
    turns: list[bytes] = field(default_factory=list)  # each user turn's message digest: turn n is turns[n - 1]
    turn: int = 0  # the turn of the newest line


@dataclass(slots=True)
class _Pending:
    """A request's conversation waiting for the history writer (up to a second under load): one object, where a
    partial of a bound method made three, each one the collector's full passes went over."""

    turns: HistoryTurns
    key: SessionKey
    messages: Sequence[dict[str, Any]]
    provenance: Provenance
    now: float
    ended: bool

    def __call__(self) -> list[HistoryLine]:
        return self.turns.render(self.key, self.messages, self.provenance, self.now, self.ended)


class HistoryTurns:
    def __init__(self, history: HistoryService, proxy_tools: Collection[str]) -> None:
        self.history = history
        self.proxy_tools = frozenset(proxy_tools)
        self._said: OrderedDict[SessionKey, _Said] = OrderedDict()
        self._lock = threading.Lock()

    def note(self, session: Session, messages: Sequence[dict[str, Any]], now: float, *, ended: bool = False) -> None:
        """Queue a request's conversation (chat-shaped, as the client sent it); its new messages are kept."""
        if not self.history.enabled:
            return
        render = _Pending(self, session.key, messages, session.provenance, now, ended)
        self.history.note(Owner(session.user, session.workspace), render)

    def ended(self, session: Session) -> None:
        """The session is over: keep its last answer (the client never re-sends it) and forget the session."""
        self.note(session, session.conversation(), session.last_seen, ended=True)

    def forget(self, user: str, workspace: str) -> None:
        with self._lock:
            for key in [key for key in self._said if key[:2] == (user, workspace)]:
                del self._said[key]

    def render(
        self,
        key: SessionKey,
        messages: Sequence[dict[str, Any]],
        provenance: Provenance,
        now: float,
        ended: bool,
    ) -> list[HistoryLine]:
        with self._lock:
            said = self._said.get(key)
            if said is None:
                said = self._said[key] = _Said()
                while len(self._said) > MAX_SESSIONS:
                    self._said.popitem(last=False)
            else:
                self._said.move_to_end(key)
            lines = new_lines(said, key[2], messages, provenance, now, self.proxy_tools)
            if ended:
                self._said.pop(key, None)
            return lines


def new_lines(
    said: _Said,
    session: str,
    messages: Sequence[dict[str, Any]],
    provenance: Provenance,
    now: float,
    proxy_tools: Collection[str],
) -> list[HistoryLine]:
    """The lines of ``messages`` not rendered for this session before, numbered by turn; updates ``said``."""
    seen = said.last
    extends = bool(seen) and len(messages) >= len(seen) and messages[0] == seen[0]
    extends = extends and messages[len(seen) - 1] == seen[-1]
    start = len(seen) if extends else 0
    said.last = messages
    turn, matched = said.turn, 0
    lines: list[HistoryLine] = []
    for message in messages[start:]:
        if isinstance(message, dict) and message.get("role") == "user":
            digest = _digest(message.get("content"))
            known = _find(said.turns, digest, matched) if not extends else None
            if known is None:
                said.turns.append(digest)
                turn = matched = len(said.turns)
            else:
                turn = matched = known + 1
        for role, text in spoken(message, said.called, proxy_tools, max_tool_chars=TOOL_CHARS, max_chars=TEXT_CHARS):
            lines.append(HistoryLine(session, turn, role, now, text, provenance.untrusted, provenance.sources))
    said.turn = turn
    return lines


def _find(turns: list[bytes], digest: bytes, start: int) -> int | None:
    try:
        return turns.index(digest, start)
    except ValueError:
        return None


def _digest(content: Any) -> bytes:
    return hashlib.blake2b(orjson.dumps(content, option=orjson.OPT_SORT_KEYS), digest_size=16).digest()
