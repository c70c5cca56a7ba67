"""The words of a session as a whole: a memory whose own words miss part of a question ranks by what its session said.

"How does John feel while surfing?" is answered by "John: Being out in the water can be amazing ... free-feeling",
which shares only the speaker's name with the question; the session it was said in is about surfing. So a matched
memory is lifted by the share of the question's words (weighted by their rarity among sessions) that *other*
memories of its session hold: ``1 + SESSION_WEIGHT * share``. Only words the rest of the session says count, not the
memory's own, so a memory that matches the whole question itself gains nothing over one whose session supplies the
rest, and a session that repeats one name many times lifts nothing more than one that says it once: where a session
is a mix of unrelated facts (our dataset's: "Onyx went down ...", "Onyx stores its data in CockroachDB"), the
sessions around the one right fact all hold the project's name, and none of them stands out.

Measured (issue 40's sixth round, docs/recall.md) on LoCoMo's tune split through the injection path, recall@10 at
the default budget: 0.733 to 0.745 lexically and 0.770 to 0.778 with embeddings at weight 0.3 (0.2: 0.742; 0.5:
0.742 / 0.773; 1: 0.742 / 0.764), held 0.688 to 0.709 and 0.718 to 0.729; our dataset (``conversations_run.py``,
test / dev) 0.719 / 0.740 to 0.721 / 0.740, @5 0.624 / 0.653 to 0.625 / 0.657. The plain form, each session scored
by BM25 over its pooled words and its memories lifted by their session's share of the best, gained more on LoCoMo
(0.746 / 0.780 at 0.5, 0.752 / 0.777 at 1) but cost our dataset's dev split 4 points of recall@5 at 1 (0.653 to
0.611): the session naming a project most often outranked the one fact asked about, and outweighed a month the
question named. A session scored by the mean or best cosine of its memories to the question, with embeddings on,
cost recall (0.770 to 0.750-0.769).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from .records import Memory

SESSION_WEIGHT = 0.3  # a memory whose session's other memories hold all of the question's words scores 30% more
# Only the best ROOM times the kept memories are lifted: over a large index one common word matches thousands, and
# lifting every one that could reach the top cost 10,000 memories 0.41 ms a request (p50, ranking_time.py) against
# 0.31 so and 0.14 without the lift, for the same recall (LoCoMo tune 0.744 / 0.778 lexically / with embeddings,
# 0.743 / 0.778 so).
ROOM = 3
ROUNDING = 1e-9  # of the query's weight: what is left of a session's words once the memory's own are taken away


class SessionWords:
    """How often each term is said in each session (its live indexed memories' texts pooled), kept with the index."""

    def __init__(self) -> None:
        self._counts: dict[str, dict[str, int]] = {}  # term -> {session: its count over the session's memories}
        self._sizes: dict[str, int] = {}  # session -> how many indexed memories it holds

    def __len__(self) -> int:
        """How many sessions hold an indexed memory."""
        return len(self._sizes)

    def add(self, session: str, words: Mapping[str, int]) -> None:
        self._sizes[session] = self._sizes.get(session, 0) + 1
        for term, count in words.items():
            counts = self._counts.setdefault(term, {})
            counts[session] = counts.get(session, 0) + count

    def remove(self, session: str, words: Mapping[str, int]) -> None:
        left = self._sizes.get(session, 0) - 1
        if left < 0:
            return
        if left:
            self._sizes[session] = left
        else:
            del self._sizes[session]
        for term, count in words.items():
            counts = self._counts.get(term)
            if counts is None or session not in counts:
                continue
            counts[session] -= count
            if counts[session] <= 0:
                del counts[session]
                if not counts:
                    del self._counts[term]

    def lift(
        self,
        scores: dict[str, float],
        query_terms: Sequence[str],
        query_weights: Sequence[float],
        memories: Mapping[str, Memory],
        indexed: Mapping[str, tuple[Counter[str], frozenset[str]]],
        keep: int,
    ) -> dict[str, float]:
        """The ``ROOM`` times ``keep`` best of ``scores`` (by memory id), each times ``1 + SESSION_WEIGHT * share``:
        the share of the query's weight, each term weighing its query weight times its idf among sessions, that other
        memories of the memory's session hold. ``indexed``: each memory's indexed terms (its text's first)."""
        count = len(self._sizes)
        if count < 2 or not SESSION_WEIGHT:
            return scores
        present: list[tuple[str, float, dict[str, int]]] = []
        total = 0.0
        for term, weight in zip(query_terms, query_weights, strict=True):
            if weight <= 0:
                continue
            counts = self._counts.get(term)
            df = len(counts) if counts else 0
            idf = weight * math.log(1 + (count - df + 0.5) / (df + 0.5))
            total += idf
            if counts:
                present.append((term, idf, counts))
        if not present or total <= 0:
            return scores
        scale = SESSION_WEIGHT / total
        wanted = {term: (idf, counts) for term, idf, counts in present}
        said: dict[str, float] = {}  # session -> the weight of the query's terms it holds
        lifted: dict[str, float] = {}
        for memory_id in heapq.nlargest(ROOM * keep, scores, key=scores.__getitem__):
            score = scores[memory_id]
            session = memories[memory_id].session
            if session is not None:
                held = said.get(session)
                if held is None:
                    held = said[session] = sum([idf for _, idf, counts in present if session in counts])
                if held:
                    own = indexed[memory_id][0]
                    for term in own.keys() & wanted:  # what only this memory says of the session's, it does not lend
                        idf, counts = wanted[term]
                        if counts[session] <= own[term]:
                            held -= idf
                    if held > ROUNDING * total:  # the rest of the session said some of the query's words
                        score *= 1 + scale * held
            lifted[memory_id] = score
        return lifted

    @staticmethod
    def most() -> float:
        """The largest lift :meth:`lift` gives a memory."""
        return 1 + SESSION_WEIGHT
