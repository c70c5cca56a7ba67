"""Browsing a caller's memories for a person: filters, pages, and search that says why each memory matched. Pure.

The management API's ``GET /memory/memories`` and the console both read memories through this, so a filter or a page
means the same on both. Search ranks with the block's own ranking (:meth:`MemoryIndex.rank`, fused with embeddings
when they are on) over every match, not a top few, so a filter applied after ranking still sees all of them; each
result carries its score and the query's words it matched. A memory whose text holds the query as a plain substring
and shares no ranked word with it ("gres" in "Postgres") follows the ranked ones, unscored.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .ranking import MemoryIndex, Query, Scored, terms
from .records import Memory

Fuse = Callable[[list[Scored], Query], list[Scored]]  # semantic fusion of the lexical ranking, when embeddings are on


@dataclass(frozen=True, slots=True)
class Filters:
    """What a person narrows a list to; None: any. ``held``: only held memories, else only memories that are not."""

    tag: str | None = None
    category: str | None = None
    origin: str | None = None
    scope: str | None = None
    pinned: bool | None = None
    session: str | None = None
    held: bool = False

    def admits(self, memory: Memory) -> bool:
        return (
            (self.tag is None or self.tag in memory.tags)
            and (self.category is None or memory.category == self.category)
            and (self.origin is None or memory.origin == self.origin)
            and (self.scope is None or memory.scope == self.scope)
            and (self.pinned is None or memory.pinned == self.pinned)
            and (self.session is None or memory.session == self.session)
        )


@dataclass(frozen=True, slots=True)
class Listed:
    """A memory in a list; with a query, its score (None: a substring hit) and the query's words it matched."""

    memory: Memory
    score: float | None = None
    matched: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Page:
    items: list[Listed]
    total: int  # how many match, on every page
    offset: int
    limit: int

    @property
    def next_offset(self) -> int | None:
        following = self.offset + self.limit
        return following if following < self.total else None


def browse(
    views: Sequence[MemoryIndex],
    query: str | None,
    filters: Filters,
    *,
    now: float,
    offset: int = 0,
    limit: int = 20,
    fuse: Fuse | None = None,
) -> Page:
    """One page of the memories in ``views`` (the owners the caller may read) that ``filters`` admit: with a query,
    best match first; else (and for held memories, which are never ranked) newest first."""
    if filters.held:
        found = [m for m in _newest(view.held() for view in views) if filters.admits(m)]
        if query:
            needle = query.casefold()
            found = [m for m in found if needle in m.text.casefold()]
        return _page([Listed(m) for m in found], offset, limit, query)
    if not query or not query.strip():
        found = [m for m in _newest(view.newest() for view in views) if filters.admits(m)]
        return _page([Listed(m) for m in found], offset, limit, None)
    ranking = Query.of(query)
    ranked = [scored for view in views for scored in view.rank(ranking, now=now, limit=len(view))]
    ranked.sort(key=lambda scored: scored.score, reverse=True)
    if fuse is not None:
        ranked = fuse(ranked, ranking)
    listed = [Listed(s.memory, s.score) for s in ranked if filters.admits(s.memory)]
    seen = {item.memory.id for item in listed}
    needle = query.casefold()
    for memory in _newest(view.newest() for view in views):
        if memory.id not in seen and needle in memory.text.casefold() and filters.admits(memory):
            listed.append(Listed(memory))
    return _page(listed, offset, limit, query)


def matched_words(query: str, memory: Memory) -> tuple[str, ...]:
    """The query's words (as typed, lower-cased) that the memory's text, tags or category hold, stem for stem."""
    held = set(terms(memory.text)) | set(terms(" ".join((*memory.tags, memory.category))))
    words: dict[str, None] = {}
    for word in query.split():
        stems = terms(word)
        if stems and any(stem in held for stem in stems):
            words[word.strip(".,;:!?\"'()[]{}").lower()] = None
    return tuple(words)


def find(views: Iterable[MemoryIndex], memory_id: str) -> Memory | None:
    """The memory with this id among ``views``, held or superseded ones too (a person's view of it)."""
    for view in views:
        memory = view.get(memory_id)
        if memory is not None:
            return memory
    return None


def superseded_by(views: Iterable[MemoryIndex], memory_id: str) -> list[Memory]:
    """The memories ``memory_id`` replaced (their ``superseded_by`` names it), newest first."""
    replaced = [memory for view in views for memory in view if memory.superseded_by == memory_id]
    return sorted(replaced, key=lambda m: (m.created, m.number), reverse=True)


def _newest(lists: Iterable[list[Memory]]) -> Iterable[Memory]:
    """Lists each newest first, merged into one newest first."""
    return heapq.merge(*lists, key=lambda m: (m.created, m.number), reverse=True)


def _page(listed: list[Listed], offset: int, limit: int, query: str | None) -> Page:
    items = listed[offset : offset + limit]
    if query:  # the words each matched: worked out for the page shown, not for every match
        items = [Listed(i.memory, i.score, matched_words(query, i.memory)) for i in items]
    return Page(items, len(listed), offset, limit)
