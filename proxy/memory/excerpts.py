"""How the block's entries share its characters: a long memory is shown as its most relevant excerpt.

A memory may hold up to 500 characters and the block 2,000 (``memory.max_inject_chars``) for ten entries
(``max_inject_count``), so a few long memories used to fill it and the rest of the best matches were skipped. Now the
best ``max_inject_count`` entries all go in when each can keep at least ``EXCERPT_MIN`` characters: the shortest are
shown whole, and the longest are cut, all to one length (:func:`fit`), each to the window of its text that holds the
most of the query's words (:func:`excerpt`), marked with an ellipsis (``…``) where it was cut. The entry keeps its
memory's id, so the model can read the whole text with ``memory_retrieve`` and a person in the console. Measured on
LongMemEval_S, whose memories are long (``bench/retrieval/public.py``, recall@10 through the injection path): the
default budget then finds what ten entries without a character cap find ([Recall](../../docs/recall.md)). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .ranking import word_terms

EXCERPT_MIN = 100  # an entry cut shorter than this says too little: the block takes fewer entries instead
ELLIPSIS = "…"


def fit(lengths: Sequence[int], chars: int, minimum: int = EXCERPT_MIN) -> tuple[int, int | None]:
    """How many of the entries (best first, of these lengths) the block takes within ``chars``, and the length the
    longer ones are cut to (None: all whole).

    All of them when they fit whole or when the ones cut keep at least ``minimum`` characters (or ``chars``, if
    less); else the last ones go until that holds. The cut is the largest length that fills ``chars``: entries
    shorter than it stay whole and give what they leave to the others."""
    count = len(lengths)
    while count:
        taken = sorted(lengths[:count])
        if sum(taken) <= chars:
            return count, None
        left = chars
        for position, length in enumerate(taken):
            share = left // (count - position)
            if length > share:  # this one and all the longer ones are cut to an equal share of what is left
                if share >= min(minimum, chars):
                    return count, share
                break
            left -= length
        count -= 1
    return 0, None


def excerpt(text: str, weights: Mapping[str, float], size: int) -> str:
    """At most ``size`` characters of ``text`` (on one line), an ellipsis where it was cut: the window of whole words
    around the query's terms (``weights``, by stemmed term, each counted once) that hold the most weight, centred on
    them. A text that matches none of them keeps its start."""
    text = " ".join(text.split())
    if len(text) <= size:
        return text
    room = size - 2 * len(ELLIPSIS)  # of the text itself, with an ellipsis either side
    if room <= 0:
        return text[: max(size - len(ELLIPSIS), 0)] + ELLIPSIS
    span = _heaviest(text, weights, room)
    middle = (span[0] + span[1]) // 2 if span is not None else 0
    start = min(max(middle - room // 2, 0), len(text) - room) if span is not None else 0
    if start > 0:
        start = _word_start(text, start)
    if start == 0:  # no opening ellipsis: its room goes to the end
        room += len(ELLIPSIS)
    end = _word_end(text, start, min(start + room, len(text)))
    return (ELLIPSIS if start else "") + text[start:end].strip() + (ELLIPSIS if end < len(text) else "")


def _heaviest(text: str, weights: Mapping[str, float], room: int) -> tuple[int, int] | None:
    """Where the words of the heaviest window of at most ``room`` characters that the query matched start and end
    (the earliest such window); None when the text holds none of the query's terms."""
    matched = [(start, end, term) for start, end, term in word_terms(text) if term and weights.get(term, 0.0) > 0]
    if not matched:
        return None
    best, best_score = (matched[0][0], matched[0][1]), -1.0
    held: dict[str, int] = {}
    score, last = 0.0, -1
    for first, (start, _, _) in enumerate(matched):
        while last + 1 < len(matched) and matched[last + 1][1] - start <= room:
            last += 1
            term = matched[last][2]
            held[term] = held.get(term, 0) + 1
            score += weights[term] if held[term] == 1 else 0.0
        if last < first:  # a word longer than the room
            return start, start + room
        if score > best_score:
            best, best_score = (start, matched[last][1]), score
        term = matched[first][2]
        held[term] -= 1
        score -= weights[term] if not held[term] else 0.0
    return best


def _word_start(text: str, at: int) -> int:
    """``at``, moved on to the start of the next word unless a word starts there."""
    if text[at - 1] == " ":
        return at
    space = text.find(" ", at)
    return space + 1 if space >= 0 else at


def _word_end(text: str, start: int, end: int) -> int:
    """``end``, moved back to the end of the last whole word before it (unless that leaves nothing)."""
    if end >= len(text) or text[end] == " ":
        return end
    space = text.rfind(" ", start, end)
    return space if space > start else end
