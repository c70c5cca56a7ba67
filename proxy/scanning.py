"""Content scanning for memory writes, and credential redaction for logs.

Memories are replayed into future prompts, so a stored secret leaks to every later conversation and a stored
injection steers it. `scan` rejects such text before it is stored; `redact` masks the same credentials in log lines.
Pure and stdlib-only: every pattern is compiled once here and is linear in the text (no nested unbounded repeats).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # "secret" | "private_key" | "invisible_unicode" | "prompt_injection"
    reason: str  # safe to show to a user or a model: never contains the matched text


@dataclass(frozen=True, slots=True)
class _Rule:
    """A credential: groups `keep` (a non-secret prefix) and `secret`; `check` tells it from a look-alike."""

    label: str
    pattern: re.Pattern[str]
    check: Callable[[re.Match[str]], bool] = lambda m: True


_PIECES = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_PLACEHOLDER = re.compile(
    r"[$<{%\[*].*|your[\w-]*|x+|\.+|none|null|nil|true|false|redacted|hidden|masked|required|optional"
    r"|example|placeholder|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+[(\[]?|[A-Za-z_]\w*[(\[]",  # last two: code, not a literal
    re.I,
)
_PROSE_NEXT = re.compile(r"[ \t]+[A-Za-z]")
_KEY_CHARS = "[A-Za-z0-9_-]"


def _looks_generated(value: str, max_run: float = 4.0) -> bool:
    """Generated keys switch between lower case, upper case and digits every few characters; words do not."""
    classes = any(c.islower() for c in value) + any(c.isupper() for c in value) + any(c.isdigit() for c in value)
    pieces = _PIECES.findall(value)
    return classes >= 2 and bool(pieces) and sum(map(len, pieces)) / len(pieces) < max_run


def _is_key_body(m: re.Match[str]) -> bool:
    """`sk-` is also a prefix of kebab-case names ("sk-learn-compatible"): need a random-looking body, or
    letters and digits together (16+ characters by the pattern), or a long one."""
    body = m["keep"][3:] + m["secret"]
    mixed = any(c.isdigit() for c in body) and any(c.isalpha() for c in body)
    return _looks_generated(body) or mixed or len(body) >= 40


def _is_token(m: re.Match[str]) -> bool:
    return _looks_generated(m["secret"])


def _is_literal(m: re.Match[str]) -> bool:
    """A literal, not a placeholder ("${DB_PASSWORD}", "<your key>"), code or prose ("password: must be...")."""
    value = m["secret"].rstrip(".!?:")
    if len(value) < 4 or _PLACEHOLDER.fullmatch(value) or "[redacted" in value:  # already masked by an earlier rule
        return False
    if value.isalpha() and _PROSE_NEXT.match(m.string, m.end()):
        return False
    return not (value.isdigit() and len(value) < 8 and "token" in m["keep"].lower())  # "max token: 4000"


def _is_url_password(m: re.Match[str]) -> bool:
    return not _PLACEHOLDER.fullmatch(m["secret"])


def _is_random_blob(m: re.Match[str]) -> bool:
    """All three character classes in short runs (not a CamelCase path), and not a path segment of a URL."""
    blob = m["secret"]
    if not (any(c.islower() for c in blob) and any(c.isupper() for c in blob) and any(c.isdigit() for c in blob)):
        return False
    head = m.string[max(0, m.start() - 2048) : m.start() + 2]  # ends inside the blob: its last word holds the blob
    return "://" not in head.split()[-1] and _looks_generated(blob, max_run=3.3)


_PRIVATE_KEY = re.compile(
    r"(?P<keep>-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)"
    r"(?P<secret>(?s:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*))"
)
_ASSIGNMENT = r"[\"']?[ \t]*[:=]>?[ \t]*[\"']?)(?P<secret>[^\s\"'`,;)\]}>]{4,})"

# Most specific first: `redact` applies them in this order, so later rules see "[redacted]", not the secret.
_SECRETS: tuple[_Rule, ...] = (
    _Rule("an API key", re.compile(rf"\b(?P<keep>sk-[A-Za-z0-9]{{3}})(?P<secret>{_KEY_CHARS}{{13,}})"), _is_key_body),
    _Rule("a GitHub token", re.compile(r"\b(?P<keep>gh[pousr]_|github_pat_)(?P<secret>[A-Za-z0-9_]{20,})")),
    _Rule("a GitLab token", re.compile(rf"\b(?P<keep>glpat-)(?P<secret>{_KEY_CHARS}{{16,}})")),
    _Rule("a Slack token", re.compile(r"\b(?P<keep>xox[abeoprs]-|xapp-)(?P<secret>[A-Za-z0-9-]{10,})")),
    _Rule("an AWS access key", re.compile(r"\b(?P<keep>A[KS]IA)(?P<secret>[A-Z0-9]{16})\b")),
    _Rule("a Google API key", re.compile(rf"\b(?P<keep>AIza)(?P<secret>{_KEY_CHARS}{{30,}})")),
    _Rule("a Stripe key", re.compile(r"\b(?P<keep>[rs]k_(?:live|test)_)(?P<secret>[A-Za-z0-9]{10,})")),
    _Rule("a JWT", re.compile(rf"\b(?P<keep>eyJ)(?P<secret>{_KEY_CHARS}{{8,}}\.{_KEY_CHARS}{{8,}}\.{_KEY_CHARS}*)")),
    _Rule(
        "a password in a connection string",
        re.compile(r"\b(?P<keep>[a-z][a-z0-9+.-]{0,20}://[^\s:/@?#]*:)(?P<secret>[^\s/@?#]+)(?=@)", re.I),
        _is_url_password,
    ),
    _Rule("a bearer token", re.compile(r"\b(?P<keep>bearer\s+)(?P<secret>[A-Za-z0-9._~+/=-]{8,})", re.I), _is_token),
    _Rule("a password", re.compile(r"(?P<keep>(?:passw(?:or)?d|passphrase)" + _ASSIGNMENT, re.I), _is_literal),
    _Rule(
        "a token or API key",
        re.compile(r"(?P<keep>(?:token|secret|(?:api|access|secret|private)[ _-]?key|apikey)" + _ASSIGNMENT, re.I),
        _is_literal,
    ),
    _Rule(
        "a high-entropy key",
        re.compile(r"(?<![A-Za-z0-9+/_-])(?P<keep>)(?P<secret>[A-Za-z0-9+/_-]{40,}={0,2})"),
        _is_random_blob,
    ),
)

_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
_EMOJI = "\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
_JOINING_SCRIPTS = "\u0600-\u0dff\ufb50-\ufdff\ufe70-\ufefc"  # Arabic, Syriac, ..., the Indic scripts
_TAGS = "|".join("".join(chr(0xE0000 + ord(c)) for c in flag) for flag in ("gbeng", "gbsct", "gbwls"))
# Joiners that legitimate text needs: ZWJ inside emoji sequences (family, profession, rainbow flag), ZWJ/ZWNJ between
# letters of scripts that use them (Persian, Hindi), and the tag characters of the three subdivision flag emoji.
_ALLOWED_INVISIBLE = re.compile(
    f"(?<=[{_EMOJI}\ufe0f])\u200d(?=[{_EMOJI}])"
    f"|(?<=[{_JOINING_SCRIPTS}])[\u200c\u200d](?=[{_JOINING_SCRIPTS}])"
    f"|(?<=\U0001f3f4)(?:{_TAGS})\U000e007f"
)

_INJECTIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.I))
    for label, pattern in (
        (
            "an instruction override",
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|every|the|of|these|those|my|your)\s+)*"
            r"(?:previous|prior|above|earlier|preceding|former|original|initial|system|developer)\s+"
            r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines)\b",
        ),
        (
            "an instruction override",
            r"\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?your\s+(?:\w+\s+)?"
            r"(?:instructions|programming|rules|guidelines|directives|prompt)\b"
            r"|\b(?:ignore|disregard)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+)?above\b"
            r"|\bforget\s+everything\b(?!\s+(?:about|related|regarding|concerning|from|in|on|of)\b)",
        ),
        (
            "a role reassignment",
            r"\byou\s+are\s+now\s+(?:a|an|the|in|my|no\s+longer|going\s+to|acting|playing|dan|unrestricted|jailbroken)\b",
        ),
        ("an instruction header", r"\b(?:new|updated|revised|real|actual)\s+(?:system\s+)?instructions\s*:"),
        ("an instruction header", r"\bsystem\s+prompt\s*:"),
        ("a concealment instruction", r"\b(?:do\s+not|don[’']?t|never)\s+(?:tell|inform)\s+the\s+user\b(?!['’]s)"),
        (
            "a chat-template marker",
            r"<\|[a-z_]{2,30}\|>|\[\s*/?\s*inst\s*\]|<<\s*/?\s*sys\s*>>|<(?:start|end)_of_turn>"
            r"|<\s*/?\s*(?:system|assistant|im_start|im_end)\s*>",
        ),
    )
)


def scan(text: str) -> Finding | None:
    """The first problem that makes `text` unsafe to store as a memory, or None."""
    if _PRIVATE_KEY.search(text):
        return Finding("private_key", "text appears to contain a private key - not stored")
    for rule in _SECRETS:
        if any(rule.check(m) for m in rule.pattern.finditer(text)):
            return Finding("secret", f"text appears to contain a secret ({rule.label}) - not stored")
    if _INVISIBLE.search(text) and (hidden := _INVISIBLE.search(_ALLOWED_INVISIBLE.sub("", text))):
        code = f"U+{ord(hidden[0]):04X}"
        return Finding("invisible_unicode", f"text contains an invisible character ({code}) - not stored")
    for label, pattern in _INJECTIONS:
        if pattern.search(text):
            return Finding("prompt_injection", f"text looks like a prompt injection ({label}) - not stored")
    return None


def redact(text: str) -> str:
    """`text` with every credential `scan` knows replaced by "[redacted]", keeping its non-secret prefix."""
    for rule in (_Rule("a private key", _PRIVATE_KEY), *_SECRETS):

        def mask(m: re.Match[str], check: Callable[[re.Match[str]], bool] = rule.check) -> str:
            return m["keep"] + "[redacted]" if check(m) else m[0]

        text = rule.pattern.sub(mask, text)
    return text
