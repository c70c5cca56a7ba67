"""Passages of memory files that answer a query, for ``memory_search`` and ``GET /memory/files?q=``. Pure.

A file is cut into passages at blank lines, and a run of lines longer than ``PASSAGE_LINES`` into pieces of that
many. A passage scores the rarity (over every passage of the owner's files) of each query term it holds, the way a
memory is found by its words (:func:`proxy.memory.ranking.terms`: stemmed, stopwords out); the query as a substring
counts too, so a name or a number that is no word still finds its line. Each passage cites its file and first line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .ranking import terms

PASSAGE_LINES = 8
PASSAGE_CHARS = 400
SUBSTRING_BONUS = 1.0


@dataclass(frozen=True, slots=True)
class Passage:
    path: str
    line: int  # the passage's first line, 1-based
    text: str
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "text": self.text}


def passages(path: str, text: str) -> list[tuple[int, str]]:
    """``(first line, text)`` of each passage of one file."""
    found: list[tuple[int, str]] = []
    run: list[str] = []
    start = 1
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            if run:
                found.append((start, "\n".join(run)))
            run = []
            continue
        if not run:
            start = number
        run.append(line)
        if len(run) == PASSAGE_LINES:
            found.append((start, "\n".join(run)))
            run = []
    if run:
        found.append((start, "\n".join(run)))
    return found


def search(files: Iterable[tuple[str, str]], query: str, *, limit: int) -> list[Passage]:
    """The best ``limit`` passages of ``files`` (``(path, text)``) for ``query``, best first; none for a blank one."""
    wanted = set(terms(query))
    needle = query.strip().casefold()
    if not wanted and not needle:
        return []
    pieces = [(path, line, text, set(terms(text))) for path, body in files for line, text in passages(path, body)]
    if not pieces:
        return []
    seen: dict[str, int] = {}
    for _, _, _, held in pieces:
        for term in held & wanted:
            seen[term] = seen.get(term, 0) + 1
    rarity = {term: math.log(1 + len(pieces) / count) for term, count in seen.items()}
    scored = []
    for path, line, text, held in pieces:
        score = sum(rarity[term] for term in held & wanted)
        if needle and needle in text.casefold():
            score += SUBSTRING_BONUS
        if score > 0:
            shown = text if len(text) <= PASSAGE_CHARS else text[: PASSAGE_CHARS - 3] + "..."
            scored.append(Passage(path, line, shown, score))
    scored.sort(key=lambda p: (-p.score, p.path, p.line))
    return scored[:limit]
