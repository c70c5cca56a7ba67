"""Which of a session's messages history has kept, so each is kept once however often the client re-sends it.

A client re-sends the whole conversation on every turn; history must grow by what is new, not by the whole
conversation again. Each live session carries what history last rendered of it (:class:`Said`, on the session, so
it lives exactly as long as the session: a one-shot request's question is rendered once, not again when its
session ends and its answer is kept). A request that extends that conversation adds only its new messages (the
common case, one comparison at each end; a chained Responses request too, as its session goes on from the answer
it chains from), a retry adds nothing. A request that does not extend it (a client that trimmed or compacted its
context, a conversation first seen after a restart or after forget-all) is read again from its start: its user
messages are matched in order to the turns already known, so they keep their turn numbers, and the store leaves out
any line it holds already (same session, turn, role and text).

The request path only queues (:meth:`HistoryTurns.note`); deciding what is new and rendering it (redacting each
message, as the extraction transcript does: :func:`~proxy.episodes.transcript.spoken`) runs later on the history
writer's turn, in the order queued.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..memory.history import HistoryLine
from ..memory.history_service import HistoryService
from ..memory.provenance import Provenance
from ..memory.records import stamp
from ..memory.store import Owner
from .sessions import Session
from .transcript import spoken

TOOL_CHARS = 1000  # a tool result kept in history: enough to find it again, not the whole file it read
TEXT_CHARS = 20_000  # a user message or an answer


@dataclass(slots=True)
class Said:
    last: Sequence[dict[str, Any]] = ()  # the conversation as last rendered
    called: dict[str, str] = field(default_factory=dict)  # call id -> tool name, for results that name only the id
    turns: list[bytes] = field(default_factory=list)  # each user turn's message digest: turn n is turns[n - 1]
    turn: int = 0  # the turn of the newest line


@dataclass(slots=True)
class _Pending:
    """A request's conversation waiting for the history writer (up to a second under load): one object, where a
    partial of a bound method made three, each one the collector's full passes went over."""

    turns: HistoryTurns
    session: Session
    messages: Sequence[dict[str, Any]]
    provenance: Provenance
    now: float

    def __call__(self) -> list[HistoryLine]:
        return self.turns.render(self.session, self.messages, self.provenance, self.now)


class HistoryTurns:
    def __init__(self, history: HistoryService, proxy_tools: Collection[str]) -> None:
        self.history = history
        self.proxy_tools = frozenset(proxy_tools)

    def note(self, session: Session, messages: Sequence[dict[str, Any]], now: float) -> None:
        """Queue a request's conversation (chat-shaped, as the client sent it); its new messages are kept."""
        if not self.history.enabled:
            return
        render = _Pending(self, session, messages, session.provenance, now)
        self.history.note(Owner(session.user, session.workspace), render)

    def ended(self, session: Session) -> None:
        """The session is over: keep its last answer (the client never re-sends it)."""
        self.note(session, session.conversation(), session.last_seen)

    def render(
        self, session: Session, messages: Sequence[dict[str, Any]], provenance: Provenance, now: float
    ) -> list[HistoryLine]:
        said = session.said
        if said is None:
            said = session.said = Said()
        return new_lines(said, session.id, messages, provenance, now, self.proxy_tools)


def new_lines(
    said: Said,
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
    now = stamp(now)[1]  # to the millisecond, as the line is stored and reads back
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
