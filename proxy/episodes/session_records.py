"""What a person sees of their sessions: the live ones and the past ones history knows, and for one session what it
said, what it was given and why.

A session is live while this process tracks it (:class:`~.sessions.SessionTracker`); once it ended (or when it ran
on another process) what is left of it is its lines in history, its block and notes while the shared session state
(PostgreSQL) or this process's recall still holds them, and its episode. Everything here is the caller's own: a
session id is looked up under the caller's user and workspace only, so another user's session is never found.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..memory.caller import Identity
from ..memory.episodes import Episode, episode_id
from ..memory.given import Given
from ..memory.history import HistoryLine, SessionSummary
from ..memory.pages import DEFAULT_LIMIT, Page, page
from ..memory.records import format_ts
from ..memory.store import Owner
from .service import EpisodeService, SessionNotFound
from .sessions import Session


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What is known of a session: from its live record, from history, or both."""

    id: str
    workspace: str
    live: bool  # tracked by this process now
    started_at: float | None  # None: neither live nor in history (known only by its block or episode)
    last_seen: float | None
    turns: int
    model: str | None  # known while it is live
    tools: tuple[str, ...]
    untrusted: bool
    sources: tuple[str, ...]

    @property
    def key(self) -> tuple[float, str]:
        return (self.last_seen or 0.0, self.id)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "workspace": self.workspace,
            "live": self.live,
            "state": "active" if self.live else "ended",
            "turns": self.turns,
            "model": self.model,
            "started_at": None if self.started_at is None else format_ts(self.started_at),
            "last_seen": None if self.last_seen is None else format_ts(self.last_seen),
            "tools": list(self.tools),
            "untrusted": self.untrusted,
            "sources": list(self.sources),
        }


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One session: what is known of it, what it was given and why, what it said, and its episode."""

    info: SessionInfo
    given: Given | None  # None: no block or notes known here (never chosen here, or its state is gone)
    lines: list[HistoryLine]
    episode: Episode | None

    def to_json(self) -> dict[str, Any]:
        given = self.given
        return {
            "session": self.info.to_json(),
            "block": given.block_json() if given is not None else None,
            "notes": [note.to_json() for note in given.notes] if given is not None else [],
            "turns": [
                {"turn": line.turn, "role": line.role, "ts": format_ts(line.ts), "text": line.text}
                for line in self.lines
            ],
            "episode": None if self.episode is None else {"id": self.episode.id, "held": self.episode.provenance.held},
        }


def info_of(workspace: str, live: Session | None, past: SessionSummary | None) -> SessionInfo:
    """A session's info from its live record and its history (either may be missing, not both)."""
    if live is None:
        assert past is not None
        return SessionInfo(
            past.session, workspace, False, past.first, past.last, past.turns, None, past.tools, past.untrusted,
            past.sources,
        )  # fmt: skip
    started, turns, tools = live.started_at, live.turns, set(live.tools)
    if past is not None:
        started, turns = min(started, past.first), max(turns, past.turns)
        tools.update(past.tools)
    provenance = live.provenance
    return SessionInfo(
        live.id, workspace, True, started, live.last_seen, turns, live.model, tuple(sorted(tools)),
        provenance.untrusted, provenance.sources,
    )  # fmt: skip


class SessionRecords:
    def __init__(self, episodes: EpisodeService) -> None:
        self.episodes = episodes

    async def page(
        self, caller: Identity, *, limit: int = DEFAULT_LIMIT, before: str | None = None, live: bool | None = None
    ) -> Page[SessionInfo]:
        """The caller's sessions in this workspace, live ones and the past ones history holds, most recently seen
        first. ``live``: only the live (True) or only the ended (False) ones."""
        current = {s.id: s for s in self.episodes.sessions.of(caller.user, caller.workspace)}
        past = {s.session: s for s in await self._history(caller)}
        infos = [info_of(caller.workspace, current.get(i), past.get(i)) for i in {*current, *past}]
        if live is not None:
            infos = [info for info in infos if info.live is live]
        return page(infos, _key, limit=limit, before=before)

    async def get(self, caller: Identity, session_id: str) -> SessionRecord:
        """One of the caller's sessions; :class:`SessionNotFound` when nothing of it is known here."""
        live = self.episodes.sessions.get(caller.user, caller.workspace, session_id)
        history = self.episodes.history
        lines = await history.session_lines(caller, session_id) if history is not None else []
        past = None
        if lines:
            past = next((s for s in await self._history(caller) if s.session == session_id), None)
        given = await self.episodes.memory.given(caller, session_id)
        index = await self.episodes.store.view(Owner(caller.user, caller.workspace))
        episode = index.get(episode_id(caller.user, caller.workspace, session_id))
        if live is None and past is None and given is None and episode is None:
            raise SessionNotFound(f"no session {session_id!r} here", param="session_id")
        if live is None and past is None:
            info = SessionInfo(session_id, caller.workspace, False, None, None, episode.turns if episode else 0,
                               None, (), episode.provenance.untrusted if episode else False,
                               episode.provenance.sources if episode else ())  # fmt: skip
        else:
            info = info_of(caller.workspace, live, past)
        return SessionRecord(info, given, lines, episode)

    async def _history(self, caller: Identity) -> list[SessionSummary]:
        history = self.episodes.history
        return await history.sessions(caller) if history is not None else []


def _key(info: SessionInfo) -> tuple[float, str]:
    return info.key
