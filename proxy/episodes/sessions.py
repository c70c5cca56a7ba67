"""Which requests form a session, and how many turns each session has had. Pure: no I/O, no clock.

A session is named by the ``X-Memory-Session`` header, else by a fingerprint of its opening: a client
resends the whole conversation each turn, so its opening messages (the instructions and the first
user message) are the same on every request of one conversation. A turn is a request that ends with
a new user message; a retry of the same request, or a follow-up carrying tool results, is not one.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..memory.records import format_ts
from .transcript import tool_names

INSTRUCTION_ROLES = frozenset({"system", "developer"})
MAX_SESSIONS = 5_000  # live sessions held; past it the least recently seen ends early (its episode is not lost)

SessionKey = tuple[str, str, str]  # user, workspace, session id


def derive_session_id(messages: Sequence[dict[str, Any]]) -> str:
    opening: list[Any] = []
    for message in messages:
        opening.append([message.get("role"), message.get("content")])
        if message.get("role") not in INSTRUCTION_ROLES:
            break
    digest = hashlib.sha256(orjson.dumps(opening, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"fp-{digest[:24]}"


@dataclass(slots=True)
class Session:
    id: str
    user: str
    workspace: str
    started_at: float
    last_seen: float
    model: str | None = None
    turns: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)  # the conversation as the client last sent it
    tools: set[str] = field(default_factory=set)  # every tool the model called in it: its provenance
    last_turn: bytes | None = None  # the newest user message counted, so a retry is not a turn
    scanned: int = 0  # messages already looked at for tool calls

    @property
    def key(self) -> SessionKey:
        return (self.user, self.workspace, self.id)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "workspace": self.workspace,
            "turns": self.turns,
            "model": self.model,
            "started_at": format_ts(self.started_at),
            "last_seen": format_ts(self.last_seen),
            "tools": sorted(self.tools),
            "state": "active",
        }


class SessionTracker:
    """Live sessions, least recently seen first."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: OrderedDict[SessionKey, Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._sessions.values()))

    def get(self, user: str, workspace: str, session_id: str) -> Session | None:
        return self._sessions.get((user, workspace, session_id))

    def observe(self, user: str, workspace: str, session_id: str, payload: dict[str, Any], *, now: float) -> Session:
        """Note one request of a session: a turn when it ends with a new user message."""
        key = (user, workspace, session_id)
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = Session(session_id, user, workspace, started_at=now, last_seen=now)
        else:
            self._sessions.move_to_end(key)
        messages = payload["messages"]
        session.last_seen = now
        if len(messages) < session.scanned or messages[:1] != session.messages[:1]:
            session.scanned = 0  # not the conversation seen last: look at all of it
        session.tools.update(tool_names(messages[session.scanned :]))
        session.scanned = len(messages)
        session.messages = messages
        if messages and messages[-1].get("role") == "user":
            turn = _digest(len(messages), messages[-1])
            if turn != session.last_turn:
                session.last_turn = turn
                # A conversation first seen mid-way (a restart, another worker) already had its earlier turns.
                users = sum(1 for m in messages if m.get("role") == "user")
                session.turns = max(session.turns + 1, users)
        return session

    def overflow(self) -> list[Session]:
        """Sessions past the limit, least recently seen first: they end now."""
        ended = []
        while len(self._sessions) > self.limit:
            ended.append(self._sessions.popitem(last=False)[1])
        return ended

    def idle(self, now: float, timeout_s: float) -> list[Session]:
        """Sessions silent for ``timeout_s``: they end now."""
        ended = []
        for key, session in list(self._sessions.items()):
            if now - session.last_seen < timeout_s:
                break  # least recently seen first: the rest are newer
            ended.append(self._sessions.pop(key))
        return ended

    def end(self, key: SessionKey) -> Session | None:
        return self._sessions.pop(key, None)

    def restore(self, session: Session) -> None:
        """Put back an ended session whose job could not be written, so it ends again later, nothing lost.

        A request of the same session seen meanwhile started a new one: that one is kept, knowing what both knew.
        """
        current = self._sessions.get(session.key)
        if current is not None:
            current.turns = max(current.turns, session.turns)
            current.tools |= session.tools
            current.started_at = min(current.started_at, session.started_at)
            current.model = current.model or session.model
            return
        self._sessions[session.key] = session
        # Least recently seen first, as `idle` expects: the sessions seen since go back behind it.
        for key in [key for key, other in self._sessions.items() if other.last_seen > session.last_seen]:
            self._sessions.move_to_end(key)

    def end_all(self) -> list[Session]:
        ended = list(self._sessions.values())
        self._sessions.clear()
        return ended

    def forget(self, user: str, workspace: str) -> int:
        """Drop a caller's live sessions without ending them into jobs: forget-all means nothing is extracted."""
        keys = [key for key, s in self._sessions.items() if s.user == user and s.workspace == workspace]
        for key in keys:
            del self._sessions[key]
        return len(keys)

    def of(self, user: str, workspace: str) -> list[Session]:
        """One caller's live sessions, most recently seen first."""
        return [s for s in reversed(self._sessions.values()) if s.user == user and s.workspace == workspace]


def _digest(position: int, message: dict[str, Any]) -> bytes:
    data = orjson.dumps([position, message.get("content")], option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, digest_size=16).digest()
