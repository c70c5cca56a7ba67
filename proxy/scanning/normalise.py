"""Views of a text that undo the disguises filters are dodged with, so one set of patterns sees through them.

A secret or an injection can be hidden from a pattern by characters a reader never notices: zero-width and other
invisible characters, full-width or mathematical letters (NFKC folds them), Cyrillic or Greek look-alikes inside
Latin words, typographic dashes and quotes. `aligned` folds all of these and remembers where each character came
from, so `redact` can mask the original text. Invisible characters are also reported on their own (`invisible`),
as before: the emoji, Persian and Indic joiners that legitimate text needs are allowed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# Reported as a finding: characters that hide text, reorder it or smuggle it (tag characters).
_REPORTED = re.compile("[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
_EMOJI = "\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
_JOINING_SCRIPTS = "\u0600-\u0dff\ufb50-\ufdff\ufe70-\ufefc"  # Arabic, Syriac, ..., the Indic scripts
_TAGS = "|".join("".join(chr(0xE0000 + ord(c)) for c in flag) for flag in ("gbeng", "gbsct", "gbwls"))
# Joiners that legitimate text needs: ZWJ inside emoji sequences (family, profession, rainbow flag), ZWJ/ZWNJ between
# letters of scripts that use them (Persian, Hindi), and the tag characters of the three subdivision flag emoji.
_ALLOWED = re.compile(
    f"(?<=[{_EMOJI}\ufe0f])\u200d(?=[{_EMOJI}])"
    f"|(?<=[{_JOINING_SCRIPTS}])[\u200c\u200d](?=[{_JOINING_SCRIPTS}])"
    f"|(?<=\U0001f3f4)(?:{_TAGS})\U000e007f"
)
# Dropped before matching (Unicode's default-ignorable code points): everything above plus variation selectors,
# direction marks, Hangul fillers and the like, which render as nothing but split a word for a pattern.
IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)

# Look-alikes of Latin letters in Cyrillic, Greek, Armenian and IPA (one character each, so positions survive).
_CONFUSABLES = dict(
    zip(
        "аеорсухкіјѕԁԛԝһӏԍѵАВЕКМНОРСТХУІЈЅԚԜҺӀαοικνρτυχϲϳΑΒΕΖΗΙΚΜΝΟΡΤΥΧօսհɑɡıȷɩ",
        "aeopcyxkijsdqwhlgvABEKMHOPCTXYIJSQWHIaoikvptuxcjABEZHIKMNOPTYXouhagiji",
        strict=True,
    )
)
_CONFUSABLE_TABLE = str.maketrans(_CONFUSABLES)
_HAS_CONFUSABLE = re.compile(f"[{''.join(_CONFUSABLES)}]")
_PUNCTUATION = str.maketrans(
    {**dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043", "-"), "\u2018": "'", "\u2019": "'"}
    | {"\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_TOKEN = re.compile(r"\S+")
_LATIN_LETTER = re.compile("[A-Za-z]")


def invisible(text: str) -> str | None:
    """The first invisible character in `text` that legitimate text does not need, or None."""
    if text.isascii() or not _REPORTED.search(text):
        return None
    hidden = _REPORTED.search(_ALLOWED.sub("", text))
    return hidden[0] if hidden else None


def visible(text: str) -> str:
    """`text` without its invisible characters."""
    return text if text.isascii() else IGNORABLE.sub("", text)


@dataclass(frozen=True, slots=True)
class Aligned:
    """A folded view of a source text; `origin[i]` is the source index of `text[i]` (None: the same text)."""

    text: str
    origin: list[int] | None = None

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The source range that the view's `text[start:end]` came from."""
        if self.origin is None:
            return start, end
        return self.origin[start], self.origin[end - 1] + 1


@lru_cache(maxsize=8192)
def _fold_char(char: str) -> str:
    if IGNORABLE.match(char):
        return ""
    return unicodedata.normalize("NFKC", char).translate(_PUNCTUATION)


def _fold_token(m: re.Match[str]) -> str:
    """A word mixing Latin and look-alike letters (or made only of look-alikes) is read as Latin; a Russian or
    Greek word stays as it is, so its own patterns still see it."""
    token = m[0]
    letters = [c for c in token if c.isalpha()]
    if _LATIN_LETTER.search(token) or all(c in _CONFUSABLES for c in letters):
        return token.translate(_CONFUSABLE_TABLE)
    return token


def aligned(text: str) -> Aligned:
    """`text` with invisible characters dropped, NFKC applied (full-width and styled letters), typographic dashes
    and quotes made ASCII and look-alike letters in Latin words folded; pure ASCII is returned as it is."""
    if text.isascii():
        return Aligned(text)
    parts: list[str] = []
    origin: list[int] = []
    done = 0
    for run in _NON_ASCII.finditer(text):
        parts.append(text[done : run.start()])
        origin.extend(range(done, run.start()))
        for i in range(run.start(), run.end()):
            folded = _fold_char(text[i])
            parts.append(folded)
            origin.extend([i] * len(folded))
        done = run.end()
    parts.append(text[done:])
    origin.extend(range(done, len(text)))
    view = "".join(parts)
    if _HAS_CONFUSABLE.search(view):
        view = _TOKEN.sub(_fold_token, view)  # one character for one: `origin` still holds
    return Aligned(view, origin)


