"""The machinery credential patterns run on: a `Rule` is a regex with a `keep` prefix and a `secret` group, a check
that tells a credential from a look-alike, and a gate that skips the regex when it cannot match.

Gates matter for speed: CPython's regex engine cannot skip ahead in a pattern that starts with `\\b`, a lookbehind or
IGNORECASE, so it tries every position; looking for a literal first ("sk-", "bearer") costs far less, and most
texts fail it. Case-insensitive patterns are written in lower case and run case-sensitively on the lower-cased text
(`finditer`), three to five times faster.

What a gate asks of a text is worked out once for all the rules (`Gated`): the text is lower-cased once and every
rule's gate words are looked for in one pass (`Literals`), not 230 `in` tests, 27 `lower()` calls and an `any()`
per rule. Where a gate word is common in ordinary text ("key", "pass", "://"), a sieve (a literal-led pattern for
what follows the word in a match) keeps the rule's regex from stepping through every position for nothing; a rule
whose matches are long runs of key characters (a 40-character blob) first asks whether the text has such a run.
Masking changes the text, so a rule that masks something gates the text again; most have nothing to mask.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache

import ahocorasick

from .lazy import LazyPattern, Pattern

Check = Callable[[re.Match[str]], bool]
Sieve = tuple[str, str]  # a gate word, and a regex (lower case, starting with the word) for what a match holds there


def _always(m: re.Match[str]) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Rule:
    """A credential: groups `keep` (a non-secret prefix `redact` leaves readable) and `secret`; `check` tells it
    from a look-alike. `prefixes` are the literal starts by which a key split by spaces is recognised (`split`);
    `gate` holds lower-case strings one of which every match contains. Two stricter gates for `opens`: every match
    holds a run of `min_run` key characters (`key_runs`); and `sieves`, for some gate words a regex starting with
    the word, such that a text the pattern matches holds a gate word with no sieve or a match of a sieve."""

    label: str
    pattern: Pattern
    check: Check = _always
    prefixes: tuple[str, ...] = ()
    gate: tuple[str, ...] = ()
    min_run: int = 0
    sieves: tuple[Sieve, ...] = ()
    min_digits: int = 0  # every match holds this many ASCII digits (a card number 13): a gate for wordless rules
    suspect: bool = False  # a match only looks like a credential: a write is held for review, not refused
    # A regex over the text's `digit_shape` that every match's shape matches (a card's b"d(?:s?d){12}"): the gate of
    # a wordless number rule, whose own pattern starts with `\d` and is tried at every digit of the text.
    shape: bytes = b""
    words: frozenset[str] = field(init=False, repr=False, compare=False)
    _sieve: dict[str, LazyPattern] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", frozenset(self.gate))
        object.__setattr__(self, "_sieve", {word: LazyPattern(sieve) for word, sieve in self.sieves})

    def may_match(self, lowered: str) -> bool:
        return not self.gate or any(word in lowered for word in self.gate)  # `in` beats a regex alternation here

    def sieve_for(self, word: str) -> LazyPattern | None:
        """The sieve for one of the gate words, None when it has none (a text holding the word opens the rule)."""
        return self._sieve.get(word)

    def opens(self, view: Gated) -> bool:
        """`may_match`, and the stricter gates, on a gated text (its `Literals` looked for this rule's words)."""
        if (self.min_run and not view.has_run(self.min_run)) or view.digits < self.min_digits:
            return False
        if self.shape and not _shape_pattern(self.shape).search(view.digit_shape()):
            return False
        if not self.gate or self.words.isdisjoint(view.present):
            return not self.gate
        if not self._sieve or len(view.lowered) != len(view.text):  # sieves need one lower-case character for one
            return True
        sieve = self._sieve
        return any(word not in sieve or view.sifts(sieve[word]) for word in self.words & view.present)


@dataclass(frozen=True, slots=True)
class Hit:
    """A credential in a text: `text[start:end]` is the secret, without the readable prefix before it."""

    label: str
    start: int
    end: int
    suspect: bool = False  # found by a rule that only suspects a credential (`Rule.suspect`)


def trie(literals: Iterable[str], between: str = "") -> str:
    """A regex for the longest of `literals` that starts where it is tried, as a trie: CPython's engine tries one
    branch per character instead of every literal in turn. `between` (a regex) may stand between two characters."""
    return _after(literals, between, "")


def _after(tails: Iterable[str], between: str, lead: str) -> str:
    """The trie below a node whose literals go on with `tails` ("" for one that ends there), `lead` before."""
    children: dict[str, list[str]] = {}
    for tail in tails:
        children.setdefault(tail[:1], []).append(tail[1:])
    branches = [re.escape(char) + _after(rest, between, between) for char, rest in sorted(children.items()) if char]
    if not branches:
        return ""
    body = lead + (branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")")
    return f"(?:{body})?" if "" in children else body


class Literals:
    """Which of many lower-case literals a text holds, found in one pass of an Aho-Corasick automaton (pyahocorasick,
    in C): 230 gate words tested one `in` at a time cost about 150 µs on 2 KB, a regex trie tried at every position
    about 110 µs, the automaton about 20 µs. It reports every occurrence, overlapping ones too."""

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = frozenset(literals) - {""}
        self._automaton = ahocorasick.Automaton()
        for word in self.literals:
            self._automaton.add_word(word, word)
        if self.literals:
            self._automaton.make_automaton()

    def present(self, text: str) -> frozenset[str]:
        """The literals that occur in `text`."""
        if not self.literals or not text:
            return frozenset()
        return frozenset(word for _, word in self._automaton.iter(text))


# Key characters ([A-Za-z0-9+/_-], and anything beyond ASCII) as "x", the rest as " ", byte by byte.
_KEY_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_KEY_BYTES = bytes(ord("x") if b >= 0x80 or b in _KEY_CHARS else ord(" ") for b in range(256))


_NOT_DIGITS = bytes(b for b in range(256) if not 0x30 <= b <= 0x39)


def key_runs(text: str) -> bytes:
    """`text` in UTF-8 with each key character's bytes as "x" and every other byte as a space: a run of n key
    characters in `text` is a run of at least n "x" here (a character beyond ASCII takes two to four bytes), found
    by a fast substring search rather than a regex stepping through every position."""
    return text.encode("utf-8", "surrogatepass").translate(_KEY_BYTES)


def runs_and_digits(text: str) -> tuple[bytes, int]:
    """`key_runs(text)`, and how many ASCII digits `text` holds (both from one encoding, in C)."""
    raw = text.encode("utf-8", "surrogatepass")
    return raw.translate(_KEY_BYTES), len(raw.translate(None, _NOT_DIGITS))


# ASCII digits as "d", upper-case letters as "U", a space or a dash as "s", every other byte as ".".
_SHAPE_BYTES = bytes(
    ord("d") if 0x30 <= b <= 0x39 else ord("U") if 0x41 <= b <= 0x5A else ord("s") if b in b" -" else ord(".")
    for b in range(256)
)


def digit_shape(text: str) -> bytes:
    """`text` in UTF-8 with digits as "d", capitals as "U", spaces and dashes as "s": where a card number, an SSN or
    an IBAN could be is found by a regex that starts with a literal (fast), not one starting with `\\d`."""
    return text.encode("utf-8", "surrogatepass").translate(_SHAPE_BYTES)


def has_run(runs: bytes, length: int) -> bool:
    """Whether `key_runs` output holds a run of `length` key characters (or may: see `key_runs`)."""
    return b"x" * length in runs


@dataclass(slots=True)  # not frozen, though never changed: a frozen one takes 0.4 µs more to make, once per text
class Gated:
    """A text with what the gates ask of it worked out once: lower-cased, the gate words it holds (`present`, of
    those its `Literals` look for), its `key_runs`, and the literals the lower-cased text holds once spaces and
    tabs are taken out (`spaced`, a superset of `present`: a key split by spaces shows its prefix there)."""

    text: str
    lowered: str
    present: frozenset[str]
    runs: bytes
    spaced: frozenset[str]
    digits: int  # ASCII digits in the text
    shape: bytes | None = None  # `digit_shape(text)`, worked out when a rule first asks
    # Whether each sieve asked so far found something in `lowered`: rules that share a sieve ("safe" followed by a
    # digit, "pass" by a space) search the text once.
    sifted: dict[str, bool] = field(default_factory=dict)

    def has_run(self, length: int) -> bool:
        return has_run(self.runs, length)

    def sifts(self, sieve: Pattern) -> bool:
        """Whether `sieve` finds something in the lower-cased text, searched once per text and sieve."""
        found = self.sifted.get(sieve.pattern)
        if found is None:
            found = self.sifted[sieve.pattern] = sieve.search(self.lowered) is not None
        return found

    def digit_shape(self) -> bytes:
        if self.shape is None:
            self.shape = digit_shape(self.text)
        return self.shape


def alternatives(literals: tuple[str, ...]) -> str:
    """A regex for any of `literals`, longest first."""
    return "|".join(re.escape(p) for p in sorted(literals, key=len, reverse=True))


@cache
def _shape_pattern(shape: bytes) -> re.Pattern[bytes]:
    return re.compile(shape)


@cache
def _case_sensitive_twin(pattern: Pattern) -> re.Pattern[str]:
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


def finditer(pattern: Pattern, text: str, lowered: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`; for a case-insensitive pattern its case-sensitive twin runs over `lowered` (the
    lower-cased text), and each candidate is matched again on `text` for the checks, which need the original case."""
    if not pattern.flags & re.IGNORECASE or len(lowered) != len(text):
        yield from pattern.finditer(text)
        return
    for candidate in _case_sensitive_twin(pattern).finditer(lowered):
        if m := pattern.match(text, candidate.start()):
            yield m


def rule_hits(text: str, rules: tuple[Rule, ...], view: Gated | None = None) -> Iterator[Hit]:
    """Every credential `rules` find in `text`; `view`, when given, is `text` gated for all of them."""
    lowered = text.lower() if view is None else view.lowered
    for rule in rules:
        if rule.may_match(lowered) if view is None else rule.opens(view):
            for m in finditer(rule.pattern, text, lowered):
                if rule.check(m):
                    yield Hit(rule.label, m.start("secret"), m.end("secret"), rule.suspect)


def redacted(rule: Rule, text: str, lowered: str) -> str:
    """`text` with the secrets `rule` finds replaced by "[redacted]", their `keep` prefixes left readable; `text`
    itself when it finds none. The caller has asked the gates (`Rule.opens`)."""
    parts, done = [], 0
    for m in finditer(rule.pattern, text, lowered):
        if rule.check(m):
            parts += [text[done : m.start("secret")], "[redacted]"]
            done = m.end("secret")
    return "".join(parts) + text[done:] if parts else text
