"""What an episode is: the summary and durable facts an LLM extracted from one finished session.

An episode belongs to one :class:`~proxy.memory.store.Owner` (a user in a workspace, never user-wide or
global). One session gives at most one episode: its id is a hash of (user, workspace, session), so an
extraction that runs twice replaces its own episode instead of adding another. Episodes from sessions
that called untrusted tools are kept for audit but are not *replayable* (injected into prompts, returned
by search) until a person approves them: what such a tool returned may be an attacker's text.

:class:`EpisodeStore` is the storage contract; it lives here, beside the types it speaks, so that callers
never import a backend (``episode_files.FilesEpisodes`` is the files one).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

import orjson

from .provenance import Provenance, strings
from .ranking import MemoryIndex, Query
from .records import Memory, format_ts, parse_ts
from .store import Owner

# Ids become file names, so only this shape is accepted from disk or by a store.
EPISODE_ID = re.compile(r"e-[0-9a-f]{16}")


def episode_id(user: str, workspace: str, session_id: str) -> str:
    """One session, one episode. The three are JSON-encoded, so no choice of separator can be forged."""
    key = orjson.dumps([user, workspace, session_id])
    return "e-" + hashlib.sha256(key).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Episode:
    id: str  # episode_id(user, workspace, session_id)
    session_id: str
    user: str
    workspace: str
    turns: int
    created_at: float  # epoch seconds; ISO-8601 on disk
    summary: str
    facts: tuple[str, ...]
    provenance: Provenance = Provenance()
    job: str | None = None  # the extraction job that wrote it: a job that runs twice finds its own episode
    model: str | None = None  # the model that extracted it

    @property
    def owner(self) -> Owner:
        return Owner(self.user, self.workspace)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "session_id": self.session_id,
            "user": self.user,
            "workspace": self.workspace,
            "turns": self.turns,
            "created_at": format_ts(self.created_at),
            "summary": self.summary,
            "facts": list(self.facts),
            "provenance": self.provenance.to_json(),
            "job": self.job,
            "model": self.model,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Episode:
        """Read a stored episode; ValueError for anything malformed. Messages never quote the user's text."""
        if not isinstance(obj, Mapping):
            raise ValueError("an episode must be a JSON object")
        ident = _required(obj, "id")
        if not EPISODE_ID.fullmatch(ident):
            raise ValueError("id must look like e-<16 hex digits>")
        turns = obj.get("turns")
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
            raise ValueError("turns must be a non-negative integer")
        if obj.get("created_at") is None:
            raise ValueError("created_at is required")
        try:
            created_at = parse_ts(obj["created_at"])
        except ValueError:
            raise ValueError("created_at must be an ISO-8601 time") from None
        return cls(
            id=ident,
            session_id=_required(obj, "session_id"),
            user=_required(obj, "user"),
            workspace=_required(obj, "workspace"),
            turns=turns,
            created_at=created_at,
            summary=_required(obj, "summary"),
            facts=strings(obj, "facts", "facts", required=True),
            provenance=Provenance.from_json(obj.get("provenance")),
            job=_optional(obj, "job"),
            model=_optional(obj, "model"),
        )

    def approved(self) -> Episode:
        """A person vouched for it: it may be replayed even though untrusted tools fed the session."""
        return replace(self, provenance=self.provenance.approved())


def _required(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _optional(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string or null")
    return value


class EpisodeIndex:
    """One owner's episodes, for the block and search. Immutable: a change is a new index."""

    def __init__(self, episodes: Iterable[Episode] = ()) -> None:
        by_id = {episode.id: episode for episode in episodes}  # the last of an id wins
        self._all = sorted(by_id.values(), key=lambda e: (e.created_at, e.id), reverse=True)
        self._by_id = {episode.id: episode for episode in self._all}
        self._replayable = [episode for episode in self._all if episode.provenance.replayable]
        # Only replayable episodes are indexed: the others cannot be found, whatever the query.
        self._words = MemoryIndex(_as_memory(episode) for episode in self._replayable)
        # Recency is relative to the newest episode, not the clock: ranking stays pure and repeatable.
        self._now = self._replayable[0].created_at if self._replayable else 0.0

    def __len__(self) -> int:
        """How many episodes, replayable or not."""
        return len(self._all)

    def __iter__(self) -> Iterator[Episode]:
        """Every episode, held ones included (for audit), newest first."""
        return iter(self._all)

    def get(self, episode_id: str) -> Episode | None:
        return self._by_id.get(episode_id)

    def replayable(self) -> list[Episode]:
        """The episodes that may reach a prompt, newest first."""
        return list(self._replayable)

    def newest(self, n: int) -> list[Episode]:
        """The ``n`` newest replayable episodes."""
        return self._replayable[: max(n, 0)]

    def rank(self, text: str, *, limit: int) -> list[Episode]:
        """The replayable episodes that share a word with ``text`` (summary and facts), best first."""
        scored = self._words.rank(Query.of(text), now=self._now, limit=limit)
        return [self._by_id[s.memory.id] for s in scored]

    def scored(self, text: str, *, limit: int) -> list[tuple[Episode, float, tuple[str, ...]]]:
        """As :meth:`rank`, each with its score and the query's terms it matched: why a block shows it."""
        query = Query.of(text)
        positions = {term: place for place, term in enumerate(query.terms)}
        found = []
        for s in self._words.rank(query, now=self._now, limit=limit):
            found.append((self._by_id[s.memory.id], s.score, self._words.matched(positions, s.memory.id) or ()))
        return found


def _as_memory(episode: Episode) -> Memory:
    """The memory ranking scores: one text of the summary and the facts.

    No category: ranking counts a memory's category as a word, and "fact" would then match every episode.
    """
    text = " ".join((episode.summary, *episode.facts))
    return Memory(id=episode.id, text=text, category="", created=episode.created_at)


class EpisodeStore(Protocol):
    """Async storage of episodes per (user, workspace) owner. Every method may raise ``StoreUnavailable``;
    one given a user-wide or global owner, or an episode that is not the owner's, raises ValueError."""

    async def put(self, owner: Owner, episode: Episode) -> None:
        """Store an episode, replacing the one with its id; durable (survives a crash) once it returns."""
        ...

    async def delete(self, owner: Owner, episode_id: str) -> bool:
        """Remove an episode for good; True if it was there."""
        ...

    async def view(self, owner: Owner) -> EpisodeIndex:
        """The owner's episodes as of now."""
        ...

    def cached(self, owner: Owner) -> EpisodeIndex | None:
        """The owner's episodes if known to be current without waiting (a stat or two), else None: call ``view``."""
        ...

    async def aclose(self) -> None: ...
