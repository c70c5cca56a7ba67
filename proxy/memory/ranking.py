"""Relevance ranking of one owner's memories against a query: fielded BM25 over stemmed words.

A first scorer counted shared words; conversational memories paraphrase, so this adds what measured best on
``bench/retrieval`` (tuned on its dev splits): Snowball stemming, a small BM25 length weight ``b`` (memories are
short and similar in length), tags and category as a second field, the month a memory was saved in as a third (a
query naming that month lifts it; a day or period it names, "on 7 May 2023" or "last week", lifts those saved then:
:mod:`.dates`), a question asking when lifting memories that say when, names and numbers in the query weighing
double, a small recency prior and confidence weight, related memories (same session, saved close in time)
lending each other part of their score, and a memory lifted by the question's words the rest of its session says
(:mod:`.session_words`). A query's terms carry weights, so the conversation before a message can
count for less than the message (:mod:`.query`). The index is kept incrementally, one memory at a time: no
per-request rebuild.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple, Protocol

import snowballstemmer

from .dates import Span, read_time
from .records import Memory
from .session_words import SessionWords

K1 = 1.2
B = 0.15
TAG_WEIGHT = 0.6  # a query word that is one of the memory's tags counts like this share of a text hit
RECENCY_WEIGHT = 0.15  # at most +15% for a memory saved just now, halving every RECENCY_HALF_LIFE_S
RECENCY_HALF_LIFE_S = 30 * 86400
# A matched memory lends this share of its score to the RELATED_NEAREST memories saved just before and just after it
# in its session, within RELATED_WINDOW_S; one that asks something (a "?" in it) lends ASKED_SHARE to the
# ASKED_NEAREST saved after it, up to the next one that asks: the answer is what was said next, and shares no word
# with the question (an answer takes its best such loan), but a memory that asks again is the asker going on (one side
# of a chat with an assistant, each turn a new question), no answer. Measured with bench/retrieval/public.py (LoCoMo's
# tune split, dialog turns as memories, recall@10 through the injection path) and conversations_run.py (our dataset's
# dev split, facts that follow each other in a session but are about different things): lending to the whole hour at
# 0.35, 0.659 and 0.731; to the two nearest at 0.8, 0.731 and 0.642 (our set collapses); at 0.2 with questions
# lending 0.9 to the next two, 0.712 and 0.740. Stopping at the next question: LongMemEval's tune split (the user's
# turns of chats with an assistant) 0.892 to 0.906, its multi-session questions 0.913 at count 10 where lending to
# every next turn left their evidence's other sessions out (0.870); LoCoMo 0.734 to 0.730, our set unchanged.
# Fourth round (:meth:`MemoryIndex._lend`): a question lends its answers what the statements beside it lent it as
# well as its own score (a follow-up names nothing, "what did you think of it?", and its answer is about the
# statement before it): LoCoMo 0.730 to 0.734 lexically, 0.759 to 0.770 with embeddings; our set unchanged. Summing a
# memory's loans from its neighbours instead of taking the best gained LoCoMo another 0.8 and 0.6 points but cost our
# set's notes 1.7-1.8 points (a fact between two matched facts filled a note's place): not kept.
RELATED_SHARE = 0.2
RELATED_NEAREST = 2
ASKED_SHARE = 0.9
ASKED_NEAREST = 2
RELATED_WINDOW_S = 3600
SALIENT_WEIGHT = 2.0  # a name or a number in the query (Atlas, 6432, CI) counts this much more than a plain word
MONTH_WEIGHT = 0.6  # a query naming a month: memories saved in that month score 60% more
WHEN_WEIGHT = 0.3  # a query asking when: memories saying when (yesterday, last week, a date) score 30% more
# closest() weighs words by idf as if the owner held at least this many memories: over a handful, every word is
# rare, the new fact's words outweigh the shared ones and every reworded update scores below 0.3
# (bench/merging/bands.py: all 15 updates in a new user's store without it, 4 with it, 5 among 336 memories).
SIMILARITY_CORPUS_FLOOR = 100
MAX_QUERY_TERMS = 64
QUERY_HEAD_TAIL_CHARS = 2000  # a pasted log in a message: rank on its start and end
# Past this many memories, words in more than COMMON_SHARE of them are skipped: they barely move BM25 and
# cost a pass over most of the index.
COMMON_FLOOR = 2000
COMMON_SHARE = 0.1
POSTINGS_BUDGET = 20_000  # a long message over a huge index stops adding words, commonest last, past this many hits

_WORD = re.compile(r"([^\W_]+)")  # letters and digits; captured, so that split keeps what stands between words
_ASCII_WORD = re.compile(r"([A-Za-z0-9]+)")  # the same in an ASCII text, found faster
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


def _first(item: tuple[float, int, float, object, object]) -> float:
    return item[0]


_SORTED_MAX = 700  # up to this many scores, sorting them (in C) beats heapq.nlargest's loop in Python


def _nth_largest(values: Collection[float], n: int) -> float:
    return sorted(values, reverse=True)[n - 1] if len(values) <= _SORTED_MAX else heapq.nlargest(n, values)[-1]


def _largest(scores: dict[str, float], n: int) -> list[str]:
    """The ids of the ``n`` best scores, best first, ties in the order of ``scores`` (as heapq.nlargest has them)."""
    if len(scores) <= _SORTED_MAX:
        return sorted(scores, key=scores.__getitem__, reverse=True)[:n]
    return heapq.nlargest(n, scores, key=scores.__getitem__)


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


_ORDINAL = re.compile(r"([0-9]+)(?:st|nd|rd|th)")
_MONTH_NAMES = "january february march april may june july august september october november december"
MONTHS = {name: n for n, name in enumerate(_MONTH_NAMES.split(), start=1)}  # not calendar's: it follows the locale
_SENTENCE_END = ".!?:\n\"'([{>*#-"


def _term(word: str) -> str | None:
    if (len(word) < 2 and not word.isdigit()) or word in _STOPWORDS:
        return None
    if "0" <= word[0] <= "9":  # only a word opening with a digit can be an ordinal: the regex is skipped for the rest
        ordinal = _ORDINAL.fullmatch(word)
        if ordinal:
            return ordinal.group(1)
    return _cached(word) or stem(word)


def terms(text: str) -> list[str]:
    """Stemmed content words, in order: lower-cased, single letters and stopwords dropped, "14th" read as "14"."""
    text = text.lower()
    return [term for term in map(_term, _words(text).findall(text)) if term is not None]


def word_terms(text: str) -> list[tuple[int, int, str | None]]:
    """Each word of ``text`` where it stands (start, end), with its term as :func:`terms` reads it (None: none)."""
    reading = _readings.get
    found = []
    at = 0
    parts = _words(text).split(text)  # what stands before the first word, the word, before the next, ...
    for n in range(1, len(parts), 2):
        word = parts[n]
        at += len(parts[n - 1])
        found.append((at, at + len(word), (reading(word) or _read(word))[0]))
        at += len(word)
    return found


def _words(text: str) -> re.Pattern[str]:
    """The pattern that finds the words of ``text``: a plain ASCII text takes the faster one."""
    return _ASCII_WORD if text.isascii() else _WORD


# What a word says wherever it stands, as it is written: its term (None: a stopword), the month it names (0: none;
# negative: "May", a month only when capitalised inside a sentence), whether it is capitalised, and whether it is
# salient whatever stands before it (an acronym, a word with a digit).
_Reading = tuple[str | None, int, bool, bool]
_NOTHING: _Reading = (None, 0, False, False)  # neither a term nor a month
_READINGS_MAX = 50_000
_readings: dict[str, _Reading] = {}  # the words of a conversation repeat, and every request re-reads its turns


def _read(word: str) -> _Reading:
    """What ``word`` says alone, kept for the next time unless it holds a digit (ports and ids are mostly one-offs)."""
    lower = word.lower()
    term = _term(lower)
    month = MONTHS.get(lower, 0)
    reading = _NOTHING
    if term is not None or month:
        alone = (len(word) > 1 and word.isupper()) or not word.isalpha()
        reading = (term, -month if lower == "may" else month, word[0].isupper(), alone)
    if word.isalpha():
        if len(_readings) >= _READINGS_MAX:
            _readings.clear()
        _readings[word] = reading
    return reading


def _weigh(text: str, weight: float, weighed: dict[str, float], months: set[int] | None, cap: float = math.inf) -> None:
    """Give each term of ``text`` ``weight`` in ``weighed`` (``SALIENT_WEIGHT`` times it for a name or a number)
    where that is more than it has, adding new terms while ``weighed`` holds fewer than ``cap``; add the months
    ``text`` names to ``months`` (None: not wanted).

    Only a capitalised word looks at what stands before it: it is a name unless it opens a sentence (a line, a
    quote, a list item), that is unless the text's start or a character that ends a sentence comes before it,
    blanks aside. One loop, nothing called per word but a dict lookup: it runs for every word of the conversation
    on the request path.
    """
    salient = weight * SALIENT_WEIGHT
    reading = _readings.get
    parts = _words(text).split(text)  # what stands before the first word, the word, before the next, ...
    for at in range(1, len(parts), 2):
        word = parts[at]
        found = reading(word) or _read(word)
        if found is _NOTHING:
            continue
        term, month, upper, alone = found
        capital = False
        if upper:
            gap = parts[at - 1].rstrip(" \t\r")
            capital = gap[-1] not in _SENTENCE_END if gap else at > 1  # a blank gap: the word before is no end
        if month and months is not None and (month > 0 or capital):
            months.add(abs(month))
        if term is None:
            continue
        value = salient if capital or alone else weight
        held = weighed.get(term)
        if held is None:
            if len(weighed) < cap:
                weighed[term] = value
        elif value > held:
            weighed[term] = value


def salient_terms(text: str) -> tuple[dict[str, float], set[int]]:
    """Each term of ``text`` with its weight, and the months it names.

    A name or a number (a capitalised word not opening a sentence, an acronym, a word with a digit) weighs
    ``SALIENT_WEIGHT``: in "which datastore backs Atlas?" Atlas is what the user means, the rest is phrasing.
    "May" is a month only when capitalised inside a sentence.
    """
    weighed: dict[str, float] = {}
    months: set[int] = set()
    _weigh(text, 1.0, weighed, months)
    return weighed, months


@dataclass(frozen=True, slots=True)
class Query:
    """Terms to rank by, each with a weight (none: all weigh 1), the months the query names (of any year) and the
    spans of time it names (days, weeks, months of a year: :mod:`.dates`)."""

    terms: tuple[str, ...]
    weights: tuple[float, ...] = ()
    months: frozenset[int] = frozenset()
    spans: tuple[Span, ...] = ()
    when: bool = False  # the query asks when something happened: memories that say when score more

    @classmethod
    def of(cls, text: str, now: float | None = None) -> Query:
        return cls.weighted([(text, 1.0)], now=now)

    @classmethod
    def weighted(cls, texts: Iterable[tuple[str, float]], now: float | None = None) -> Query:
        """One query from several texts, most important first: a term weighs the most any text gives it.

        Terms keep the order of the texts; past ``MAX_QUERY_TERMS`` the rest are dropped, so the first text's
        terms always count. A long text (a pasted log) is ranked on its start and end. Months and dates are read
        from the texts weighing 1 only (the newest message); ``now`` reads "yesterday" and "last Friday" too.
        """
        weighed: dict[str, float] = {}
        months: set[int] = set()
        spans: list[Span] = []
        when = False
        for text, weight in texts:
            if weight <= 0:
                continue
            if len(text) > 2 * QUERY_HEAD_TAIL_CHARS:
                text = text[:QUERY_HEAD_TAIL_CHARS] + "\n" + text[-QUERY_HEAD_TAIL_CHARS:]
            _weigh(text, weight, weighed, months if weight >= 1.0 else None, cap=MAX_QUERY_TERMS)
            if weight >= 1.0:
                reading = read_time(text, now)
                spans += reading.spans
                months -= reading.dated
                when = when or reading.when
        return cls(tuple(weighed), tuple(weighed.values()), frozenset(months), tuple(spans), when)

    def lift(self, memory: Memory) -> float:
        """What :meth:`MemoryIndex.rank` multiplies a memory's score by for this query alone: a month the query
        names lifts the memories saved in it, a day or a period it names those saved then (the largest lift)."""
        return self.lift_at(memory.created, saved_month(memory.created), says_when(terms(memory.text)))

    def lift_at(self, created: float, month: int, timed: bool) -> float:
        """:meth:`lift` for a memory saved at ``created``, in ``month``, that says when something happened or not."""
        lift = 1 + MONTH_WEIGHT if month in self.months else 1.0
        for span in self.spans:
            if span.start <= created < span.end and 1 + span.weight > lift:
                lift = 1 + span.weight
        return lift * (1 + WHEN_WEIGHT) if timed and self.when else lift

    @property
    def most(self) -> float:
        """The largest lift this query gives any memory."""
        most = max((1 + MONTH_WEIGHT if self.months else 1.0, *(1 + span.weight for span in self.spans)))
        return most * (1 + WHEN_WEIGHT) if self.when else most


# A memory says when something happened when it holds one of these terms ("yesterday", "two days ago", "on Friday",
# "in March"), or a word of the first pair with one of the second ("last week", "next summer"). Read from its indexed
# terms, a set test in C: a regex over its text (which also took "this week" and years) cost 13 µs a memory, more than
# finding its terms, for the same recall@10 on LoCoMo's tune split (0.718).
_TIME_TERMS = frozenset(
    terms(
        "yesterday today tonight tomorrow ago recently weekend january february march april june july august "
        "september october november december monday tuesday wednesday thursday friday saturday sunday"
    )
)
_TIME_LEADS = frozenset(terms("last next past coming"))
_TIME_PERIODS = frozenset(terms("week month year night summer winter spring fall autumn"))


def says_when(words: Collection[str]) -> bool:
    """Whether a memory whose terms are ``words`` says when something happened: a question asking when lifts it."""
    return not _TIME_TERMS.isdisjoint(words) or (
        not _TIME_LEADS.isdisjoint(words) and not _TIME_PERIODS.isdisjoint(words)
    )


def saved_month(created: float) -> int:
    """The month (UTC) a memory saved at ``created`` was saved in: what a month named in a query matches."""
    return datetime.fromtimestamp(max(created, 0.0), UTC).month


class _Related(NamedTuple):
    """Who a memory lends to (:meth:`MemoryIndex._relate`): its session's neighbours, and its answers if it asks."""

    beside: tuple[str, ...]
    answers: tuple[str, ...]
    asks: bool
    askers: tuple[str, ...]  # those of ``beside`` that ask: what this memory lends them, they pass on


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs three times as much, for every ranked memory
class Scored:
    memory: Memory
    score: float


