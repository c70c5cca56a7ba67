"""Hybrid ranking: the lexical ranking fused with cosine similarity of embeddings. Pure, no numpy.

Weighted fusion in the lexical score's own unit: cosine above ``SEMANTIC_FLOOR`` adds up to ``SEMANTIC_WEIGHT``
times what one rare word found in one memory scores (BM25's idf of a word in one memory of ``count``). So a
memory that shares no word with the question ("I moved to Lisbon" for "which city do I live in") still ranks,
and the floors recall applies to lexical scores (a block entry's share of the best, a note's "clear match")
keep meaning what they meant. Reciprocal-rank fusion is here too, for the benchmark to compare; its scores have
no such unit, which is why recall does not use it. The constants were tuned on the dev split of
``bench/retrieval/conversations`` (``bench/retrieval/hybrid.py``), never on its test split.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Protocol

from .ranking import MemoryIndex, Scored
from .records import Embedding, Memory

# On the dev split recall@10 plateaus (0.89-0.90) for weights from 3 up and floors up to 0.2; lexical alone is 0.52.
# These two are within a point of the best there, and keep a cosine under 0.2 (unrelated sentences, for
# all-MiniLM-L6-v2) from adding anything, so weakly related memories do not make notes on their own.
SEMANTIC_FLOOR = 0.2  # cosine at or below this is no evidence
SEMANTIC_WEIGHT = 8.0  # a cosine of 1 scores like this many rare words
RRF_K = 60


class Semantic(Protocol):
    """One request's query embedding, bound to the owners' memory vectors (:mod:`.embeddings`)."""

    def fuse(
        self, lexical: list[Scored], views: Sequence[MemoryIndex], *, limit: int, visible: Callable[[Memory], bool]
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
    weight: float = SEMANTIC_WEIGHT,
    floor: float = SEMANTIC_FLOOR,
) -> list[Scored]:
    """Lexical score plus ``weight * unit`` times the cosine's share above ``floor``; ``semantic`` scores are
    cosines. A memory found by one side only gets that side's part."""
    scores: dict[str, float] = {}
    memories: dict[str, Memory] = {}
    for scored in lexical:
        scores[scored.memory.id] = scored.score
        memories[scored.memory.id] = scored.memory
    for scored in semantic:
        if scored.score > floor:
            bonus = weight * unit * (scored.score - floor) / (1 - floor)
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
