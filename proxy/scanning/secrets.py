"""All credential rules in the order they apply, and detect-secrets' provider plugins as hits.

Order: key formats with a prefix (`keys.PREFIXED`), then keys and passwords named by a word (`passwords.NAMED`),
then random-looking runs (`keys.RANDOM`); `redact` masks in this order, so a later rule sees "[redacted]" where an
earlier one found a secret. Every pattern is matched against the folded view (`normalise.aligned`), so a key
written with look-alike or full-width letters or broken by invisible characters is the key it imitates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import providers
from .keys import PREFIXED, PRIVATE_KEY, RANDOM
from .passwords import KEY_NAMES, NAMED
from .rules import Hit, Rule

__all__ = ["KEY_NAMES", "PRIVATE_KEY", "RULES", "provider_hits"]

RULES: tuple[Rule, ...] = (*PREFIXED, *NAMED, *RANDOM)


def provider_hits(text: str) -> Iterator[Hit]:
    """Every credential detect-secrets' provider regexes find in `text`, a short vendor prefix kept readable."""
    for label, start, end in providers.matches(text):
        if "[redacted]" not in text[start:end]:
            yield Hit(label, start + _prefix_length(text[start:end]), end)


_VENDOR_PREFIX = re.compile(r"[A-Za-z0-9]{1,10}[-_.:]")


def _prefix_length(secret: str) -> int:
    """The vendor or id prefix of a provider's match ("SG.", "sq0csp-", the bot id of a Telegram token)."""
    m = _VENDOR_PREFIX.match(secret)
    return m.end() if m and len(secret) - m.end() >= 16 else 0
