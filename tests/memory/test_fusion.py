"""Fusing the lexical scores with cosine similarity, inside the ranking: pure, no model."""

from __future__ import annotations

import struct
from collections.abc import Mapping

import pytest

from proxy.memory.fusion import SEMANTIC_FLOOR, cosine, fuse_reciprocal_rank, fuse_scores, rare_word_score
from proxy.memory.ranking import MemoryIndex, Query, Scored
from proxy.memory.records import Embedding, Memory, parse_ts

SEPTEMBER = parse_ts("2026-09-20T10:00:00Z")


def memory(n: int, created: float = 0.0, text: str | None = None, session: str | None = None) -> Memory:
    return Memory(id=f"m-{n}", text=text or f"memory {n}", created=created, session=session)


class Meaning:
    """A query's meaning as fixed cosines: what :class:`~proxy.memory.embeddings.Bound` computes from vectors."""

    def __init__(self, cosines: Mapping[str, float]) -> None:
        self.cosines = dict(cosines)

    def add(self, index: MemoryIndex, scores: dict[str, float], *, keep: int) -> dict[str, float]:
        return fuse_scores(scores, self.cosines, unit=rare_word_score(len(index)))


def ids(ranked: list[Scored]) -> list[str]:
    return [s.memory.id for s in ranked]


def test_a_memory_sharing_no_word_ranks_by_meaning_alone() -> None:
    fused = fuse_scores({"m-1": 3.0}, {"m-2": 0.6, "m-1": 0.05}, unit=1.0, weight=2.0, floor=0.2)
    assert fused["m-2"] == pytest.approx(2.0 * 3.0 * (0.6 - 0.2) / 0.8)  # in the best lexical score's unit
    assert fused["m-1"] == 3.0  # a cosine under the floor adds nothing


def test_meaning_counts_in_rare_words_when_words_found_little() -> None:
    fused = fuse_scores({"m-1": 0.5}, {"m-2": 0.6}, unit=4.0, weight=1.0, floor=0.2, rare_words=3.0)
    assert fused["m-2"] == pytest.approx(3 * 4.0 * (0.6 - 0.2) / 0.8)
    assert fuse_scores({}, {"m-2": 0.6}, unit=4.0, weight=1.0, floor=0.2, rare_words=1.0)["m-2"] == pytest.approx(2.0)


def test_meaning_and_words_together_beat_either_alone() -> None:
    fused = fuse_scores({"m-1": 2.0, "m-2": 1.9}, {"m-2": 0.7, "m-3": 0.75}, unit=1.0, weight=2.0, floor=0.2)
    assert sorted(fused, key=fused.__getitem__, reverse=True)[:2] == ["m-2", "m-3"]


def test_the_ranking_finds_by_meaning_what_shares_no_word() -> None:
    lisbon = memory(1, text="Moved to Lisbon last spring")
    tabs = memory(2, text="Indents Python with tabs")
    index = MemoryIndex([lisbon, tabs])
    query = Query.of("which city do I live in?")
    assert index.rank(query, now=SEPTEMBER, limit=5) == []
    ranked = index.rank(query, now=SEPTEMBER, limit=5, semantic=Meaning({"m-1": 0.45, "m-2": 0.02}))
    assert ids(ranked) == ["m-1"]  # a cosine at the floor or under it is no evidence


def test_a_month_the_question_names_lifts_what_meaning_found_as_it_lifts_what_words_found() -> None:
    march = parse_ts("2026-03-14T10:00:00Z")
    in_march = Memory(id="m-1", text="Decided to replace cron jobs with a queue for Jasper", created=march)
    in_september = Memory(id="m-2", text="Decided to move all secrets into Vault for Jasper", created=SEPTEMBER)
    index = MemoryIndex([in_march, in_september])
    query = Query.of("In March, what call did I make regarding Jasper?")
    assert ids(index.rank(query, now=SEPTEMBER, limit=10)) == ["m-1", "m-2"]  # the named month lifts March's
    meaning = Meaning({"m-2": 0.7, "m-1": 0.6})  # the model cannot tell the months apart
    assert ids(index.rank(query, now=SEPTEMBER, limit=10, semantic=meaning)) == ["m-1", "m-2"]
    unnamed = Query.of("what call did I make regarding Jasper?")
    assert ids(index.rank(unnamed, now=SEPTEMBER, limit=10, semantic=meaning)) == ["m-2", "m-1"]


def test_what_meaning_found_lends_to_the_memories_saved_beside_it() -> None:
    asked = memory(1, SEPTEMBER, "Which dance style do you like best?", session="s")
    answer = memory(2, SEPTEMBER + 5, "Contemporary, it is so expressive", session="s")
    other = memory(3, SEPTEMBER + 5, "Ballet lessons on Tuesdays", session="t")
    index = MemoryIndex([asked, answer, other])
    meaning = Meaning({"m-1": 0.8, "m-3": 0.3})
    ranked = index.rank(
        Query.of("what is her favourite way to move to music?"), now=SEPTEMBER, limit=3, semantic=meaning
    )
    assert ids(ranked)[:2] == ["m-1", "m-2"]  # the question's neighbour, found by neither side, outranks m-3


def test_nothing_from_either_side_is_nothing() -> None:
    index = MemoryIndex([memory(1)])
    assert index.rank(Query.of("unrelated"), now=SEPTEMBER, limit=5, semantic=Meaning({"m-1": SEMANTIC_FLOOR})) == []
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
