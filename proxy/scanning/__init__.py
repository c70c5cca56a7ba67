"""Content scanning for memory writes, and credential redaction for logs.

Memories are replayed into future prompts, so a stored secret leaks to every later conversation and a stored
injection steers it. `scan` rejects such text before it is stored; `redact` masks the same credentials in log lines.
Both look through disguises first: invisible characters, look-alike and full-width letters (`normalise`), keys
broken by spaces (`split`), text in base64 and other encodings (`decoding`). These filters are defence in depth:
what may be replayed at all is decided by where a memory came from, not by them.

Modules: `keys` (key formats), `passwords` (passwords and keys named by a word), `providers` (detect-secrets'
provider plugins), `secrets` (all of them in order of precedence), `rules` (the machinery they run on), `shapes`
(is a value random, chosen, a placeholder?), `injections`. A foundation module: imports only the standard library
and detect-secrets, never another proxy package.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

from . import injections
from .decoding import base64_texts, decoded
from .normalise import aligned, invisible, visible
from .rules import rule_hits
from .secrets import PRIVATE_KEY, gated, hits, mask_spans, masked, quiet
from .split import split_hits

__all__ = ["Finding", "redact", "scan", "visible"]


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "secret" | "private_key" | "invisible_unicode" | "prompt_injection"
    reason: str  # safe to show to a user or a model: never contains the matched text


def _credential(folded: str) -> Finding | None:
    view = gated(folded)
    if PRIVATE_KEY.opens(view) and PRIVATE_KEY.pattern.search(folded):
        return Finding("private_key", "text appears to contain a private key - not stored")
    for hit in chain(hits(folded, view), split_hits(folded, view)):
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


def redact(text: str) -> str:
    """`text` with every credential `scan` knows replaced by "[redacted]", keeping its non-secret prefix."""
    view = aligned(text)
    if view.origin is None:  # ASCII: mask rule by rule, then the keys split by spaces
        gate = gated(text)
        if quiet(gate):
            return text
        done = masked(gate)
        text = done.text
        spans = [(hit.start, hit.end) for hit in split_hits(text, done)]
    else:  # find the credentials in the folded view, and mask the characters they came from
        folded = gated(view.text)
        found = chain(
            rule_hits(view.text, (PRIVATE_KEY,), folded), hits(view.text, folded), split_hits(view.text, folded)
        )
        spans = [view.source_span(hit.start, hit.end) for hit in found]
    # and base64 that decodes to text holding a credential ("echo T1BFTkFJX0FQSV9LRVk9c2st... | base64 -d")
    text = mask_spans(text, spans)
    return mask_spans(text, [(start, end) for start, end, inner in base64_texts(text) if _credential(inner)])
