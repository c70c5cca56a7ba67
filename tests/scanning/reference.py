"""The reference: `redact`, `mask_all` and `scan` as they were before the gates were worked out once per text,
frozen so a test can hold the faster ones to exactly the same output.

Every rule lower-cases the text again and tries its own gate words one by one, the private-key and random-run
rules have no gate, and each provider plugin runs its gate regexes on every text. What the faster code left as
it was (the rules' patterns, checks and gate words, the plugins' regexes, the folding, the split-key and
injection searches) is imported, not copied.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from itertools import chain, islice
from urllib.parse import unquote

from proxy.scanning import REDACT_PASSES, Finding, _redact_prose, context, credential, decide, providers, split
from proxy.scanning.decoding import (
    _BASE64,
    _ENTITY,
    _ESCAPE,
    _PERCENT,
    MAX_BLOBS,
    MIN_ESCAPES,
    _unescape,
    readable_base64,
)
from proxy.scanning.keys import example
from proxy.scanning.normalise import aligned, fold
from proxy.scanning.rules import Hit, Rule, finditer
from proxy.scanning.secrets import PRIVATE_KEY, RANDOM, SPECIFIC, _prefix_length, mask_spans


def reference_may_match(rule: Rule, lowered: str) -> bool:
    gate = () if rule is PRIVATE_KEY else rule.gate  # it had no gate words then
    return not gate or any(word in lowered for word in gate)


def reference_rule_hits(text: str, rules: tuple[Rule, ...]) -> Iterator[Hit]:
    lowered = text.lower()
    for rule in rules:
        if reference_may_match(rule, lowered):
            for m in finditer(rule.pattern, text, lowered):
                if rule.check(m):
                    yield Hit(rule.label, m.start("secret"), m.end("secret"), rule.suspect)


def reference_mask(rule: Rule, text: str) -> str:
    lowered = text.lower()
    if not reference_may_match(rule, lowered):
        return text
    parts, done = [], 0
    for m in finditer(rule.pattern, text, lowered):
        if rule.check(m):
            parts += [text[done : m.start("secret")], "[redacted]"]
            done = m.end("secret")
    return "".join(parts) + text[done:] if parts else text


def reference_provider_matches(text: str) -> Iterator[tuple[str, int, int]]:
    lowered = text.lower()
    for provider in providers.providers():
        if not all(gate.search(lowered) for gate in provider.gates):
            continue
        for pattern in provider.patterns:
            for m in pattern.finditer(text):
                start, end = providers._secret_span(m)
                while start < end and text[start] in providers._DELIMITERS:
                    start += 1
                while end > start and text[end - 1] in providers._DELIMITERS:
                    end -= 1
                if end > start and providers._valid(text[start:end]):
                    yield provider.label, start, end


def reference_provider_hits(text: str) -> Iterator[Hit]:
    for label, start, end in reference_provider_matches(text):
        if "[redacted]" not in text[start:end] and not example(text[start:end]):
            yield Hit(label, start + _prefix_length(text[start:end]), end)


def reference_hits(text: str) -> Iterator[Hit]:
    yield from reference_rule_hits(text, SPECIFIC)
    yield from reference_provider_hits(text)
    yield from reference_rule_hits(text, RANDOM)
    yield from context.find(text)


def reference_mask_all(text: str) -> str:
    for rule in (PRIVATE_KEY, *SPECIFIC):
        text = reference_mask(rule, text)
    text = mask_spans(text, [(hit.start, hit.end) for hit in reference_provider_hits(text)])
    for rule in RANDOM:
        text = reference_mask(rule, text)
    return mask_spans(text, [(hit.start, hit.end) for hit in context.find(text)])


# Where a key prefix, perhaps spaced out ("s k - p r o j"), starts a word: 70 alternatives tried at every position.
REFERENCE_PREFIX_START = re.compile(
    r"(?<![\w.-])(?:" + "|".join("[ \t]?".join(map(re.escape, p)) for p in split._PREFIXES) + ")"
)


def reference_split_hits(text: str) -> Iterator[Hit]:
    yield from split._after_prefix(text, (m.start() for m in REFERENCE_PREFIX_START.finditer(text)))
    lowered = text.lower()
    if any(word in lowered for word in ("token", "secret", "key", "passw")):
        yield from split._after_key_name(text, lowered)


def reference_base64_texts(text: str) -> Iterator[tuple[int, int, str]]:
    for m in islice(_BASE64.finditer(text), MAX_BLOBS):
        if (inner := readable_base64(m[0])) is not None:
            yield m.start(), m.end(), fold(inner)


def reference_decoded(text: str) -> Iterator[str]:
    for _, _, inner in reference_base64_texts(text):
        yield inner
    if len(_PERCENT.findall(text)) >= MIN_ESCAPES:
        yield fold(unquote(text))
    if len(_ENTITY.findall(text)) >= MIN_ESCAPES:
        yield fold(html.unescape(text))
    if len(_ESCAPE.findall(text)) >= MIN_ESCAPES:
        yield fold(_ESCAPE.sub(_unescape, text))


def reference_credential(folded: str) -> Finding | None:
    if PRIVATE_KEY.pattern.search(folded):
        return Finding("private_key", "text appears to contain a private key - not stored")
    return credential(chain(reference_hits(folded), reference_split_hits(folded)))


def reference_scan(text: str) -> Finding | None:
    folded = aligned(text).text
    inner = list(reference_decoded(folded))
    return decide(text, folded, inner, [reference_credential(view) for view in (folded, *inner)])


def reference_redact(text: str) -> str:
    """Masked again while a secret is left, as `redact` does (a mask can uncover another secret)."""
    masked_once = _reference_redact_once(text)
    for _ in range(REDACT_PASSES - 1):
        if masked_once == text or not _still_secret(masked_once):
            break
        text, masked_once = masked_once, _reference_redact_once(masked_once)
    return _redact_prose(masked_once)  # then the credential model's values, as `redact` does (no rule of its own)


def _still_secret(text: str) -> bool:
    found = reference_scan(text)
    return found is not None and found.kind == "secret"


def _reference_redact_once(text: str) -> str:
    view = aligned(text)
    if view.origin is None:
        text = reference_mask_all(text)
        spans = [(hit.start, hit.end) for hit in reference_split_hits(text)]
    else:
        found = chain(
            reference_rule_hits(view.text, (PRIVATE_KEY,)), reference_hits(view.text), reference_split_hits(view.text)
        )
        spans = [view.source_span(hit.start, hit.end) for hit in found]
    text = mask_spans(text, spans)
    base64 = reference_base64_texts(text)
    return mask_spans(text, [(start, end) for start, end, inner in base64 if reference_credential(inner)])