def fold(text: str) -> str:
    """The folded view of `text` (see `aligned`)."""
    return aligned(text).text


def plain(text: str) -> str:
    """`text` lower-cased with invisible characters dropped and NFKC applied, but its scripts left alone: the view
    patterns for Russian, Chinese, Japanese and Korean are matched against."""
    return unicodedata.normalize("NFKC", IGNORABLE.sub("", text)).lower()


_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def latin(folded: str) -> str:
    """A folded text lower-cased and without accents ("précédentes" -> "precedentes"): the view for patterns in
    languages written in Latin letters, so they need not spell every accent."""
    if folded.isascii():
        return folded.lower()
    return _MARKS.sub("", unicodedata.normalize("NFKD", folded)).lower()


_LEET = {"0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"}
_LEET_AS_I = str.maketrans({**_LEET, "1": "i", "|": "i"})
_LEET_AS_L = str.maketrans({**_LEET, "1": "l", "|": "l"})
_LEET_WORD = re.compile(r"[a-z0-9@$!|]*[a-z][a-z0-9@$!|]*")
_HEX = re.compile("[0-9a-f]+")
# Leetspeak that disguises an instruction disguises several words: two words that each mix two letters with two
# leet characters ("1gn0r3 ... pr3v10u5"). One such word is usually a name or a version ("cl100k", "libssl3").
# Contacts with letters beyond "f", so that hex ("e3b0c442") does not count.
_LEET_BEFORE_LETTER = re.compile("[0-9@$!|](?=[g-z])")
_LEET_AFTER_LETTER = re.compile("[0-9@$!|](?<=[g-z].)")
_LEET_CANDIDATE = re.compile(r"[a-z0-9@$!|]*(?:[a-z][0-9@$!|]|[0-9@$!|][a-z])[a-z0-9@$!|]*")


def _leet_mixed(word: str) -> bool:
    letters = sum(c.isalpha() for c in word)
    return letters >= 2 and len(word) - letters >= 2 and not _HEX.fullmatch(word)


# or one leet character between letters, in four words at least ("n0te f0r the m0del: d1sable the s4fety ch3cks"):
# one such word is a name ("b2b", "w3c"), four are a disguise
_LEET_INSIDE = re.compile("[a-z][013457@$!|][a-z]")


def _leet_inside(word: str) -> bool:
    return _LEET_INSIDE.search(word) is not None and not _HEX.fullmatch(word)


_ONE_AFTER_VOWEL = re.compile(r"(?<=[aeiou043@])[1|]")


def _as_i(m: re.Match[str]) -> str:
    return m[0].translate(_LEET_AS_I)


def _as_l(m: re.Match[str]) -> str:
    return m[0].translate(_LEET_AS_L)


def _by_neighbours(m: re.Match[str]) -> str:
    """A "1" after a vowel reads as "l" ("ru1es", "a11"), elsewhere as "i" ("1gnore", "d1sregard")."""
    return _ONE_AFTER_VOWEL.sub("l", m[0]).translate(_LEET_AS_I)


_READINGS = (_by_neighbours, _as_i, _as_l)


def unleet(text: str) -> tuple[str, ...]:
    """Readings of a lower-case `text` with leetspeak undone in words that mix letters and digits or symbols
    ("1gn0r3" -> "ignore"): "1" as "i", as "l", and as whichever its neighbours suggest. Empty when there is
    nothing to undo."""
    if len(_LEET_BEFORE_LETTER.findall(text)) + len(_LEET_AFTER_LETTER.findall(text)) < 4:
        return ()  # a cheap first look: fewer than four letter-leet contacts in all
    candidates = _LEET_CANDIDATE.findall(text)
    if sum(map(_leet_mixed, candidates)) < 2 and sum(_leet_inside(word) for word in candidates) < 4:
        return ()
    return tuple(_LEET_WORD.sub(reading, text) for reading in _READINGS)


_SPELLED_OUT = re.compile(r"(?:\b[a-z]\b[^a-z\n]{1,3}){4,}[a-z]\b")
_LETTER_APART = re.compile(r"[a-z][^a-z\n][a-z][^a-z\n][a-z]\b")  # a cheap first look for the above


def squeezed(text: str) -> str | None:
    """The letters of a lower-case `text` run together when it spells words out ("i g n o r e", "i.g.n.o.r.e"),
    or None when it does not."""
    if not _LETTER_APART.search(text) or not _SPELLED_OUT.search(text):
        return None
    return re.sub("[^a-z]+", "", text)


_ROT13 = str.maketrans("abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm")


def rot13(text: str) -> str:
    return text.translate(_ROT13)
