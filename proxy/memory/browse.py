"""Browsing a caller's memories for a person: filters, pages, and search that says why each memory matched. Pure.

The management API's ``GET /memory/memories`` and the console both read memories through this, so a filter or a page
means the same on both. Search ranks with the block's own ranking (:meth:`MemoryIndex.rank`, fused with embeddings
when they are on) over every match, not a top few, so a filter applied after ranking still sees all of them; each
result carries its score and the query's words it matched. A memory whose text holds the query as a plain substring
and shares no ranked word with it ("gres" in "Postgres") follows the ranked ones, unscored.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from weakref import WeakKeyDictionary

from .ranking import MemoryIndex, Query, Scored, Semantic, terms
from .records import Memory

RANK_WINDOW = 200  # a search ranks this many best matches of each owner (more for a page past them), filters them after


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

    @property
    def narrows(self) -> bool:
        """Whether any filter but ``held`` is set (else every memory of the list is admitted, unchecked)."""
        return any(v is not None for v in (self.tag, self.category, self.origin, self.scope, self.pinned, self.session))

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
    capped: bool = False  # more memories matched the query than the ranking window holds: total counts those in it

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
    semantic: Semantic | None = None,
) -> Page:
    """One page of the memories in ``views`` (the owners the caller may read) that ``filters`` admit: with a query,
    best match first; else (and for held memories, which are never ranked) newest first.

    A search ranks the best ``RANK_WINDOW`` matches of each owner (or as many as the page needs): ranking every match
    of a question over 10,000 memories cost a page more than its 100 ms. Past the window ``capped`` says so."""
    admits = filters.admits if filters.narrows else None
    if filters.held or not query or not query.strip():
        found = _newest([view.held() if filters.held else view.newest() for view in views])
        if filters.held and query:
            needle = query.casefold()
            found = [m for m in found if needle in m.text.casefold()]
        if admits is not None:
            found = [m for m in found if admits(m)]
        return _page([(m, None) for m in found[offset : offset + limit]], len(found), offset, limit, query)
    ranking = Query.of(query, now)
    window = max(RANK_WINDOW, offset + limit)
    each = [view.rank(ranking, now=now, limit=window, semantic=semantic) for view in views]
    ranked = [scored for found in each for scored in found]
    ranked.sort(key=_score, reverse=True)
    listed: list[tuple[Memory, float | None]] = [
        (s.memory, s.score) for s in ranked if admits is None or admits(s.memory)
    ]
    seen = {memory.id for memory, _ in listed}
    needle = query.casefold()
    hits = [m for view in views for m in _containing(view, needle) if m.id not in seen]
    listed += [(m, None) for m in sorted(hits, key=_age, reverse=True) if admits is None or admits(m)]
    capped = any(len(found) == window for found in each)
    return _page(listed[offset : offset + limit], len(listed), offset, limit, query, capped=capped)


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


def _newest(lists: list[list[Memory]]) -> list[Memory]:
    """Memories newest first, from lists each newest first (most lists but one are empty: that one, as it is)."""
    filled = [memories for memories in lists if memories]
    if len(filled) == 1:
        return filled[0]
    return sorted(chain.from_iterable(filled), key=_age, reverse=True)


def _age(memory: Memory) -> tuple[float, int]:
    return memory.created, memory.number


def _score(scored: Scored) -> float:
    return scored.score


# Each index's live memories' texts, case-folded and joined (one search for a substring in all of them is one
# str.find, in C), kept while the index stays as it is: folding 10,000 texts for each search cost more than ranking.
_SEPARATOR = "\x00"
_folded: WeakKeyDictionary[MemoryIndex, tuple[int, str, list[int], list[Memory]]] = WeakKeyDictionary()


def _containing(view: MemoryIndex, needle: str) -> list[Memory]:
    """The live memories of ``view`` whose text holds ``needle`` (case-folded)."""
    if not needle or _SEPARATOR in needle:
        return []
    cached = _folded.get(view)
    if cached is None or cached[0] != view.version:
        memories = view.newest()
        texts = [m.text.casefold().replace(_SEPARATOR, " ") for m in memories]
        starts, at = [], 0
        for text in texts:
            starts.append(at)
            at += len(text) + 1
        cached = _folded[view] = (view.version, _SEPARATOR.join(texts), starts, memories)
    _, joined, starts, memories = cached
    found = []
    position = joined.find(needle)
    while position != -1:  # the separator is in no needle, so a match lies within one text
        which = bisect_right(starts, position) - 1
        found.append(memories[which])
        following = starts[which + 1] if which + 1 < len(starts) else len(joined)
        position = joined.find(needle, following)
    return found


def _page(
    items: list[tuple[Memory, float | None]],
    total: int,
    offset: int,
    limit: int,
    query: str | None,
    *,
    capped: bool = False,
) -> Page:
    """The page shown; with a query, the words each of its memories matched (worked out for these only)."""
    listed = [Listed(m, score, matched_words(query, m) if query else ()) for m, score in items]
    return Page(listed, total, offset, limit, capped)
