"""Which requests form a session, and how many turns each session has had. Pure: no I/O, no clock.

A session is named by the ``X-Memory-Session`` header, else by a fingerprint of its opening: a client
resends the whole conversation each turn, so its opening messages (the instructions and the first
user message) are the same on every request of one conversation. A turn is a request that ends with
a new user message (instructions after it aside: Claude Code's first request ends with a ``system`` message); a retry
of the same request, or a follow-up carrying tool results, is not one. Messages are read as they say (the pipeline
reads them through :class:`~proxy.dialects.client_marks.ClientMarks`): a client's cache markers, which move every
turn, never make a turn new or a conversation another.

A session is *untrusted* from the first request whose conversation holds a call to (or a result of) an
untrusted tool (:mod:`proxy.episodes.untrusted`), a result whose call is not in sight or content the proxy cannot
attribute (:mod:`proxy.episodes.evidence`), and from the first answer that brought outside content in (a hosted
tool's, :meth:`SessionTracker.taint`); it stays so while it lives, even if the client later trims that call from
the conversation: its memory writes are held and its episode is held (DESIGN "Provenance"). Only messages not seen
before are looked at, so a request costs a glance at what is new. What outlives this process (the taint, the chain
links of untrusted sessions) is shared through the store (:mod:`proxy.episodes.trust`).
A chained Responses request (``previous_response_id``) carries only its new items: the conversation before them
is stored upstream. The session's conversation is what the answer it chains from went on from, that answer and the
new items, so history and the extraction transcript see every turn; and the calls that answer made count too
(the request holds only their results).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ..config import ExtractionSettings
from ..memory.provenance import TRUSTED, Provenance, untrusted_by
from ..memory.records import format_ts
from .evidence import tools_seen
from .quotas import Usage, key_of_user
from .untrusted import UntrustedTools

if TYPE_CHECKING:
    from .history_turns import Said

INSTRUCTION_ROLES = frozenset({"system", "developer"})
ANSWERED_ROLES = frozenset({"user", "tool"})  # a conversation ending so is waiting for an answer
MAX_SESSIONS = 5_000  # live sessions held; past it the least recently seen ends early (its episode is not lost)

SessionKey = tuple[str, str, str]  # user, workspace, session id
MAX_CHAINS = 50_000  # answer ids remembered for chained requests


@dataclass(frozen=True, slots=True)
class ChainLink:
    """An answer a later request may chain from, read once it has ended (a stream knows it only then)."""

    client: str | None  # the answer's id as the client got it
    chain: str | None  # the id its upstream stored the whole tool loop under
    # (call id, tool) of the calls it made that the client got, ("", name) of what it brought in from outside: a
    # chained request holds only the calls' results
    called: tuple[tuple[str, str], ...] = ()

    def to_json(self, session: str) -> dict[str, Any]:
        """As the store shares it with other replicas (:meth:`SessionState.put_link`); NUL-free, as PostgreSQL's
        JSON must be (ids and names come from the model)."""
        called = [[part.replace("\x00", "") for part in pair] for pair in self.called]
        return {"session": session, "chain": self.chain or self.client, "called": called}


@dataclass(frozen=True, slots=True)
class Followed:
    """Where a chained request goes on from: its session, the upstream id to chain from, the tools already called."""

    session: str
    chain: str
    called: tuple[tuple[str, str], ...] = ()
    after: int | None = None  # how many of the session's messages the answer followed (None: the session was gone)

    @classmethod
    def from_json(cls, obj: Any) -> Followed | None:
        """A link another replica shared (:meth:`ChainLink.to_json`); None when it is not one."""
        if not isinstance(obj, dict) or not all(isinstance(obj.get(key), str) for key in ("session", "chain")):
            return None
        called = obj.get("called")
        pairs = [
            (pair[0], pair[1])
            for pair in (called if isinstance(called, list) else ())
            if isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)
        ]
        return cls(obj["session"], obj["chain"], tuple(pairs))


def newest(messages: Sequence[dict[str, Any]]) -> int | None:
    """Where the newest message that is not an instruction is: what the conversation waits on (a user message, a
    tool result) or the answer it ended with. Instructions may follow it (a mid-conversation ``system`` message)."""
    for position in range(len(messages) - 1, -1, -1):
        if messages[position].get("role") not in INSTRUCTION_ROLES:
            return position
    return None


def waiting(messages: Sequence[dict[str, Any]]) -> bool:
    """Whether the conversation waits for an answer: it ends with a user message or a tool result."""
    position = newest(messages)
    return position is not None and messages[position].get("role") in ANSWERED_ROLES


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
    api: str = "chat"  # the dialect its accepted requests spoke (where its extraction goes)
    turns: int = 0
    messages: Sequence[dict[str, Any]] = ()  # the conversation as the client last sent it
    tools: frozenset[str] = frozenset()  # every tool the model called in it (frozen: most sessions call none)
    provenance: Provenance = TRUSTED  # untrusted (sticky) once an untrusted tool was among `tools`
    shared: tuple[str, ...] = ()  # the sources this process last wrote to the store (proxy.episodes.trust)
    last_turn: bytes | None = None  # the newest user message counted, so a retry is not a turn
    scanned: int = 0  # messages already looked at for tool calls
    # The newest answer the client got, chat-shaped (Dialect.answer), read when needed.
    answer: Callable[[], Sequence[dict[str, Any]]] | None = None
    said: Said | None = None  # what history has kept of it so far (HistoryTurns)
    # Leading messages that are not the session's: said before its owner's forget-all, re-sent by a client that went
    # on with the conversation. History and extraction never see them.
    forgotten: int = 0
    size: int = 0  # bytes of the request that carried its conversation last (what holding it costs)

    def own(self) -> Sequence[dict[str, Any]]:
        """The conversation as the client last sent it, without what was forgotten before the session began."""
        return self.messages[self.forgotten :] if self.forgotten else self.messages

    def conversation(self) -> Sequence[dict[str, Any]]:
        """What the session said, its last answer included (the client sends that only with its next turn)."""
        said = self.answer() if self.answer is not None else ()
        messages = self.own()
        if said and waiting(messages):
            return [*messages, *said]
        return messages

    def as_of(self, count: int) -> Sequence[dict[str, Any]]:
        """The conversation up to the answer to its first ``count`` messages: what a request chaining from that
        answer goes on from (the newest answer, or an older one the client forked from or retried)."""
        if len(self.messages) == count:
            return self.conversation()
        end = count
        while end < len(self.messages) and self.messages[end].get("role") == "assistant":
            end += 1  # that answer, as the request chaining from it kept it
        return self.messages[:end]

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
            "untrusted": self.provenance.untrusted,
            "sources": list(self.provenance.sources),
            "state": "active",
        }


class SessionTracker:
    """Live sessions, least recently seen first."""

    def __init__(self, limit: int = MAX_SESSIONS, untrusted: UntrustedTools | None = None) -> None:
        self.limit = limit
        self.untrusted = untrusted if untrusted is not None else UntrustedTools.of(ExtractionSettings())
        self._sessions: OrderedDict[SessionKey, Session] = OrderedDict()
        self.usage = Usage()  # live sessions and their bytes, per key (proxy.episodes.quotas)
        # Responses chains: (user, workspace, response id) -> where it goes on from
        self._chains: OrderedDict[tuple[str, str, str], Followed] = OrderedDict()
        # (user, workspace, the first message after the instructions) -> the newest session that opened with it, for a
        # conversation that goes on under new instructions (resolve). Names only: a stale one finds no session.
        self._openings: OrderedDict[tuple[str, str, bytes], str] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._sessions.values()))

    def resolve(
        self, user: str, workspace: str, fingerprint: str, messages: Sequence[dict[str, Any]]
    ) -> tuple[str, bool]:
        """The live session a conversation continues, named from its opening's fingerprint; else a new one.

        Two conversations can open alike (``[system, "hi"]``): a request continues a session only if its messages
        extend what that session last saw. One that is shorter or diverges gets the next free name
        (``fp-...-2``). Returns the name and whether no live session had it (the caller starts afresh).

        A client may change its instructions mid-conversation (Claude Code's system prompt names another model after
        its first request, an MCP server's instructions arrive late): a request whose conversation, instructions
        aside, goes on from a live session's continues that session, under its name.
        """
        candidate, n = fingerprint, 1
        while True:
            session = self._sessions.get((user, workspace, candidate))
            if session is None:
                break
            seen = session.messages
            if len(messages) >= len(seen) and messages[: len(seen)] == seen:
                return candidate, False
            n += 1
            candidate = f"{fingerprint}-{n}"
        said = _said(messages)
        if said:
            name = self._openings.get((user, workspace, _opening(said[0])))
            session = self._sessions.get((user, workspace, name)) if name is not None else None
            if session is not None and _goes_on(said, _said(session.messages)):
                return session.id, False
        return candidate, True

    def link(self, user: str, workspace: str, session_id: str, link: ChainLink) -> None:
        """An answer a later request may chain from (``previous_response_id``) belongs to this session: noted
        before the client has all of it, so its next request always finds it."""
        if not link.client:
            return
        session = self._sessions.get((user, workspace, session_id))
        after = len(session.messages) if session is not None else None
        key = (user, workspace, link.client)
        self._chains.pop(key, None)
        self._chains[key] = Followed(session_id, link.chain or link.client, link.called, after)
        while len(self._chains) > MAX_CHAINS:
            self._chains.popitem(last=False)

    def follow(self, user: str, workspace: str, answer_id: str) -> Followed | None:
        """The session a chained request continues, the upstream id to chain from and the calls the chain made,
        when one of its answers had that id (here: another replica's are in the store)."""
        return self._chains.get((user, workspace, answer_id))

    def get(self, user: str, workspace: str, session_id: str) -> Session | None:
        return self._sessions.get((user, workspace, session_id))

    def observe(
        self,
        user: str,
        workspace: str,
        session_id: str,
        messages: Sequence[dict[str, Any]],
        *,
        now: float,
        chain: Followed | None = None,
        hosted: tuple[str, ...] = (),
        fresh_only: bool = False,
        size: int = 0,
    ) -> Session:
        """Note one request of a session (its chat-shaped conversation): a turn when it ends with a new user message.

        ``chain``: where a chained request goes on from (its messages are only the new ones); ``hosted``: tools the
        upstream runs for it whose calls its answer never shows (:meth:`Dialect.hosted`). ``fresh_only``: the
        owner forgot everything once; a session first seen now owns only its newest user message and what follows,
        not the conversation before it.
        """
        key = (user, workspace, session_id)
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = Session(session_id, user, workspace, started_at=now, last_seen=now)
            self._opened(session, messages)
            self.usage.add(session)
            if fresh_only:
                session.forgotten = _newest_turn(messages)
        else:
            self._sessions.move_to_end(key)
        if size != session.size:
            self.usage.resize(session, size)
        session.last_seen = now
        called: Iterable[tuple[str, str]] = ()
        if chain is not None:
            called = chain.called
            if chain.after is not None:
                messages = [*session.as_of(chain.after), *messages]
        seen = session.messages
        if len(messages) != len(seen) or messages[-1:] != seen[-1:]:
            session.answer = None  # not a retry: the answer to it is not known yet (a failed request gets none)
        if len(messages) < session.scanned or messages[:1] != seen[:1]:
            session.scanned = 0  # not the conversation seen last: look at all of it
        known = [call_id for call_id, _ in called if call_id]
        names = tools_seen(messages, session.scanned, known)
        names.update(name for _, name in called)
        names.update(hosted)
        self.taint(session, names)
        session.scanned = len(messages)
        session.messages = messages
        position = newest(messages)
        if position is not None and messages[position].get("role") == "user":
            turn = _digest(position, messages[position])
            if turn != session.last_turn:
                session.last_turn = turn
                # A conversation first seen mid-way (a restart, another worker) already had its earlier turns.
                users = sum(1 for m in session.own() if m.get("role") == "user")
                session.turns = max(session.turns + 1, users)
        return session

    def _opened(self, session: Session, messages: Sequence[dict[str, Any]]) -> None:
        """A new session: the conversation it opens with, for one that goes on from it under new instructions."""
        said = _said(messages)
        if not said:
            return
        key = (session.user, session.workspace, _opening(said[0]))
        self._openings.pop(key, None)
        self._openings[key] = session.id
        while len(self._openings) > self.limit:
            self._openings.popitem(last=False)

    def taint(self, session: Session, names: Iterable[str]) -> bool:
        """``session`` called, or took in the results of, the tools ``names``; returns whether its provenance
        changed (a new untrusted source). The taint never goes: what was read was read."""
        new = set(names) - session.tools
        if not new:
            return False
        session.tools |= new
        sources = self.untrusted.sources(session.tools)
        if sources == session.provenance.sources:
            return False
        session.provenance = untrusted_by(sources)
        return True

    def overflow(self) -> list[Session]:
        """Sessions past the limit, least recently seen first: they end now."""
        ended = []
        while len(self._sessions) > self.limit:
            ended.append(self._drop(next(iter(self._sessions))))
        return ended

    def over_quota(self, key: str, *, max_count: int, max_bytes: int, max_total_bytes: int) -> list[Session]:
        """Sessions past a key's share (``key``: :func:`key_of_user`; its count and bytes), least recently seen of
        that key first, then past the bytes all sessions may hold (least recently seen first): they end now."""
        ended = []
        usage = self.usage
        count, size = usage.count.get(key, 0) - max_count, usage.size.get(key, 0) - max_bytes  # over by
        if count > 0 or size > 0:
            # Found first, dropped after: copying every live session to drop the oldest one cost 6% of a new
            # conversation's CPU at 16 streams once a key held its share (py-spy).
            victims = []
            for session_key, session in self._sessions.items():
                if count <= 0 and size <= 0:
                    break
                if key_of_user(session.user) == key:
                    victims.append(session_key)
                    count, size = count - 1, size - session.size
            ended = [self._drop(session_key) for session_key in victims]
        while usage.total > max_total_bytes and len(self._sessions) > 1:
            ended.append(self._drop(next(iter(self._sessions))))
        return ended

    def _drop(self, key: SessionKey) -> Session:
        session = self._sessions.pop(key)
        self.usage.remove(session)
        return session

    def idle(self, now: float, timeout_s: float) -> list[Session]:
        """Sessions silent for ``timeout_s``: they end now."""
        ended = []
        for key, session in list(self._sessions.items()):
            if now - session.last_seen < timeout_s:
                break  # least recently seen first: the rest are newer
            ended.append(self._drop(key))
        return ended

    def end(self, key: SessionKey) -> Session | None:
        return self._drop(key) if key in self._sessions else None

    def restore(self, session: Session) -> None:
        """Put back an ended session whose job could not be written, so it ends again later, nothing lost.

        A request of the same session seen meanwhile started a new one: that one is kept, knowing what both knew.
        """
        current = self._sessions.get(session.key)
        if current is not None:
            current.turns = max(current.turns, session.turns)
            self.taint(current, session.tools)  # what either took in taints both
            current.started_at = min(current.started_at, session.started_at)
            current.model = current.model or session.model
            return
        self._sessions[session.key] = session
        self.usage.add(session)
        # Least recently seen first, as `idle` expects: the sessions seen since go back behind it.
        for key in [key for key, other in self._sessions.items() if other.last_seen > session.last_seen]:
            self._sessions.move_to_end(key)

    def end_all(self) -> list[Session]:
        ended = list(self._sessions.values())
        self._sessions.clear()
        self.usage = Usage()
        return ended

    def forget(self, user: str, workspace: str) -> int:
        """Drop a caller's live sessions without ending them into jobs: forget-all means nothing is extracted."""
        keys = [key for key, s in self._sessions.items() if s.user == user and s.workspace == workspace]
        for key in keys:
            self._drop(key)
        for chain in [chain for chain in self._chains if chain[:2] == (user, workspace)]:
            del self._chains[chain]
        return len(keys)

    def of(self, user: str, workspace: str) -> list[Session]:
        """One caller's live sessions, most recently seen first."""
        return [s for s in reversed(self._sessions.values()) if s.user == user and s.workspace == workspace]


def _said(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A conversation without its instructions."""
    return [message for message in messages if message.get("role") not in INSTRUCTION_ROLES]


def _opening(message: dict[str, Any]) -> bytes:
    data = orjson.dumps([message.get("role"), message.get("content")], option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, digest_size=16).digest()


def _goes_on(said: list[dict[str, Any]], seen: list[dict[str, Any]]) -> bool:
    """Whether a conversation (instructions aside) goes on from one seen before: all of it, and more."""
    return bool(seen) and len(said) > len(seen) and said[: len(seen)] == seen


def _newest_turn(messages: Sequence[dict[str, Any]]) -> int:
    """Where the conversation's newest user message is (instructions after it aside; all of it, when it does not end
    with one)."""
    position = newest(messages)
    if position is not None and messages[position].get("role") == "user":
        return position
    return len(messages)


def _digest(position: int, message: dict[str, Any]) -> bytes:
    data = orjson.dumps([position, message.get("content")], option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, digest_size=16).digest()
