"""All credential rules in the order they apply, and detect-secrets' provider plugins as hits.

Order: key formats with a prefix (`keys.PREFIXED`), then keys and passwords named by a word (`passwords.NAMED`),
then detect-secrets' provider plugins, then random-looking runs (`keys.RANDOM`). Every pattern is matched against
the folded view (`normalise.aligned`), so a key written with look-alike or full-width letters or broken by
invisible characters is the key it imitates.

A text is gated once for all of them (`gated`: one pass for every gate word, needle and split-key prefix), and
again only after a rule masked something, so ordinary text pays for one pass, not a gate test per rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

from . import context, providers
from .documents import MRZ
from .keys import PREFIXED, PRIVATE_KEY, RANDOM, example
from .lazy import Pattern
from .numbers import NUMBERS
from .passwords import KEY_NAMES, NAMED
from .rules import Gated, Hit, Literals, Rule, redacted, rule_hits, runs_and_digits

__all__ = [
    "KEY_NAMES",
    "PRIVATE_KEY",
    "QUIET_DIGITS",
    "QUIET_RUN",
    "RULES",
    "gated",
    "hits",
    "mask_all",
    "mask_spans",
    "quiet",
]

SPECIFIC: tuple[Rule, ...] = (*PREFIXED, *NAMED, *NUMBERS, *MRZ)
RULES: tuple[Rule, ...] = (*SPECIFIC, *RANDOM)
_FIRST = (PRIVATE_KEY, *SPECIFIC)  # what `mask_all` masks before the provider plugins
KEY_WORDS = ("token", "secret", "key", "passw")  # one of them ends every key name `split` looks after
SPLIT_PREFIXES = frozenset(prefix.lower() for rule in RULES for prefix in rule.prefixes)
_LITERALS = Literals(
    {word for rule in (PRIVATE_KEY, *RULES) for word in rule.gate}
    | providers.NEEDLES
    | {*KEY_WORDS}
    | SPLIT_PREFIXES
    | context.CUES
)


def gated(text: str) -> Gated:
    """`text` gated for every rule, provider plugin and split key here. The literals are looked for once, in the
    lower-cased text without its spaces and tabs (where a key split by them, "s k - p r o j", shows its prefix):
    none holds a space or a tab, so the text holds no literal that is not found there. Those the text itself holds
    are told apart after, which costs little as a text holds few."""
    lowered = text.lower()
    squeezed = lowered.replace(" ", "").replace("\t", "")
    spaced = _LITERALS.present(squeezed)
    present = frozenset(word for word in spaced if word in lowered) if len(squeezed) < len(lowered) else spaced
    runs, digits = runs_and_digits(lowered)
    return Gated(text, lowered, present, runs, spaced, digits)


# The shortest run of key characters (`key_runs`) a credential holds when no gate word, plugin needle or key prefix
# is there to open a rule: the random-run rules' runs, the plugins without needles (Artifactory's 11), a base64 blob.
# tests/scanning/test_gates.py holds every pattern to it.
QUIET_RUN = 11
# The fewest digits a number some wordless rule finds holds (an IBAN's 8; a card's 13, an SSN's 9): a text with
# fewer, and no gate word or long run, holds none of them.
QUIET_DIGITS = min(rule.min_digits for rule in RULES if not rule.gate and rule.min_digits)


# The wordless rules a text's digits open (a card's 13 in the shape of one): asked only of a text with enough.
_COUNTED = tuple(rule for rule in RULES if not rule.gate and rule.min_digits)
# The words only rules are gated by (not a plugin's needle, a key name `split` looks after or a split-key prefix),
# each with what its rules need besides the word: a sieve (None when a rule has none) and a number of digits. A text
# holding the word opens a rule when it has the digits and the sieve matches ("tan" in "important" opens nothing).
_RULE_WORDS: dict[str, tuple[tuple[Pattern | None, int], ...]] = {}
for _rule in (PRIVATE_KEY, *RULES):
    for _word in _rule.gate:
        if _word in providers.NEEDLES or _word in KEY_WORDS or _word in SPLIT_PREFIXES:
            continue
        _RULE_WORDS[_word] = (*_RULE_WORDS.get(_word, ()), (_rule.sieve_for(_word), _rule.min_digits))
# The words only `context` looks for: it has its own gate (`context.may_find`).
_CUE_WORDS = context.CUES - _RULE_WORDS.keys() - providers.NEEDLES - set(KEY_WORDS) - SPLIT_PREFIXES


def quiet(view: Gated) -> bool:
    """Whether a gated text can hold no credential at all: no run of `QUIET_RUN` key characters, no number a
    wordless rule looks for (fewer than `QUIET_DIGITS` digits, or none in the shape of one), and no needle,
    split-key prefix or gate word anywhere in it (spaces and tabs taken out) but words whose every rule's sieve
    fails ("code" with no digit after it: "status codes to retry on"). Most prose is quiet (a question, a short
    answer), and `redact` answers it from the gate alone instead of running every rule and plugin to find nothing."""
    if view.has_run(QUIET_RUN) or (view.digits >= QUIET_DIGITS and any(rule.opens(view) for rule in _COUNTED)):
        return False
    if context.may_find(view):
        return False
    return not view.spaced or all(_shut(word, view) for word in view.spaced)


def _shut(word: str, view: Gated) -> bool:
    """Whether `word` opens nothing in `view`: a word only rules are gated by, which the text holds only with spaces
    taken out, or after which every rule's sieve fails."""
    if word in _CUE_WORDS:
        return True
    if word not in _RULE_WORDS:
        return False
    if word not in view.present:
        return True
    needs = [sieve for sieve, digits in _RULE_WORDS[word] if view.digits >= digits]
    if not needs:
        return True
    if None in needs or len(view.lowered) != len(view.text):  # sieves need one lower-case character for one
        return False
    return not any(view.sifts(sieve) for sieve in needs if sieve is not None)


