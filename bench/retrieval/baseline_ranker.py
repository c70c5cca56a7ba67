"""Today's ranker, frozen for comparison (a verbatim copy of ``proxy/memory/ranking.py`` before issue 17).

The benchmarks score it beside the current ranker, so a gain is measured against what shipped, not against a
moving target. Do not tune or edit it.

Original docstring:
Relevance ranking of one owner's memories against a message: BM25 over stemmed words.

A first scorer counted shared words (run.py keeps it); conversational memories paraphrase, so this adds what measured
best on ``bench/retrieval``: Snowball stemming, a BM25 length weight ``b`` near 0.3 (memories are
short and similar in length), tags and category as a second field, a small recency prior and
confidence weight, and related memories (same session, saved close in time) lending each other
part of their score. The index is kept incrementally, one memory at a time: no per-request rebuild.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import snowballstemmer

from proxy.memory.records import Memory

K1 = 1.2
B = 0.3
TAG_WEIGHT = 0.6  # a query word that is one of the memory's tags counts like this share of a text hit
RECENCY_WEIGHT = 0.15  # at most +15% for a memory saved just now, halving every RECENCY_HALF_LIFE_S
RECENCY_HALF_LIFE_S = 30 * 86400
RELATED_SHARE = 0.25  # a matched memory lends this share of its score to memories saved beside it
RELATED_WINDOW_S = 3600
MAX_QUERY_TERMS = 64
QUERY_HEAD_TAIL_CHARS = 2000  # a pasted log in a message: rank on its start and end
# Past this many memories, words in more than COMMON_SHARE of them are skipped: they barely move BM25 and
# cost a pass over most of the index.
COMMON_FLOOR = 2000
COMMON_SHARE = 0.1
POSTINGS_BUDGET = 20_000  # a long message over a huge index stops adding words, commonest last, past this many hits

_WORD = re.compile(r"[^\W_]+")
# English function words plus a list of words that carry no signal in a memory.
_STOPWORD_TEXT = """a about above after again against all also am an and any are as at back be because been before being
    below between both but by can could come did do does doing down during each every few first for from further
    get had has have having he her here hers herself him himself his how i if in into is it its itself just know
    let like made make many may me more most much must my myself need no nor not now of off on once one only or
    other our ours ourselves out over own please same say she should so some such take than that the their theirs
    them themselves then there these they this those through to too under until up use using very want was way we
    were what when where which while who whom why will with would you your yours yourself yourselves thing help
    work project file"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def _first(item: tuple[int, object, object]) -> int:
    return item[0]


class _Stems:
    """Snowball's English stemmer with a cache: a word is stemmed once per process. Words with digits (ports,
    versions, ids) are kept as they are: stemming cannot help them and would fill the cache with one-offs."""

    def __init__(self) -> None:
        self._stem = snowballstemmer.stemmer("english").stemWord
        self.cache: dict[str, str] = {}

    def __call__(self, word: str) -> str:
        stem = self.cache.get(word)
        if stem is None:
            if not word.isalpha():
                return word
            if len(self.cache) > 200_000:
                self.cache.clear()
            stem = self.cache[word] = self._stem(word)
        return stem


stem = _Stems()
_cached = stem.cache.get


def terms(text: str) -> list[str]:
    """Stemmed content words, in order: lower-cased, single letters and stopwords dropped."""
    return [
        _cached(w) or stem(w)
        for w in _WORD.findall(text.lower())
        if (len(w) > 1 or w.isdigit()) and w not in _STOPWORDS
    ]


@dataclass(frozen=True, slots=True)
class Query:
    terms: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> Query:
        if len(text) > 2 * QUERY_HEAD_TAIL_CHARS:
            text = text[:QUERY_HEAD_TAIL_CHARS] + "\n" + text[-QUERY_HEAD_TAIL_CHARS:]
        return cls(tuple(dict.fromkeys(terms(text)))[:MAX_QUERY_TERMS])


@dataclass(frozen=True, slots=True)
class Scored:
    memory: Memory
    score: float


