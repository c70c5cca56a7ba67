"""Hybrid ranking: the lexical scores fused with the cosine similarity of embeddings. Pure, no numpy.

Weighted fusion in the lexical score's own unit, inside :meth:`~.ranking.MemoryIndex.rank`: a cosine above
``SEMANTIC_FLOOR`` adds up to ``SEMANTIC_WEIGHT`` times the query's best lexical score, or what
``SEMANTIC_RARE_WORDS`` rare words found in one memory score (BM25's idf of a word in one memory of the index) when
the words found less. So a memory that shares no word with the question ("I moved to Lisbon" for "which city do I
live in") still ranks and clears a note's floor, a question whose words match well is not outvoted by vague meaning,
and the floors recall applies (a block entry's share of the best, a note's "clear match") keep meaning what they
meant. Fused before a month the query names lifts the memories saved in it and before memories lend to those saved
beside them: the model cannot tell March from September, and what meaning finds lends to its neighbours as what
words find does. Every memory either side ranks near the top gets both parts; before, a memory among the best by
words but not among the nearest in meaning got none of its cosine, and the fused ranking fell below the lexical one
on LoCoMo (0.595 against 0.650 recall@10, ``bench/retrieval/public.py``). Reciprocal-rank fusion is here too, for
the benchmarks to compare; its scores have no such unit, which is why recall does not use it. The constants were
tuned on LoCoMo's tune split (``bench/retrieval/public.py``: weight 0.6 / 1 / 1.5 / 2.5 gave recall@10 0.705 /
0.718 / 0.721 / 0.711 through the injection path; three rare words rather than one, 0.741 against 0.738) and
checked on the dev split of ``bench/retrieval/conversations`` (``hybrid.py``).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence

from .ranking import Scored
from .records import Embedding, Memory

SEMANTIC_FLOOR = 0.1  # cosine at or below this is no evidence (all-MiniLM-L6-v2 gives unrelated sentences 0-0.15)
SEMANTIC_WEIGHT = 1.0  # a cosine of 1 scores like the query's best lexical match...
SEMANTIC_RARE_WORDS = 3.0  # ...or like this many rare words, when the words found less
RRF_K = 60


def rare_word_score(count: int) -> float:
    """BM25's idf of a word found in one memory of ``count``: the least unit semantic evidence is measured in."""
    return math.log(1 + (max(count, 1) - 0.5) / 1.5)


def fuse_scores(
    lexical: Mapping[str, float],
    cosines: Mapping[str, float],
    *,
    unit: float,
    weight: float = SEMANTIC_WEIGHT,
    floor: float = SEMANTIC_FLOOR,
    rare_words: float = SEMANTIC_RARE_WORDS,
) -> dict[str, float]:
    """Each memory's lexical score (0 for none) plus ``weight`` times the larger of ``rare_words`` times ``unit``
    and the best lexical score, times its cosine's share above ``floor``; by memory id, for the memories either side
    scored."""
    scale = weight * max(rare_words * unit, max(lexical.values(), default=0.0)) / (1 - floor)
    fused = dict(lexical)
    for memory_id, similarity in cosines.items():
        if similarity > floor:
            fused[memory_id] = fused.get(memory_id, 0.0) + scale * (similarity - floor)
    return fused


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
