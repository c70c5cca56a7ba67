"""Content scanning for memory writes, and credential redaction for logs.

Memories are replayed into future prompts, so a stored secret leaks to every later conversation and a stored
injection steers it. `scan` rejects such text before it is stored; `redact` masks the same credentials in log lines.
Both look through disguises first (`normalise`: invisible characters, look-alike and full-width letters; `split`:
keys broken by spaces; `decoding`: base64 and other encodings). These filters are defence in depth: what may be
replayed at all is decided by where a memory came from, not by them.

Modules: `secrets` (our credential patterns), `providers` (detect-secrets' provider plugins), `split`,
`injections`, `normalise`, `decoding`, `shapes` (is a value random, a chosen password, a placeholder?).
Foundation layer: imports only the standard library and detect-secrets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from . import injections
from .decoding import decoded
from .normalise import aligned, invisible, visible
from .rules import Hit, mask, rule_hits
from .secrets import PRIVATE_KEY, RULES, provider_hits
from .split import split_hits

__all__ = ["Finding", "redact", "scan", "visible"]


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "secret" | "private_key" | "invisible_unicode" | "prompt_injection"
    reason: str  # safe to show to a user or a model: never contains the matched text


def _credential(folded: str) -> Finding | None:
    if PRIVATE_KEY.pattern.search(folded):
        return Finding("private_key", "text appears to contain a private key - not stored")
    for hit in chain(rule_hits(folded, RULES), provider_hits(folded), split_hits(folded)):
        return Finding("secret", f"text appears to contain a secret ({hit.label}) - not stored")
    return None


def scan(text: str) -> Finding | None:
    """The first problem that makes `text` unsafe to store as a memory, or None: a private key, then a secret,
    then an invisible character, then a prompt injection."""
    folded = aligned(text).text
    inner = list(decoded(folded))
    for view in (folded, *inner):
        if found := _credential(view):
            return found
    if hidden := invisible(text):
        return Finding("invisible_unicode", f"text contains an invisible character (U+{ord(hidden):04X}) - not stored")
    if label := injections.find(text, folded, inner):
        return Finding("prompt_injection", f"text looks like a prompt injection ({label}) - not stored")
    return None


def _mask_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with each span replaced by "[redacted]"; a span overlapping one already taken is skipped."""
    taken: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        if start < end and (not taken or start >= taken[-1][1]) and "[redacted]" not in text[start:end]:
            taken.append((start, end))
    for start, end in reversed(taken):
        text = text[:start] + "[redacted]" + text[end:]
    return text


def redact(text: str) -> str:
    """`text` with every credential `scan` knows replaced by "[redacted]", keeping its non-secret prefix."""
    for rule in (PRIVATE_KEY, *RULES):  # in order: a later rule sees "[redacted]", not the secret
        text = mask(rule, text)
    text = _mask_spans(text, [(hit.start, hit.end) for hit in provider_hits(text)])
    # Secrets seen only once the text is folded or its pieces joined: mask the characters they came from.
    view = aligned(text)
    hits: Iterable[Hit] = split_hits(view.text)
    if view.origin is not None:
        hits = chain(hits, rule_hits(view.text, (PRIVATE_KEY, *RULES)), provider_hits(view.text))
    return _mask_spans(text, [view.source_span(hit.start, hit.end) for hit in hits])