class MemoryIndex:
    """All memories of one owner; the live ones (not superseded) are indexed for ranking, except held ones.

    A held memory (written by an untrusted session, not approved yet) is kept but never indexed, so nothing
    that ranks, lists the newest or looks for a near-duplicate can reach it: only :meth:`held` lists it.
    """

    def __init__(self, memories: Iterable[Memory] = ()) -> None:
        self._memories: dict[str, Memory] = {}
        self._lengths: dict[str, int] = {}
        self._postings: dict[str, dict[str, float]] = {}  # term -> {memory id: BM25 tf weight}
        self._tags: dict[str, set[str]] = {}  # stemmed tag or category word -> memory ids
        self._doc_terms: dict[str, tuple[Counter[str], frozenset[str]]] = {}
        self._sessions: dict[str, set[str]] = {}
        self._total_length = 0
        self._weighted_avg = 1.0  # the average length the stored weights were computed with
        self._newest: list[Memory] | None = None
        self._held: list[Memory] | None = None
        self.version = 0  # bumped on every change
        for memory in memories:
            self.put(memory)

    def __len__(self) -> int:
        """How many live memories, held ones not counted."""
        return len(self._lengths)

    def __iter__(self) -> Iterator[Memory]:
        """Every memory, superseded ones included, in the order they were first stored."""
        return iter(self._memories.values())

    def get(self, memory_id: str) -> Memory | None:
        return self._memories.get(memory_id)

    def is_live(self, memory_id: str) -> bool:
        return memory_id in self._lengths

    def put(self, memory: Memory) -> None:
        """Add a memory or replace the one with its id."""
        if memory.id in self._memories:
            self._unindex(memory.id)
        self._memories[memory.id] = memory
        if memory.live and not memory.held:
            self._index(memory)
        self._changed()

    def drop(self, memory_id: str) -> Memory | None:
        if memory_id not in self._memories:
            return None
        self._unindex(memory_id)
        self._changed()
        return self._memories.pop(memory_id)

    def closest(self, text: str, *, now: float, candidates: int = 20) -> tuple[Memory, float] | None:
        """The live memory most like ``text``, with its similarity: cosine over distinct stemmed words, idf-weighted.

        Merge on write compared by cosine similarity. Weighting by idf keeps "the payments team owns the payments
        topics" apart from "the search team owns the search topics": what they share is what every memory says.
        Only the best BM25 matches are candidates.
        """
        words = frozenset(terms(text))
        if not words:
            return None
        count = len(self._lengths)
        postings = self._postings

        def weight(term: str) -> float:
            df = len(postings.get(term, ()))
            return math.log(1 + (count - df + 0.5) / (df + 0.5)) ** 2

        mine = {term: weight(term) for term in words}
        norm = sum(mine.values())
        best: tuple[Memory, float] | None = None
        for scored in self.rank(Query(tuple(words)[:MAX_QUERY_TERMS]), now=now, limit=candidates):
            theirs = self._doc_terms[scored.memory.id][0]
            shared = sum(mine[term] for term in theirs if term in mine)
            similarity = shared / math.sqrt(norm * sum(mine.get(term) or weight(term) for term in theirs))
            if best is None or similarity > best[1]:
                best = (scored.memory, similarity)
        return best

    def newest(self, n: int | None = None) -> list[Memory]:
        """Live memories, newest first."""
        if self._newest is None:
            live = (self._memories[memory_id] for memory_id in self._lengths)
            self._newest = sorted(live, key=lambda m: (m.created, m.number), reverse=True)
        return self._newest if n is None else self._newest[:n]

    def held(self) -> list[Memory]:
        """Live memories held for approval, newest first."""
        if self._held is None:
            held = (m for m in self._memories.values() if m.held and m.live)
            self._held = sorted(held, key=lambda m: (m.created, m.number), reverse=True)
        return self._held

    def rank(self, query: Query, *, now: float, limit: int) -> list[Scored]:
        """The live memories that share a word with the query, best first."""
        count = len(self._lengths)
        if not count or not query.terms or limit <= 0:
            return []
        common = count * COMMON_SHARE if count > COMMON_FLOOR else math.inf
        postings_of, tags_of = self._postings.get, self._tags.get
        found = []
        for term in query.terms:
            postings, tagged = postings_of(term), tags_of(term)
            if postings is not None or tagged is not None:
                df = len(postings) if postings else len(tagged)  # type: ignore[arg-type]
                if df <= common:
                    found.append((df, postings, tagged))
        found.sort(key=_first)  # rarest first: they carry the signal, and the budget cuts the rest
        scores: dict[str, float] = {}
        visited = 0
        for df, postings, tagged in found:
            if visited > POSTINGS_BUDGET:
                break
            visited += df
            idf = math.log(1 + (count - df + 0.5) / (df + 0.5))
            if postings:
                if scores:
                    get = scores.get
                    for memory_id, weight in postings.items():
                        scores[memory_id] = get(memory_id, 0.0) + idf * weight
                else:
                    scores = {memory_id: idf * weight for memory_id, weight in postings.items()}
            if tagged:
                bonus = TAG_WEIGHT * idf
                for memory_id in tagged:
                    scores[memory_id] = scores.get(memory_id, 0.0) + bonus
        if not scores:
            return []
        if len(scores) > 2 * limit:
            scores = {
                memory_id: scores[memory_id] for memory_id in heapq.nlargest(2 * limit, scores, key=scores.__getitem__)
            }
        if self._sessions:
            scores = self._lend(scores)
        memories = self._memories
        final = []
        for memory_id, score in scores.items():
            memory = memories[memory_id]
            recency = RECENCY_WEIGHT * 0.5 ** (max(now - memory.created, 0.0) / RECENCY_HALF_LIFE_S)
            final.append((score * (1 + recency) * (0.8 + 0.2 * memory.confidence), memory_id))
        final.sort(reverse=True)
        return [Scored(memories[memory_id], score) for score, memory_id in final[:limit]]

    # -- internals ------------------------------------------------------------------------------------------

    def _lend(self, top: dict[str, float]) -> dict[str, float]:
        """Matched memories lend part of their score to memories saved beside them (same session, close in time)."""
        boosted = dict(top)
        memories = self._memories
        for memory_id, score in top.items():
            memory = memories[memory_id]
            if memory.session is None:
                continue
            for other_id in self._sessions.get(memory.session, ()):
                if other_id != memory_id and abs(memories[other_id].created - memory.created) <= RELATED_WINDOW_S:
                    boosted[other_id] = boosted.get(other_id, 0.0) + RELATED_SHARE * score
        return boosted

    def _index(self, memory: Memory) -> None:
        words = Counter(terms(memory.text))
        tag_words = frozenset(terms(" ".join((*memory.tags, memory.category))))
        length = max(sum(words.values()), 1)
        self._doc_terms[memory.id] = (words, tag_words)
        self._lengths[memory.id] = length
        self._total_length += length
        for term, tf in words.items():
            self._postings.setdefault(term, {})[memory.id] = self._weight(tf, length)
        for term in tag_words:
            self._tags.setdefault(term, set()).add(memory.id)
        if memory.session is not None:
            self._sessions.setdefault(memory.session, set()).add(memory.id)
        self._reweigh_if_drifted()

    def _unindex(self, memory_id: str) -> None:
        length = self._lengths.pop(memory_id, None)
        if length is None:
            return
        self._total_length -= length
        words, tag_words = self._doc_terms.pop(memory_id)
        for term in words:
            postings = self._postings[term]
            del postings[memory_id]
            if not postings:
                del self._postings[term]
        for term in tag_words:
            tagged = self._tags[term]
            tagged.discard(memory_id)
            if not tagged:
                del self._tags[term]
        session = self._memories[memory_id].session
        if session is not None and session in self._sessions:
            self._sessions[session].discard(memory_id)

    def _weight(self, tf: int, length: int) -> float:
        return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / self._weighted_avg))

    def _reweigh_if_drifted(self) -> None:
        """Stored weights assume an average length; recompute them all when the real one drifts past 10%."""
        average = self._total_length / max(len(self._lengths), 1)
        if abs(average - self._weighted_avg) <= 0.1 * self._weighted_avg:
            return
        self._weighted_avg = average
        for memory_id, (words, _) in self._doc_terms.items():
            length = self._lengths[memory_id]
            for term, tf in words.items():
                self._postings[term][memory_id] = self._weight(tf, length)

    def _changed(self) -> None:
        self._newest = self._held = None
        self.version += 1
