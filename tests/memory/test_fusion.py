"""Fusing the lexical ranking with cosine similarity: pure, no model."""

from __future__ import annotations

import struct

import pytest

from proxy.memory.fusion import cosine, fuse_reciprocal_rank, fuse_weighted, rare_word_score
from proxy.memory.ranking import Scored
from proxy.memory.records import Embedding, Memory


def memory(n: int) -> Memory:
    return Memory(id=f"m-{n}", text=f"memory {n}")


def test_a_memory_sharing_no_word_ranks_by_meaning_alone() -> None:
    lexical = [Scored(memory(1), 3.0)]
    semantic = [Scored(memory(2), 0.6), Scored(memory(1), 0.1)]
    fused = fuse_weighted(lexical, semantic, unit=2.0, limit=10, weight=2.0, floor=0.2)
    assert [s.memory.id for s in fused] == [memory(1).id, memory(2).id]
    assert fused[1].score == pytest.approx(2.0 * 2.0 * (0.6 - 0.2) / 0.8)  # in the lexical score's unit
    assert fused[0].score == 3.0  # a cosine under the floor adds nothing


def test_meaning_and_words_together_beat_either_alone() -> None:
    lexical = [Scored(memory(1), 2.0), Scored(memory(2), 1.9)]
    semantic = [Scored(memory(2), 0.7), Scored(memory(3), 0.75)]
    fused = fuse_weighted(lexical, semantic, unit=1.0, limit=2, weight=2.0, floor=0.2)
    assert [s.memory.id for s in fused] == [memory(2).id, memory(1).id]  # and the limit holds


def test_nothing_from_either_side_is_nothing() -> None:
    assert fuse_weighted([], [Scored(memory(1), 0.05)], unit=5.0, limit=5) == []
    assert fuse_reciprocal_rank([], [], limit=5) == []


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    lexical = [Scored(memory(1), 9.0), Scored(memory(2), 8.0), Scored(memory(3), 1.0)]
    semantic = [Scored(memory(2), 0.9), Scored(memory(3), 0.8)]
    fused = fuse_reciprocal_rank(lexical, semantic, limit=3, k=60)
    assert [s.memory.id for s in fused] == [memory(2).id, memory(3).id, memory(1).id]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_the_unit_grows_with_the_number_of_memories() -> None:
    assert rare_word_score(10) < rare_word_score(1000)
    assert rare_word_score(0) > 0


def f16(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}e", *values)


def test_cosine_of_stored_embeddings() -> None:
    a = Embedding("m", f16(1.0, 0.0, 0.0))
    assert cosine(a, Embedding("m", f16(2.0, 0.0, 0.0))) == pytest.approx(1.0)
    assert cosine(a, Embedding("m", f16(0.0, 1.0, 0.0))) == pytest.approx(0.0)
    assert cosine(a, Embedding("m", f16(1.0, 1.0, 0.0))) == pytest.approx(0.7071, abs=1e-3)
    assert cosine(a, Embedding("other", f16(1.0, 0.0, 0.0))) is None  # never compared across models
    assert cosine(a, Embedding("m", f16(1.0, 0.0))) is None