class Semantic(Protocol):
    """What a query means, beside its words: one request's query embedding (:mod:`.embeddings`), when they are on."""

    def add(self, index: MemoryIndex, scores: dict[str, float], *, keep: int) -> dict[str, float]:
        """``scores`` (the index's lexical ones, by memory id) with what the query's meaning adds, in their unit, to
        them and to the ``keep`` memories nearest in meaning (:func:`~.fusion.fuse_scores`)."""
        ...


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
        self._session_words = SessionWords()  # what each session says, its memories pooled
        self._related: dict[str, _Related] = {}  # memory id -> who it lends to
        self._orders: dict[str, tuple[list[str], dict[str, int]]] = {}  # session -> its memories in order, until then
        self._months: dict[str, int] = {}  # memory id -> the month it was saved in (UTC)
        self._timed: set[str] = set()  # memories that say when something happened (:func:`says_when`)
        self._total_length = 0
        self._weighted_avg = 1.0  # the average length the stored weights were computed with
        self._newest: list[Memory] | None = None
        self._held: list[Memory] | None = None
        self._pinned: list[Memory] | None = None
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

    def indexed_terms(self, memory: Memory) -> set[str] | None:
        """The terms this very version of ``memory`` is indexed by (its text's, its tags' and category's); None when
        the index holds another version of it, or does not index it."""
        if self._memories.get(memory.id) is not memory:
            return None
        known = self._doc_terms.get(memory.id)
        return None if known is None else {*known[0], *known[1]}

    def put(self, memory: Memory) -> None:
        """Add a memory or replace the one with its id. A replacement saying the same (a use or injection count, a
        pin) keeps the words it was indexed by: stemming them again was most of what writing counts cost."""
        old = self._memories.get(memory.id)
        words = None
        if old is not None:
            if old.text == memory.text and old.tags == memory.tags and old.category == memory.category:
                words = self._doc_terms.get(memory.id)
            self._unindex(memory.id)
        self._memories[memory.id] = memory
        if memory.live and not memory.held:
            self._index(memory, words)
        self._changed()

    def drop(self, memory_id: str) -> Memory | None:
        if memory_id not in self._memories:
            return None
        self._unindex(memory_id)
        self._changed()
        return self._memories.pop(memory_id)

    def closest(
        self, text: str, *, now: float, candidates: int = 20, where: Callable[[Memory], bool] | None = None
    ) -> tuple[Memory, float] | None:
        """The live memory most like ``text``, with its similarity in [0, 1]: merge on write's bands read it.

        A weighted Jaccard over the two texts' distinct stemmed words, each weighing its idf squared: the shared
        words' weight over the weight of all the words either has, 1 for the same words and 0 for none. Weighting
        by idf keeps "the payments team owns the payments topics" apart from "the search team owns the search
        topics": what they share is what every memory says. Jaccard rather than cosine, so one differing word
        of four ("User's alpha project uses Rust", "User's beta project ...") is 0.6, for the model to judge,
        not 0.75, the same memory. idf counts at least ``SIMILARITY_CORPUS_FLOOR`` memories, so the bands mean
        the same for a new user as for one with history. Only the best BM25 matches are candidates (and of those,
        only the ones ``where`` takes).
        """
        words = frozenset(terms(text))
        if not words:
            return None
        count = max(len(self._lengths), SIMILARITY_CORPUS_FLOOR)
        postings = self._postings

        def weight(term: str) -> float:
            df = len(postings.get(term, ()))
            return math.log(1 + (count - df + 0.5) / (df + 0.5)) ** 2

        mine = {term: weight(term) for term in words}
        norm = sum(mine.values())
        best: tuple[Memory, float] | None = None
        for scored in self.rank(Query(tuple(words)[:MAX_QUERY_TERMS]), now=now, limit=candidates):
            if where is not None and not where(scored.memory):
                continue
            theirs = self._doc_terms[scored.memory.id][0]
            shared = sum(mine[term] for term in theirs if term in mine)
            similarity = shared / (norm + sum(mine.get(term) or weight(term) for term in theirs) - shared)
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

    def pinned(self) -> list[Memory]:
        """Live pinned memories that are not held, oldest first: the order they were pinned in, as a fact file."""
        if self._pinned is None:
            pinned = (self._memories[memory_id] for memory_id in self._lengths if self._memories[memory_id].pinned)
            self._pinned = sorted(pinned, key=lambda m: (m.created, m.number))
        return self._pinned

    def matched(self, positions: Mapping[str, int], memory_id: str) -> tuple[str, ...] | None:
        """The query's terms (``positions``: term -> its place in the query) that the memory's indexed terms (its
        text's, its tags' and category's) hold, in the query's order; None when the memory is not indexed here.

        Why recall chose it, asked once per chosen entry: a memory holds a few terms and a query up to
        ``MAX_QUERY_TERMS``, so the memory's are the ones looked up."""
        indexed = self._doc_terms.get(memory_id)
        if indexed is None:
            return None
        words, tags = indexed
        found = [term for term in words if term in positions]
        found += [term for term in tags if term in positions and term not in words]
        found.sort(key=positions.__getitem__)
        return tuple(found)

    def rank(self, query: Query, *, now: float, limit: int, semantic: Semantic | None = None) -> list[Scored]:
        """The live memories that share a word with the query, best first; with ``semantic``, also those near it in
        meaning, each scored by both before a named month lifts and neighbours lend (so what meaning found lends to
        the memories saved beside it, as what words found does)."""
        count = len(self._lengths)
        if not count or limit <= 0 or (not query.terms and semantic is None):
            return []
        scores = self._scores(query, count) if query.terms else {}
        if semantic is not None:
            scores = semantic.add(self, scores, keep=2 * limit)
        if not scores:
            return []
        scores = self._best(scores, query, 2 * limit)
        if self._sessions:
            self._lend(scores)
        return self._final(scores, now, limit)

    # -- internals ------------------------------------------------------------------------------------------

    def _scores(self, query: Query, count: int) -> dict[str, float]:
        """BM25 over text and tags of the memories that share a term with the query."""
        common = count * COMMON_SHARE if count > COMMON_FLOOR else math.inf
        postings_of, tags_of = self._postings.get, self._tags.get
        found = []
        for term, query_weight in zip(query.terms, query.weights or (1.0,) * len(query.terms), strict=True):
            postings, tagged = postings_of(term), tags_of(term)
            if (postings is not None or tagged is not None) and query_weight > 0:
                df = len(postings) if postings else len(tagged)  # type: ignore[arg-type]
                if df <= common * min(query_weight, 1.0):  # a word of an earlier turn must be rarer to count
                    found.append((df / query_weight, df, query_weight, postings, tagged))
        found.sort(key=_first)  # rarest and weightiest first: they carry the signal, and the budget cuts the rest
        scores: dict[str, float] = {}
        visited = 0
        for _, df, query_weight, postings, tagged in found:
            if visited > POSTINGS_BUDGET:
                break
            idf = query_weight * math.log(1 + (count - df + 0.5) / (df + 0.5))
            visited += df
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
        return scores

    def _best(self, scores: dict[str, float], query: Query, keep: int) -> dict[str, float]:
        """The ``keep`` best scores once the months and days the query names lift the memories saved in them, and
        what the rest of its session says lifts each (:mod:`.session_words`): only the top and whatever the lifts
        could raise into it are lifted."""
        boost = query.most
        sessions = len(self._session_words) > 1 and bool(query.terms)
        if sessions:
            boost *= self._session_words.most()
        if len(scores) > keep:
            floor = _nth_largest(scores.values(), keep) / boost
            scores = {memory_id: score for memory_id, score in scores.items() if score >= floor}
        if query.spans:
            saved, memories, lift, timed = self._months, self._memories, query.lift_at, self._timed
            scores = {i: score * lift(memories[i].created, saved[i], i in timed) for i, score in scores.items()}
        else:  # the common cases, without a call per memory
            if query.months:
                months, saved, month_boost = query.months, self._months, 1 + MONTH_WEIGHT
                scores = {i: score * month_boost if saved[i] in months else score for i, score in scores.items()}
            if query.when:
                timed, when_boost = self._timed, 1 + WHEN_WEIGHT
                scores = {i: score * when_boost if i in timed else score for i, score in scores.items()}
        if sessions:
            weights = query.weights or (1.0,) * len(query.terms)
            scores = self._session_words.lift(scores, query.terms, weights, self._memories, self._doc_terms, keep)
        if len(scores) > keep:
            scores = {memory_id: scores[memory_id] for memory_id in _largest(scores, keep)}
        return scores

    def _lend(self, top: dict[str, float]) -> None:
        """Matched memories (``top``) lend part of their score to memories saved beside them (same session, close in
        time), and a memory that asks lends to what was said after it.

        A memory takes its best loan, not the sum: a session of unrelated facts would otherwise lift all of them. A
        question lends its answers its own score and what the statements beside it lent it: "what did you think of
        it?" names nothing, and is about what was said before it. So a loan goes one step further only through a
        question, and only from a memory that does not ask (a question after a question is the asker going on).
        """
        lent: dict[str, float] = {}
        told: dict[str, float] = {}  # what memories that do not ask lent each neighbour that asks, summed
        asking: list[tuple[str, _Related]] = []  # memories with answers to lend to
        related = self._related.get
        for memory_id, score in top.items():
            relation = related(memory_id) or self._relate(memory_id)
            loan = RELATED_SHARE * score
            for other_id in relation.beside:
                if loan > lent.get(other_id, 0.0):
                    lent[other_id] = loan
            if relation.answers:
                asking.append((memory_id, relation))
            elif not relation.asks:
                for other_id in relation.askers:
                    told[other_id] = told.get(other_id, 0.0) + loan
        for memory_id in told:
            if memory_id not in top:  # a question that matched nothing itself: it passes on what it was lent
                relation = related(memory_id) or self._relate(memory_id)
                if relation.answers:
                    asking.append((memory_id, relation))
        for memory_id, relation in asking:
            loan = ASKED_SHARE * (top.get(memory_id, 0.0) + told.get(memory_id, 0.0))
            for other_id in relation.answers:
                if loan > lent.get(other_id, 0.0):
                    lent[other_id] = loan
        for memory_id, loan in lent.items():
            top[memory_id] = top.get(memory_id, 0.0) + loan

    def _relate(self, memory_id: str) -> _Related:
        """The live memories this one lends to: the ``RELATED_NEAREST`` saved before and after it in its session and,
        when it asks something, the ``ASKED_NEAREST`` after it (its answers, up to the next memory that asks; an
        answer is not also lent to as a neighbour); within ``RELATED_WINDOW_S``. Found once while the index stays as
        it is: each request ranks the same few memories at the top again."""
        memories = self._memories
        memory = memories[memory_id]
        asks = "?" in memory.text
        relation = _Related((), (), asks, ())
        if memory.session is not None:
            order, places = self._session_order(memory.session)
            at, created = places[memory_id], memory.created
            near = order[max(at - RELATED_NEAREST, 0) : at + 1 + RELATED_NEAREST]
            answers: list[str] = []
            if asks:
                for other in order[at + 1 : at + 1 + ASKED_NEAREST]:
                    if "?" in memories[other].text:  # asking again: the asker going on, not an answer
                        break
                    answers.append(other)

            def close(other: str) -> bool:
                return abs(memories[other].created - created) <= RELATED_WINDOW_S

            beside = tuple(o for o in near if o != memory_id and o not in answers and close(o))
            askers = tuple(o for o in beside if "?" in memories[o].text)
            relation = _Related(beside, tuple(o for o in answers if close(o)), asks, askers)
        self._related[memory_id] = relation
        return relation

    def _session_order(self, session: str) -> tuple[list[str], dict[str, int]]:
        """A session's live memories in the order they were saved, and each one's place in it, until a change."""
        found = self._orders.get(session)
        if found is None:
            memories = self._memories
            order = sorted(self._sessions[session], key=lambda i: (memories[i].created, memories[i].number, i))
            found = self._orders[session] = (order, {memory_id: at for at, memory_id in enumerate(order)})
        return found

    def _final(self, scores: dict[str, float], now: float, limit: int) -> list[Scored]:
        """The best ``limit``, their scores weighed by recency and confidence."""
        memories = self._memories
        final = []
        for memory_id, score in scores.items():
            memory = memories[memory_id]
            age = now - memory.created
            recency = RECENCY_WEIGHT * 0.5 ** ((0.0 if age < 0.0 else age) / RECENCY_HALF_LIFE_S)  # max(), inline
            final.append((score * (1 + recency) * (0.8 + 0.2 * memory.confidence), memory_id))
        final.sort(reverse=True)
        return [Scored(memories[memory_id], score) for score, memory_id in final[:limit]]

    def _index(self, memory: Memory, known: tuple[Counter[str], frozenset[str]] | None = None) -> None:
        """``known``: the memory's words and tag words, when an earlier version with its text and tags had them."""
        if known is None:
            known = Counter(terms(memory.text)), frozenset(terms(" ".join((*memory.tags, memory.category))))
        words, tag_words = known
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
            self._session_words.add(memory.session, words)
        self._months[memory.id] = saved_month(memory.created)
        if says_when(words):
            self._timed.add(memory.id)
        self._reweigh_if_drifted()

    def _unindex(self, memory_id: str) -> None:
        length = self._lengths.pop(memory_id, None)
        if length is None:
            return
        self._total_length -= length
        del self._months[memory_id]
        self._timed.discard(memory_id)
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
            self._session_words.remove(session, words)

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
        self._newest = self._held = self._pinned = None
        if self._related:
            self._related.clear()
        if self._orders:
            self._orders.clear()
        self.version += 1
