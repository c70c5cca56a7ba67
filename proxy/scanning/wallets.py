"""A wallet's recovery phrase written with no name: twelve words or more from BIP-39's English list, all but one at
most.

That list has no "the", "and", "is" or "to", so prose never runs eleven of its words in twelve; a named phrase ("seed
phrase: ...") is the rules' (`numbers.recovery`). Certain when every word is on the list and they pass the phrase's
checksum (a real wallet's do), suspect when they do not (a typo'd real one, or one made up by hand). Not a `Rule`: a
rule without a gate word must need a digit or a long run of key characters to be shut in a quiet text, and a phrase has
neither; so `scan` asks here for every text, and `redact` for a text of `LONGEST` characters at most (a set lookup a
word, `_may_hold`, before any regex). The list and the check are the `mnemonic` package's (BIP-39's reference
implementation), imported on the first text of twelve words or more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from .rules import Hit

LABEL = "a recovery phrase"
LONGEST = 2000
_WORDS_IN_A_PHRASE = (24, 21, 18, 15, 12)
_RUN = re.compile(r"(?<![a-z'-])[a-z]{3,8}(?:(?:[ \t]*[,;]?[ \t]+|[ \t]*\n[ \t]*)[a-z]{3,8}){11,}(?![a-z'-])")
_WORD = re.compile(r"[a-z]+")


@cache
def _english() -> tuple[frozenset[str], Any]:
    from mnemonic import Mnemonic

    english = Mnemonic("english")
    return frozenset(english.wordlist), english


def _phrases(text: str, start: int, end: int) -> Iterator[tuple[int, int, list[str], bool]]:
    """The runs of twelve BIP-39 words or more in `text[start:end]`, with their spans, and whether every word is on
    the list: a run may hold one word that is not (a phrase made up by hand, "... orbit candle wisdom tiger"), never
    at its ends."""
    words, _ = _english()
    runs: list[list[re.Match[str]]] = [[]]  # split at each word off the list: two words off it leave an empty run
    for word in _WORD.finditer(text, start, end):
        if word[0] in words:
            runs[-1].append(word)
        else:
            runs.append([])
    for run in runs:
        if len(run) >= 12:
            yield run[0].start(), run[-1].end(), [m[0] for m in run], True
    for before, after in zip(runs, runs[1:], strict=False):  # two runs with one word off the list between them
        if before and after and len(before) + len(after) + 1 >= 12 and len(before) < 12 and len(after) < 12:
            yield before[0].start(), after[-1].end(), [], False


def _checksummed(words: list[str]) -> bool:
    _, english = _english()
    return any(
        english.check(" ".join(words[start : start + size]))
        for size in _WORDS_IN_A_PHRASE
        for start in range(len(words) - size + 1)
    )


def _may_hold(text: str) -> bool:
    """Whether twelve words of the list follow one another, split at white space: a pass in C and a set lookup a
    word, cheaper than `_RUN`, which most chat turns (a dozen short words in a row) would open."""
    words, _ = _english()
    run = after_miss = 0  # the run with one word off the list allowed, and the run since that word
    for token in text.split():
        if token.strip(",;:.") in words:
            run += 1
            after_miss += 1
            if run >= 12:
                return True
        else:
            run, after_miss = after_miss + 1, 0
    return False


def hits(text: str) -> Iterator[Hit]:
    """Each recovery phrase in `text`: certain when its checksum passes, else suspect."""
    if text.count(" ") + text.count("\n") < 11 or not _may_hold(text):
        return
    for run in _RUN.finditer(text):
        for start, end, words, listed in _phrases(text, *run.span()):
            yield Hit(LABEL, start, end, suspect=not (listed and _checksummed(words)))
