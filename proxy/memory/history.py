"""The raw conversation log: what each session said, kept per owner, searched by relevance with citations. Pure: no I/O.

A :class:`HistoryLine` is one message of a session as the client had it (a user message, an answer, a client
tool's call or result), rendered to text with the proxy's own additions taken out and secrets masked before it
gets here. Lines are searched by BM25 over their stemmed words (the memories' word rules, :func:`terms`), each
line a document; the answer is a window of the line around the words that matched, cited by session and turn.
A line carries its session's provenance: a session that took in untrusted content is searchable by a person
(the API) but never by the model, since its words may be an attacker's.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from .ranking import terms
from .records import format_ts, parse_ts
from .store import Owner

ROLES = ("user", "assistant", "tool")
K1 = 1.2
B = 0.75  # lines range from "ok" to a pasted log: length matters more than among memories
SNIPPET_CHARS = 300  # a window this long around the match; the citation names where the rest is
MAX_QUERY_TERMS = 32
_WORD = re.compile(r"[^\W_]+")
DAY_S = 86400.0
CALLED = "called "  # how a history line says the assistant called a client tool: "called NAME(ARGUMENTS)"


@dataclass(frozen=True, slots=True)
class HistoryLine:
    session: str
    turn: int  # the session's user turn it belongs to (1 = the first user message and what followed it)
    role: str  # user | assistant | tool
    ts: float
    text: str
    untrusted: bool = False  # its session had taken in untrusted content when this was said
    sources: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Names the line within its owner: the same message of the same turn, seen again, is not kept again."""
        data = orjson.dumps([self.session, self.turn, self.role, self.text])
        return hashlib.blake2b(data, digest_size=16).hexdigest()

    def to_json(self, ts: str | None = None) -> dict[str, Any]:
        """``ts``: its time as :func:`format_ts` writes it, when the caller has it already."""
        return {
            "kind": "history",
            "session": self.session,
            "turn": self.turn,
            "role": self.role,
            "ts": ts or format_ts(self.ts),
            "text": self.text,
            "untrusted": self.untrusted,
            "sources": list(self.sources),
        }

    @classmethod
    def from_json(cls, obj: Any) -> HistoryLine:
        if not isinstance(obj, dict) or obj.get("kind") != "history":
            raise ValueError("not a history line")
        session, turn, role, text = obj.get("session"), obj.get("turn"), obj.get("role"), obj.get("text")
        if not isinstance(session, str) or not session or not isinstance(text, str):
            raise ValueError("a history line has a session and a text")
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0 or role not in ROLES:
            raise ValueError("a history line has a turn number and a known role")
        untrusted, sources = obj.get("untrusted", False), obj.get("sources", [])
        if not isinstance(untrusted, bool) or not isinstance(sources, list):
            raise ValueError("a history line's provenance is malformed")
        return cls(session, turn, role, parse_ts(obj.get("ts")), text, untrusted, tuple(str(s) for s in sources))


@dataclass(slots=True)
class SessionSummary:
    """What history knows of one session: when it spoke first and last, its turns, the tools it called, whether it
    took in untrusted content, and where its lines are in its owner's index."""

    session: str
    first: float
    last: float
    turns: int = 0
    untrusted: bool = False
    sources: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()  # the client tools it called, as history wrote them ("called NAME(...)")
    positions: array[int] = field(default_factory=lambda: array("I"))

    def add(self, line: HistoryLine, position: int) -> None:
        self.first, self.last = min(self.first, line.ts), max(self.last, line.ts)
        self.turns = max(self.turns, line.turn)
        if line.untrusted:
            self.untrusted = True
            if not set(line.sources) <= set(self.sources):
                self.sources = tuple(sorted({*self.sources, *line.sources}))
        if line.role == "assistant" and line.text.startswith(CALLED):
            name = line.text[len(CALLED) :].partition("(")[0]
            if name and name not in self.tools:
                self.tools = tuple(sorted((*self.tools, name)))
        self.positions.append(position)


@dataclass(frozen=True, slots=True)
class Found:
    """A line that matched, its score and the snippet shown for it."""

    line: HistoryLine
    score: float
    snippet: str
    untrusted: bool = False  # its session took in untrusted content (this line or a later one)

    def citation(self) -> dict[str, Any]:
        line = self.line
        cited = {"session": line.session, "turn": line.turn, "role": line.role, "ts": format_ts(line.ts)}
        return {**cited, "text": self.snippet}


