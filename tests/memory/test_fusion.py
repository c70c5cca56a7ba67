"""Fusing the lexical ranking with cosine similarity: pure, no model."""

from __future__ import annotations

import struct

import pytest

from proxy.memory.fusion import cosine, fuse_reciprocal_rank, fuse_weighted, rare_word_score
from proxy.memory.ranking import MemoryIndex, Query, Scored
from proxy.memory.records import Embedding, Memory, parse_ts


def memory(n: int, created: float = 0.0) -> Memory:
    return Memory(id=f"m-{n}", text=f"memory {n}", created=created)


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


def test_a_month_the_question_names_lifts_what_meaning_found_as_it_lifts_what_words_found() -> None:
    march, september = parse_ts("2026-03-14T10:00:00Z"), parse_ts("2026-09-20T10:00:00Z")
    in_march = Memory(id="m-1", text="Decided to replace cron jobs with a queue for Jasper", created=march)
    in_september = Memory(id="m-2", text="Decided to move all secrets into Vault for Jasper", created=september)
    query = Query.of("In March, what call did I make regarding Jasper?")
    lexical = MemoryIndex([in_march, in_september]).rank(query, now=september, limit=10)
    assert [s.memory.id for s in lexical] == ["m-1", "m-2"]  # the named month lifts March's decision
    semantic = [Scored(in_september, 0.7), Scored(in_march, 0.6)]  # the model cannot tell the months apart
    fused = fuse_weighted(lexical, semantic, unit=4.0, query=query, limit=10)
    assert [s.memory.id for s in fused] == ["m-1", "m-2"]
    unlifted = fuse_weighted(lexical, semantic, unit=4.0, limit=10)
    assert [s.memory.id for s in unlifted] == ["m-2", "m-1"]  # without the lift, meaning outvotes the month


def test_only_a_named_month_lifts() -> None:
    query = Query.of("what call did I make regarding Jasper?")
    assert query.lift(memory(1, parse_ts("2026-03-14T10:00:00Z"))) == 1.0
    fused = fuse_weighted([], [Scored(memory(1), 0.6)], unit=1.0, query=query, limit=5, weight=2.0, floor=0.2)
    assert fused[0].score == pytest.approx(2.0 * (0.6 - 0.2) / 0.8)


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
