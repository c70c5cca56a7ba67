"""Hybrid ranking: the lexical ranking fused with cosine similarity of embeddings. Pure, no numpy.

Weighted fusion in the lexical score's own unit: cosine above ``SEMANTIC_FLOOR`` adds up to ``SEMANTIC_WEIGHT``
times what one rare word found in one memory scores (BM25's idf of a word in one memory of ``count``). So a
memory that shares no word with the question ("I moved to Lisbon" for "which city do I live in") still ranks,
and the floors recall applies to lexical scores (a block entry's share of the best, a note's "clear match")
keep meaning what they meant. What the query alone says about a memory (a month it names lifts the memories
saved in that month, :meth:`~.ranking.Query.lift`) multiplies the semantic part as it does the lexical one: the
model cannot tell March from September, and a bonus the lift left out would drown the month it found. Reciprocal-
rank fusion is here too, for the benchmark to compare; its scores have no such unit, which is why recall does not
use it. The constants were tuned on the dev split of ``bench/retrieval/conversations``
(``bench/retrieval/hybrid.py``), never on its test split.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Protocol

from .ranking import MemoryIndex, Query, Scored
from .records import Embedding, Memory

# On the dev split (lexical alone: recall@5 0.625, @10 0.731; cosine alone 0.740 / 0.884) fusion's recall@10 peaks
# at 0.91 for weights 2.5-2.75 with no floor, and stays within 1.5 points of it for weights 2.5-3.5 with a floor
# of 0.1. A floor keeps what all-MiniLM-L6-v2 gives unrelated sentences from adding anything, and with these two
# a memory needs a cosine above 0.25 to clear a note's floor (half a rare word) on its own, as before the retune.
# Heavier weights trade recall@10 for recall@5 (weight 8: 0.786 / 0.889) by letting meaning outvote a named month.
SEMANTIC_FLOOR = 0.1  # cosine at or below this is no evidence
SEMANTIC_WEIGHT = 3.0  # a cosine of 1 scores like this many rare words
RRF_K = 60


class Semantic(Protocol):
    """One request's query embedding, bound to the owners' memory vectors (:mod:`.embeddings`)."""

    def fuse(
        self,
        lexical: list[Scored],
        views: Sequence[MemoryIndex],
        *,
        query: Query,
        limit: int,
        visible: Callable[[Memory], bool],
    ) -> list[Scored]: ...


def rare_word_score(count: int) -> float:
    """BM25's idf of a word found in one memory of ``count``: the unit semantic evidence is measured in."""
    return math.log(1 + (max(count, 1) - 0.5) / 1.5)


def fuse_weighted(
    lexical: Sequence[Scored],
    semantic: Sequence[Scored],
    *,
    unit: float,
    limit: int,
    query: Query | None = None,
    weight: float = SEMANTIC_WEIGHT,
    floor: float = SEMANTIC_FLOOR,
) -> list[Scored]:
    """Lexical score plus ``weight * unit`` times the cosine's share above ``floor``, that times ``query``'s lift
    of the memory (the lexical score has it already); ``semantic`` scores are cosines. A memory found by one side
    only gets that side's part."""
    scores: dict[str, float] = {}
    memories: dict[str, Memory] = {}
    for scored in lexical:
        scores[scored.memory.id] = scored.score
        memories[scored.memory.id] = scored.memory
    for scored in semantic:
        if scored.score > floor:
            bonus = weight * unit * (scored.score - floor) / (1 - floor)
            if query is not None:
                bonus *= query.lift(scored.memory)
            scores[scored.memory.id] = scores.get(scored.memory.id, 0.0) + bonus
            memories.setdefault(scored.memory.id, scored.memory)
    best = sorted(scores.items(), key=lambda item: item[1], reverse=True)[:limit]
    return [Scored(memories[memory_id], score) for memory_id, score in best]


def fuse_reciprocal_rank(
    lexical: Sequence[Scored], semantic: Sequence[Scored], *, limit: int, k: int = RRF_K
) -> list[Scored]:
    """Reciprocal-rank fusion: the sum of ``1 / (k + rank)`` over both rankings (ranks from 1)."""
    scores: dict[str, float] = {}
    memories: dict[str, Memory] = {}
    for ranking in (lexical, semantic):
        for rank, scored in enumerate(ranking, 1):
            scores[scored.memory.id] = scores.get(scored.memory.id, 0.0) + 1 / (k + rank)
            memories.setdefault(scored.memory.id, scored.memory)
    best = sorted(scores.items(), key=lambda item: item[1], reverse=True)[:limit]
    return [Scored(memories[memory_id], score) for memory_id, score in best]


def cosine(a: Embedding, b: Embedding) -> float | None:
    """Cosine similarity of two stored embeddings; None when they come from different models or sizes.

    For a handful of comparisons (write quality's near-duplicate check): plain Python, no numpy loaded.
    """
    if a.model != b.model or len(a.vector) != len(b.vector):
        return None
    n = len(a.vector) // 2
    x, y = struct.unpack(f"<{n}e", a.vector), struct.unpack(f"<{n}e", b.vector)
    dot = sum(p * q for p, q in zip(x, y, strict=True))
    norm = math.sqrt(sum(p * p for p in x) * sum(q * q for q in y))
    return dot / norm if norm else 0.0