def hits(text: str, view: Gated | None = None) -> Iterator[Hit]:
    """Every credential in `text`, in order of precedence: our specific rules, detect-secrets' providers (before
    the random-run rules, which would find only part of a SendGrid or Discord token), then the random-run rules.
    `view`, when given, is `gated(text)`."""
    view = view or gated(text)
    yield from _hits_of("specific", text, view)
    yield from provider_hits(text, view)
    yield from _hits_of("random", text, view)
    yield from context.hits(text, view)


def provider_hits(text: str, view: Gated | None = None) -> Iterator[Hit]:
    """Every credential detect-secrets' provider regexes find in `text`, a short vendor prefix kept readable;
    `view`, when given, is `gated(text)`."""
    for label, start, end in providers.matches(text, view):
        if "[redacted]" not in text[start:end] and not example(text[start:end]):
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
    return masked(gated(text)).text


def masked(view: Gated) -> Gated:
    """`mask_all` on a gated text, gated again only after something was masked: the result is gated too."""
    view = _masked_by("first", view)
    spans = [(hit.start, hit.end) for hit in provider_hits(view.text, view)]
    if spans:
        view = _regated(view, mask_spans(view.text, spans))
    view = _masked_by("random", view)
    spans = [(hit.start, hit.end) for hit in context.hits(view.text, view)]
    return _regated(view, mask_spans(view.text, spans)) if spans else view


def _masked_by(which: str, view: Gated) -> Gated:
    """`view` masked by the rules `which` names (`_ORDERED`), in order. Most rules are shut by their gate words: the
    ones a text's gate words leave open are looked up once per set of words (`_open_to`), again only after a rule
    masked something (which gates the text anew)."""
    rules, candidates, done = _ORDERED[which], _open_to(which, view.present), -1
    while candidates:
        for i in candidates:
            rule = rules[i]
            if rule.opens(view):
                text = redacted(rule, view.text, view.lowered)
                if text is not view.text:
                    view, done = gated(text), i
                    break
        else:
            return view
        candidates = tuple(j for j in _open_to(which, view.present) if j > done)
    return view


_ORDERED = {"first": _FIRST, "specific": SPECIFIC, "random": RANDOM}


def _hits_of(which: str, text: str, view: Gated) -> Iterator[Hit]:
    """`rule_hits` of the rules `which` names, asking only those the text's gate words may open (`_open_to`)."""
    return rule_hits(text, _rules_open_to(which, view.present), view)


@lru_cache(maxsize=1024)
def _rules_open_to(which: str, present: frozenset[str]) -> tuple[Rule, ...]:
    rules = _ORDERED[which]
    return tuple(rules[i] for i in _open_to(which, present))


@lru_cache(maxsize=1024)
def _open_to(which: str, present: frozenset[str]) -> tuple[int, ...]:
    """The positions in `_ORDERED[which]` of the rules a text holding the gate words `present` may open (a rule
    without gate words, or with one of them). Few texts hold more than a handful, the same ones again and again
    ("code", "key"): a lookup instead of a hundred set tests per text."""
    return tuple(i for i, rule in enumerate(_ORDERED[which]) if not rule.gate or not rule.words.isdisjoint(present))


def _regated(view: Gated, text: str) -> Gated:
    return view if text is view.text else gated(text)


_VENDOR_PREFIX = re.compile(r"[A-Za-z0-9]{1,10}[-_.:]")


def _prefix_length(secret: str) -> int:
    """The vendor or id prefix of a provider's match ("SG.", "sq0csp-", the bot id of a Telegram token)."""
    m = _VENDOR_PREFIX.match(secret)
    return m.end() if m and len(secret) - m.end() >= 16 else 0