class HistoryStore(Protocol):
    """Durable history per owner (a user in a workspace). Every method may raise :class:`StoreUnavailable`."""

    async def append(self, owner: Owner, lines: Sequence[HistoryLine]) -> int:
        """Keep lines not kept yet (by :attr:`HistoryLine.key`), durably; returns how many were new."""
        ...

    async def view(self, owner: Owner) -> HistoryIndex:
        """The owner's lines, oldest first, indexed for search. Read-only for callers."""
        ...

    async def count(self, owner: Owner) -> int:
        """How many lines the owner has: what ``forget`` would remove now."""
        ...

    async def forget(self, owner: Owner) -> int:
        """Remove all of the owner's history; returns how many lines went."""
        ...

    async def prune(self, before: float) -> int:
        """Remove every owner's lines said before ``before``; returns how many went."""
        ...

    async def trim(self, owner: Owner, max_chars: int) -> int:
        """Remove the owner's oldest lines until the rest's text is ``max_chars`` at most; returns how many went."""
        ...

    async def aclose(self) -> None: ...


def newest_within(lines: Sequence[HistoryLine], max_chars: int) -> int:
    """How many of ``lines`` (oldest first) to drop so that the text of the rest is ``max_chars`` at most."""
    kept = 0
    for position in range(len(lines) - 1, -1, -1):
        kept += len(lines[position].text)
        if kept > max_chars:
            return position + 1
    return 0


