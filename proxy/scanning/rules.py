"""The machinery credential patterns run on: a `Rule` is a regex with a `keep` prefix and a `secret` group, a check
that tells a credential from a look-alike, and a gate that skips the regex when it cannot match.

Gates matter for speed: CPython's regex engine cannot skip ahead in a pattern that starts with `\\b`, a lookbehind or
IGNORECASE, so it tries every position; looking for a literal first ("sk-", "bearer") costs far less, and most
texts fail it. Case-insensitive patterns are written in lower case and run case-sensitively on the lower-cased text
(`finditer`), three to five times faster.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

Check = Callable[[re.Match[str]], bool]


def _always(m: re.Match[str]) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Rule:
    """A credential: groups `keep` (a non-secret prefix `redact` leaves readable) and `secret`; `check` tells it
    from a look-alike. `prefixes` are the literal starts by which a key split by spaces is recognised (`split`);
    `gate` holds lower-case strings one of which every match contains."""

    label: str
    pattern: re.Pattern[str]
    check: Check = _always
    prefixes: tuple[str, ...] = ()
    gate: tuple[str, ...] = ()

    def may_match(self, lowered: str) -> bool:
        return not self.gate or any(word in lowered for word in self.gate)  # `in` beats a regex alternation here


@dataclass(frozen=True, slots=True)
class Hit:
    """A credential in a text: `text[start:end]` is the secret, without the readable prefix before it."""

    label: str
    start: int
    end: int


def alternatives(literals: tuple[str, ...]) -> str:
    """A regex for any of `literals`, longest first."""
    return "|".join(re.escape(p) for p in sorted(literals, key=len, reverse=True))


@cache
def _case_sensitive_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


def finditer(pattern: re.Pattern[str], text: str, lowered: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`; for a case-insensitive pattern its case-sensitive twin runs over `lowered` (the
    lower-cased text), and each candidate is matched again on `text` for the checks, which need the original case."""
    if not pattern.flags & re.IGNORECASE or len(lowered) != len(text):
        yield from pattern.finditer(text)
        return
    for candidate in _case_sensitive_twin(pattern).finditer(lowered):
        if m := pattern.match(text, candidate.start()):
            yield m


def rule_hits(text: str, rules: tuple[Rule, ...]) -> Iterator[Hit]:
    """Every credential `rules` find in `text`."""
    lowered = text.lower()
    for rule in rules:
        if rule.may_match(lowered):
            for m in finditer(rule.pattern, text, lowered):
                if rule.check(m):
                    yield Hit(rule.label, m.start("secret"), m.end("secret"))


def mask(rule: Rule, text: str) -> str:
    """`text` with the secrets `rule` finds replaced by "[redacted]", their `keep` prefixes left readable."""
    lowered = text.lower()
    if not rule.may_match(lowered):
        return text
    parts, done = [], 0
    for m in finditer(rule.pattern, text, lowered):
        if rule.check(m):
            parts += [text[done : m.start("secret")], "[redacted]"]
            done = m.end("secret")
    return "".join(parts) + text[done:] if parts else text
