"""Content scanning for memory writes, and credential redaction for logs.

Memories are replayed into future prompts, so a stored secret leaks to every later conversation and a stored
injection steers it. `scan` judges a text before it is stored: a finding is *certain* (a key, a card number named
as one, a PIN, an id number that passes its check, "ignore previous instructions": the write is refused) or
*suspect* (an unnamed card-shaped number, an IBAN, a random blob, an instruction to the assistant without the usual
headers: the write is stored held for a person to review, with the finding's reason). `redact` masks the same
credentials, certain and suspect, in history, offloaded tool outputs, extraction transcripts and log lines. Both
look through disguises first: invisible characters, look-alike and full-width letters (`normalise`), keys broken by
spaces (`split`), text in base64 and other encodings (`decoding`). These filters are defence in depth: what may be
replayed at all is decided by where a memory came from, not by them.

Modules: `keys` (key formats), `passwords` (passwords and keys named by a word), `numbers` (cards, PINs and codes,
id numbers, recovery codes), `documents` (a passport's machine-readable zone), `providers` (detect-secrets' provider
plugins), `secrets` (all of them in order of precedence), `rules` (the machinery they run on), `shapes` (is a value
random, chosen, a placeholder?), `injections` (certain), `headers` ("System message:" and its kind, an injection with
an order after it), `instructions` (suspect), `instructing` (a model of what orders to the assistant read like,
suspect), `credentialing` (a model of what a credential given in prose reads like, for the classes no rule names,
suspect). A foundation module: imports only the standard library, detect-secrets and python-stdnum, never another
proxy package.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from . import credentialing, headers, injections, instructing, instructions, wallets
from .decoding import base64_texts, decoded, spelled_runs
from .normalise import aligned, invisible, visible
from .rules import Hit, rule_hits
from .secrets import PRIVATE_KEY, gated, hits, mask_spans, masked, quiet
from .split import split_hits

__all__ = ["Finding", "redact", "scan", "visible", "warm"]

INSTRUCTING = "text reads like an instruction to the assistant (the instruction model) - held for review"
CREDENTIALING = "text may give a credential in prose (the credential model) - held for review"


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "secret" | "private_key" | "invisible_unicode" | "prompt_injection"
    reason: str  # safe to show to a user or a model: never contains the matched text
    severity: str = "certain"  # "certain": refused; "suspect": only looks like one, held for a person to review

    @property
    def certain(self) -> bool:
        return self.severity == "certain"


def credential(hits: Iterable[Hit]) -> Finding | None:
    """The finding `hits` make: the first certain one's, else the first suspect one's, else None."""
    suspect = None
    for hit in hits:
        if not hit.suspect:
            return Finding("secret", f"text appears to contain a secret ({hit.label}) - not stored")
        suspect = suspect or hit
    if suspect is None:
        return None
    return Finding("secret", f"text may contain a secret ({suspect.label}) - held for review", "suspect")


def _credential(folded: str) -> Finding | None:
    view = gated(folded)
    if PRIVATE_KEY.opens(view) and PRIVATE_KEY.pattern.search(folded):
        return Finding("private_key", "text appears to contain a private key - not stored")
    return credential(chain(hits(folded, view), split_hits(folded, view), wallets.hits(folded)))


def warm() -> None:
    """Read both models now: a process calls it as it starts, before its first request (`Services`), else the first
    write would read them, about half a second, on the event loop that every other request waits on; a thread that
    read them while the first requests came would hold the interpreter's lock as long."""
    instructing.model()
    credentialing.model()


def scan(text: str) -> Finding | None:
    """The worst problem that makes `text` unsafe to store as a memory, or None. Certain ones first (refused): a
    private key, a secret, an invisible character, a prompt injection; then suspect ones (held for review): what
    only looks like a secret, then an instruction to the assistant without the usual headers (`instructions`), then
    a text the instruction model (`instructing`) reads as an order to the assistant, then one the credential model
    (`credentialing`) reads as a credential given in prose."""
    folded = aligned(text).text
    inner = list(decoded(folded))
    return decide(text, folded, inner, [_credential(view) for view in (folded, *inner)])


def decide(text: str, folded: str, inner: list[str], credentials: list[Finding | None]) -> Finding | None:
    """`scan`'s verdict from what it found in each view (the folded text, then the decoded ones)."""
    found = [finding for finding in credentials if finding is not None]
    for finding in found:
        if finding.certain:
            return finding
    if hidden := invisible(text):
        return Finding("invisible_unicode", f"text contains an invisible character (U+{ord(hidden):04X}) - not stored")
    if label := injections.find(text, folded, inner):
        return Finding("prompt_injection", f"text looks like a prompt injection ({label}) - not stored")
    if found:
        return found[0]
    if label := instructions.find(folded):
        reason = f"text looks like an instruction to the assistant ({label}) - held for review"
        return Finding("prompt_injection", reason, "suspect")
    judged = headers.body(injections.unquoted(text, folded))
    if instructing.instructs(judged) and not instructing.talks_about_prompts(text) and not instructing.reported(text):
        return Finding("prompt_injection", INSTRUCTING, "suspect")
    if credentialing.credential(folded):
        return Finding("secret", CREDENTIALING, "suspect")
    return None


REDACT_PASSES = 6  # a mask can uncover another secret: "CVV on my card ending 1536 is 482" names 1536 first


def redact(text: str) -> str:
    """`text` with every credential `scan` knows replaced by "[redacted]", keeping its non-secret prefix. A rule may
    take a number its name reaches first for the secret and, once that is masked, reach the real one; a value the
    credential model masks may let a rule reach past it: what was masked is masked again until `scan` finds no
    secret (a text without one pays for one pass)."""
    for _ in range(REDACT_PASSES):
        masked = _redact_prose(_redact_once(text))
        if masked == text or not _still_secret(masked):
            return masked
        text = masked
    return text


def _redact_prose(text: str) -> str:
    """`text` with the values masked of a credential the credential model finds where the rules found none, and of a
    recovery phrase (`wallets`)."""
    if len(text) <= wallets.LONGEST and (phrases := [(hit.start, hit.end) for hit in wallets.hits(text)]):
        text = mask_spans(text, phrases)
    if credentialing.code(text):  # a tool call's arguments or JSON in history and transcripts: no prose to read
        return text
    view = aligned(text)
    if not credentialing.credential(view.text):
        return text
    spans = credentialing.spans(view.text)
    return mask_spans(text, spans if view.origin is None else [view.source_span(s, e) for s, e in spans])


def _still_secret(text: str) -> bool:
    found = scan(text)
    return found is not None and found.kind == "secret"


def _redact_once(text: str) -> str:
    text = _mask_spelled(text)
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


def _mask_spelled(text: str) -> str:
    """`text` with each run of digit words masked whose digits a rule finds a credential in ("keypad: two seven seven
    one"): the digits' view is what `scan` judged."""
    said, runs = spelled_runs(text)
    if not runs:
        return text
    found = [(hit.start, hit.end) for hit in hits(said, gated(said))]
    return mask_spans(
        text, [(start, end) for start, end, low, high in runs if any(a < high and low < b for a, b in found)]
    )