class HistoryIndex:
    """Lines indexed for BM25, built once per search over what the store holds (or kept, growing, by a cache).

    Adding a line (every request adds some) only records it; its words are indexed by the first search that
    needs them, since most lines are never searched. Term counts live in per-term lists, not in one object per
    line, so a long history costs the collector a few objects per distinct word, not one per line.
    """

    def __init__(self, lines: Iterable[HistoryLine] = ()) -> None:
        self.lines: list[HistoryLine] = []
        self._tainted: set[str] = set()  # sessions with a line said after they took in untrusted content
        self._newest: dict[str, int] = {}  # session -> its newest turn
        self._keys: set[str] = set()
        # The word index, over lines[:_indexed]: term -> positions of the lines holding it, and its count in each.
        self._postings: dict[str, list[int]] = {}
        self._counts: dict[str, list[int]] = {}
        self._lengths = array("I")  # each indexed line's number of terms
        self._total = 0
        self._indexed = 0
        self._indexing = threading.Lock()  # searches run in threads: one brings the index up to date at a time
        self._summaries: dict[str, SessionSummary] = {}  # over lines[:_summarized], built when first asked for
        self._summarized = 0
        self._summarizing = threading.Lock()
        for line in lines:
            self.add(line)

    def __len__(self) -> int:
        return len(self.lines)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def add(self, line: HistoryLine, key: str | None = None) -> bool:
        """False when a line with its key (``key``, when the caller has it already) is there already (a re-sent
        conversation after a restart)."""
        key = key or line.key
        if key in self._keys:
            return False
        self._keys.add(key)
        if line.untrusted:  # first: a search running meanwhile must never see the line before its taint
            self._tainted.add(line.session)
        self._newest[line.session] = max(self._newest.get(line.session, 0), line.turn)
        self.lines.append(line)
        return True

    def _index(self) -> tuple[int, int]:
        """Index the lines added since the last search; returns how many lines it covers and their terms."""
        with self._indexing:
            lines, postings, counts = self.lines, self._postings, self._counts
            count = len(lines)  # a store's thread may be adding lines meanwhile: index those there now
            for position in range(self._indexed, count):
                counted = Counter(terms(lines[position].text))
                for term, tf in counted.items():
                    if term in postings:
                        postings[term].append(position)
                        counts[term].append(tf)
                    else:
                        postings[term], counts[term] = [position], [tf]
                length = sum(counted.values())
                self._lengths.append(length)
                self._total += length
            self._indexed = count
            return count, self._total

    def sessions(self) -> list[SessionSummary]:
        """Every session its lines speak of, in the order they first spoke."""
        with self._summarizing:
            return list(self._summarize().values())

    def session_lines(self, session: str) -> list[HistoryLine]:
        """One session's lines, in the order they were kept."""
        with self._summarizing:
            summary = self._summarize().get(session)
            return [] if summary is None else [self.lines[position] for position in summary.positions]

    def _summarize(self) -> dict[str, SessionSummary]:
        """The sessions' summaries, brought up to date when asked for (under ``_summarizing``), not per line added:
        most histories are never listed. Lines a store's thread adds meanwhile wait for the next call."""
        lines, summaries = self.lines, self._summaries
        count = len(lines)
        for position in range(self._summarized, count):
            line = lines[position]
            summary = summaries.get(line.session)
            if summary is None:
                summary = summaries[line.session] = SessionSummary(line.session, line.ts, line.ts)
            summary.add(line, position)
        self._summarized = count
        return summaries

    def search(
        self,
        query: str,
        *,
        limit: int,
        since: float = 0.0,
        untrusted: bool = False,
        current: str | None = None,
        snippet_chars: int = SNIPPET_CHARS,
    ) -> list[Found]:
        """The ``limit`` best lines for ``query`` said at ``since`` or later, best first (newer first on a tie).

        ``untrusted``: include sessions that took in untrusted content (a person's search); without it every line
        of such a session is left out, those said before the taint too (the model's search). ``current``: the
        session asking, whose newest turn (the question being answered, already in the model's context) is left
        out; its earlier turns are found like any other session's.
        """
        wanted = list(dict.fromkeys(terms(query)))[:MAX_QUERY_TERMS]
        if not wanted or not self.lines or limit <= 0:
            return []
        count, total = self._index()
        tainted = self._tainted
        newest = self._newest.get(current) if current is not None else None
        average = max(total / count, 1.0)
        df = {t: bisect_left(self._postings.get(t, ()), count) for t in wanted}  # positions ascend
        idf = {t: math.log(1 + (count - n + 0.5) / (n + 0.5)) for t, n in df.items() if n}
        if not idf:
            return []
        lengths, lines = self._lengths, self.lines
        scores: dict[int, float] = {}
        for term, weight in idf.items():  # term at a time, in the query's order: each line sums as it always did
            for position, tf in zip(self._postings[term], self._counts[term], strict=False):
                if position >= count:
                    break
                line = lines[position]
                if line.ts < since or (line.session in tainted and not untrusted):
                    continue
                if newest is not None and line.session == current and line.turn == newest:
                    continue
                share = weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[position] / average))
                scores[position] = scores.get(position, 0.0) + share
        scored = [(score, position) for position, score in scores.items() if score > 0]
        scored.sort(key=lambda item: (-item[0], -lines[item[1]].ts, -item[1]))
        return [
            Found(lines[p], round(s, 4), snippet(lines[p].text, idf.keys(), snippet_chars), lines[p].session in tainted)
            for s, p in scored[:limit]
        ]


def snippet(text: str, wanted: Iterable[str], chars: int = SNIPPET_CHARS) -> str:
    """At most ``chars`` characters of ``text`` around the words of ``wanted`` (stemmed terms), cut at word
    boundaries, ``…`` marking a cut: the window holding the most distinct matched terms, the earliest on a tie."""
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    targets = set(wanted)
    hits = [(m.start(), m.end(), t) for m in _WORD.finditer(text) for t in terms(m.group()) if t in targets]
    if not hits:
        start = 0
    else:
        best, best_start = -1, hits[0][0]
        for i, (first, _, _) in enumerate(hits):
            inside = {t for s, e, t in hits[i:] if e - first <= chars}
            if len(inside) > best:
                best, best_start = len(inside), first
        # Some words before the first match, so the snippet reads as a sentence rather than starting mid-thought.
        covered = max(e for s, e, t in hits if s >= best_start and e - best_start <= chars)
        lead = max(0, min(chars // 4, chars - (covered - best_start)))
        start = max(0, best_start - lead)
        if start:
            space = text.rfind(" ", 0, start + 1)
            start = space + 1 if space >= 0 and start - space < 30 else start
    end = min(len(text), start + chars)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start + chars // 2 else end
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def retention_cutoff(now: float, days: float) -> float:
    return now - days * DAY_S
