"""All credential rules in the order they apply, and detect-secrets' provider plugins as hits.

Order: key formats with a prefix (`keys.PREFIXED`), then keys and passwords named by a word (`passwords.NAMED`),
then detect-secrets' provider plugins, then random-looking runs (`keys.RANDOM`). Every pattern is matched against
the folded view (`normalise.aligned`), so a key written with look-alike or full-width letters or broken by
invisible characters is the key it imitates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from . import providers
from .keys import PREFIXED, PRIVATE_KEY, RANDOM
from .passwords import KEY_NAMES, NAMED
from .rules import Hit, Rule, mask, rule_hits

__all__ = ["KEY_NAMES", "PRIVATE_KEY", "RULES", "hits", "mask_all", "mask_spans"]

SPECIFIC: tuple[Rule, ...] = (*PREFIXED, *NAMED)
RULES: tuple[Rule, ...] = (*SPECIFIC, *RANDOM)


def hits(text: str) -> Iterator[Hit]:
    """Every credential in `text`, in order of precedence: our specific rules, detect-secrets' providers (before
    the random-run rules, which would find only part of a SendGrid or Discord token), then the random-run rules."""
    yield from rule_hits(text, SPECIFIC)
    yield from provider_hits(text)
    yield from rule_hits(text, RANDOM)


def provider_hits(text: str) -> Iterator[Hit]:
    """Every credential detect-secrets' provider regexes find in `text`, a short vendor prefix kept readable."""
    for label, start, end in providers.matches(text):
        if "[redacted]" not in text[start:end]:
            yield Hit(label, start + _prefix_length(text[start:end]), end)


def mask_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with each span replaced by "[redacted]"; spans come in order of precedence, and one that overlaps
    a span already taken is skipped."""
    taken: list[tuple[int, int]] = []
    for start, end in spans:
        if start < end and "[redacted]" not in text[start:end] and all(end <= a or start >= b for a, b in taken):
            taken.append((start, end))
    for start, end in sorted(taken, reverse=True):
        text = text[:start] + "[redacted]" + text[end:]
    return text


def mask_all(text: str) -> str:
    """`text` with every credential masked rule by rule, in order of precedence: a later rule sees "[redacted]"
    where an earlier one found a secret, so "api_key=sk-abc..." keeps its readable "sk-abc"."""
    for rule in (PRIVATE_KEY, *SPECIFIC):
        text = mask(rule, text)
    text = mask_spans(text, [(hit.start, hit.end) for hit in provider_hits(text)])
    for rule in RANDOM:
        text = mask(rule, text)
    return text


_VENDOR_PREFIX = re.compile(r"[A-Za-z0-9]{1,10}[-_.:]")


def _prefix_length(secret: str) -> int:
    """The vendor or id prefix of a provider's match ("SG.", "sq0csp-", the bot id of a Telegram token)."""
    m = _VENDOR_PREFIX.match(secret)
    return m.end() if m and len(secret) - m.end() >= 16 else 0
