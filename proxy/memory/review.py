"""The review queue: what waits for a person's approval, newest first, each with the evidence that held it.

A memory or an episode is held when the session that wrote it took in untrusted content (DESIGN "Provenance").
The queue shows, for each, the untrusted tools that session called (its provenance's ``sources``), the session,
and an excerpt of its history around the first call to one of them (:mod:`.evidence`); for an episode also each of
its facts with what approving it would do to the live memories (:meth:`MemoryService.foresee`: a dry run by the
write path's own similarity and bands). Approving and rejecting are the service's (``approve``, ``reject``) and the
episode service's. Global held memories are in an admin's queue only: nobody else can act on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import MemoryNotFound
from .caller import Identity
from .episodes import Episode
from .evidence import Cited, excerpt
from .history import HistoryLine
from .history_service import HistoryService
from .pages import DEFAULT_LIMIT, Page, page
from .records import Memory, format_ts
from .service import Foreseen, MemoryService
from .store import GLOBAL, Owner, owners_visible_to


@dataclass(frozen=True, slots=True)
class Evidence:
    session: str | None  # the session that wrote it
    sources: tuple[str, ...]  # the untrusted tools that session called
    excerpt: tuple[Cited, ...]  # [] when history holds nothing of the session (off, pruned, another workspace)

    def to_json(self) -> dict[str, Any]:
        return {"session": self.session, "sources": list(self.sources), "excerpt": [c.to_json() for c in self.excerpt]}


@dataclass(frozen=True, slots=True)
class Fact:
    """One of a held episode's facts and what approving the episode would do with it."""

    text: str
    foreseen: Foreseen

    def to_json(self) -> dict[str, Any]:
        memory, similarity = self.foreseen.memory, self.foreseen.similarity
        return {
            "text": self.text,
            "action": self.foreseen.action,
            "memory": None if memory is None else memory.to_json(),
            "similarity": None if similarity is None else round(similarity, 4),
        }


@dataclass(frozen=True, slots=True)
class HeldItem:
    kind: str  # memory | episode
    id: str
    at: float  # when it was written
    session: str | None
    sources: tuple[str, ...]
    memory: Memory | None = None
    episode: Episode | None = None

    @property
    def key(self) -> tuple[float, str]:
        return (self.at, self.id)


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A held item with its evidence (and, for an episode, its facts' outcomes)."""

    item: HeldItem
    evidence: Evidence
    facts: tuple[Fact, ...] = ()

    def to_json(self) -> dict[str, Any]:
        item = self.item
        body: dict[str, Any] = {"kind": item.kind, "id": item.id, "at": format_ts(item.at)}
        if item.memory is not None:
            body["memory"] = item.memory.to_json()
        if item.episode is not None:
            body["episode"] = item.episode.to_json()
            body["facts"] = [fact.to_json() for fact in self.facts]
        return {**body, "evidence": self.evidence.to_json()}


class ReviewQueue:
    def __init__(self, memory: MemoryService, history: HistoryService | None) -> None:
        self.memory = memory
        self.history = history

    async def page(
        self, caller: Identity, *, limit: int = DEFAULT_LIMIT, before: str | None = None, foresee: bool = True
    ) -> Page[Reviewed]:
        """The caller's held memories and episodes, newest first, each with its evidence. ``foresee``: with each
        held episode's facts' outcomes (False: none; :meth:`facts` gives one episode's, as a page asks for them)."""
        chosen = page(await self._held(caller), _key, limit=limit, before=before)
        lines: dict[str, list[HistoryLine]] = {}
        if self.history is not None:  # every cited session's lines, from one look at history
            lines = await self.history.lines_of(caller, [i.session for i in chosen.items if i.session is not None])
        texts = [text for item in chosen.items if item.episode is not None for text in item.episode.facts]
        outcomes = iter(await self.memory.foresee_all(caller, texts) if texts and foresee else [])
        reviewed = []
        for item in chosen.items:
            cited = excerpt(lines[item.session], item.sources) if item.session in lines else []
            facts: tuple[Fact, ...] = ()
            if item.episode is not None and foresee:
                facts = tuple(Fact(text, next(outcomes)) for text in item.episode.facts)
            reviewed.append(Reviewed(item, Evidence(item.session, item.sources, tuple(cited)), facts))
        return Page(reviewed, chosen.next)

    async def facts(self, caller: Identity, episode_id: str) -> tuple[Episode, tuple[Fact, ...]]:
        """One of the caller's episodes (held or not) and what approving it would do with each of its facts now;
        :class:`MemoryNotFound` for an episode that is not theirs."""
        episode = None
        if self.memory.episodes is not None:
            episode = (await self.memory.episodes.view(Owner(caller.user, caller.workspace))).get(episode_id)
        if episode is None:
            raise MemoryNotFound(f"no episode {episode_id!r} here", param="id")
        outcomes = await self.memory.foresee_all(caller, episode.facts) if episode.facts else []
        return episode, tuple(Fact(text, outcome) for text, outcome in zip(episode.facts, outcomes, strict=True))

    async def _held(self, caller: Identity) -> list[HeldItem]:
        items = []
        for owner in owners_visible_to(caller.user, caller.workspace):
            if owner == GLOBAL and not caller.admin:
                continue
            for memory in (await self.memory.store.view(owner)).held():
                session = memory.session if owner != GLOBAL else None  # a global one's session is its writer's
                sources = memory.provenance.sources
                items.append(HeldItem("memory", memory.id, memory.created, session, sources, memory=memory))
        if self.memory.episodes is not None:
            for episode in await self.memory.episodes.view(Owner(caller.user, caller.workspace)):
                if episode.provenance.held:
                    items.append(HeldItem("episode", episode.id, episode.created_at, episode.session_id,
                                          episode.provenance.sources, episode=episode))  # fmt: skip
        return items


def _key(item: HeldItem) -> tuple[float, str]:
    return item.key
