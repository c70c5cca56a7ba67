"""Tests on a candidate value: does it look generated, like a chosen password, or like a placeholder or prose?

Patterns find where a credential would be; these tell a credential from the words, names and placeholders that
sit in the same places ("password: must be rotated", "sk-learn-compatible", "${DB_PASSWORD}").
"""

from __future__ import annotations

import base64
import binascii
import re

_PIECES = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
PLACEHOLDER = re.compile(
    r"[$<{%\[*].*|your[\w-]*|x+|\.+|none|null|nil|true|false|redacted|hidden|masked|required|optional"
    # these two: code, not a literal ("settings.DB_PASSWORD", "getenv("), unless it ends in digits as words with
    # dots do ("cafe.com.leite88") or has a digit inside a word, as a chosen one does ("Br3athe.Lift.Rest")
    r"|example|placeholder|(?!.*\d[A-Za-z])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?<!\d)[(\[]?|[A-Za-z_]\w*[(\[]"
    # the word standing for itself in templates: "postgres://user:password@localhost", "PASSWORD=changeme"
    r"|passw(?:or)?d|changeme|change[_-]me|changeit|my-?password",
    re.I,
)
_CAPITALS = re.compile("[A-Z][A-Z_]*")
# A password manager's name: where secrets are kept, named, is none of them ("the 1Password 'Break glass' vault")
PASSWORD_MANAGER = re.compile(r"1password|keepass\w*|bitwarden|lastpass|dashlane|keeper", re.I)


def placeholder(value: str) -> bool:
    """A stand-in for a value: "${DB_PASSWORD}", "<your key>", "xxxx", "PASSWORD" in "postgres://USER:PASSWORD@HOST",
    "password" or "changeme" in a template, or code ("os.environ[...]")."""
    return bool(PLACEHOLDER.fullmatch(value) or _CAPITALS.fullmatch(value) or stand_in(value))


# What a template or a doc prints where a value goes: one character over and over, a run of x's, "replace_me",
# "your_key_here", "placeholder", "dummy" (in "sk_test_replace_me", "ghp_xxxxxxxx...", "AKIA...DUMMY").
_STAND_IN = re.compile(
    r"(?P<same>.)(?P=same){7,}|.*[_-](?:x{3,}|\.{3,}|…)$"  # "sk_test_xxx", "ghp_..."
    r"|.*(?:x{8,}|0{12,}|(?:replace|change|fill|insert|paste|put)[_-]?(?:me|this|here|in|yours?)"
    r"(?![a-z])|your[_-]?[a-z_-]*[_-]?here|placeholder|dummy)"
    r".*|!secret\b.*|1password|bitwarden|keepass(?:xc)?|lastpass|dashlane",
    re.I | re.S,
)


def stand_in(value: str) -> bool:
    """Whether `value` is a stand-in a template or a doc prints in place of a secret, not a secret: and "!secret x"
    (a reference into Home Assistant's secrets.yaml) or a password manager's name, where the secret is kept."""
    return _STAND_IN.fullmatch(value) is not None


_SYMBOLS = set("!?@#$%^&*+=~_/\\|<>")


def looks_generated(value: str, max_run: float = 4.0) -> bool:
    """Generated keys switch between lower case, upper case and digits every few characters; words do not."""
    classes = any(c.islower() for c in value) + any(c.isupper() for c in value) + any(c.isdigit() for c in value)
    pieces = _PIECES.findall(value)
    return classes >= 2 and bool(pieces) and sum(map(len, pieces)) / len(pieces) < max_run


def all_classes(value: str) -> bool:
    """Lower case, upper case and digits all present: what a random base62/base64 string of 16+ characters has."""
    return any(c.islower() for c in value) and any(c.isupper() for c in value) and any(c.isdigit() for c in value)


_PASSPHRASE = re.compile(r"[A-Za-z]{3,}(?:[-_.][A-Za-z]{3,}){2,}")  # "correct-horse-battery-staple"


def chosen_password(value: str) -> bool:
    """A password someone chose ("hunter2", "Tr0ub4dor&3", "CorrectHorse99", "correct-horse-battery"), not a word
    that follows "password is" in prose ("stored", "hashed", "required"): letters with digits, symbols or inner
    capitals, or three words or more joined by dashes, dots or underscores."""
    value = value.rstrip(".,;:)")
    if len(value) < 4 or placeholder(value) or "[redacted" in value:
        return False
    if _PASSPHRASE.fullmatch(value):
        return True
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(c in _SYMBOLS for c in value.rstrip("!?"))  # a closing "!" or "?" ends the sentence
    inner_capital = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (letters and (digits or symbols or inner_capital)) or (digits and symbols)


def strong_password(value: str) -> bool:
    """A chosen password with three of lower case, upper case, digits and symbols ("Tr4velB4g!"): what "pass"
    followed by a word must be before it is taken for one, since "pass" is also a verb ("pass CI42 checks")."""
    value = value.rstrip(".,;:)")
    kinds = (str.islower, str.isupper, str.isdigit, lambda c: c in _SYMBOLS or c in "!?-.")
    return chosen_password(value) and sum(any(kind(c) for c in value) for kind in kinds) >= 3


def basic_credential(value: str) -> bool:
    """An HTTP Basic credential: base64 of "user:password" in printable text."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and password and decoded.isprintable())


# A sentence that shows what a credential looks like rather than holding one: "tokens look like ...", "e.g.", "the
# sandbox IBAN ... is in every tutorial". Asked only of what is suspect: it never lets a certain finding through.
EXAMPLE_TALK = re.compile(
    r"(?<![@.])\b(?:examples?(?!\.[a-z])|e\.g\.|for instance|looks?[ \t]+like|such[ \t]+as|samples?|sandbox|dummy"
    # (not a phishing page's: "typed my password into the fake DocuSign page" gave the real one away)
    r"|fake(?![ \t]+(?:[\w-]+[ \t]+)?(?:page|site|website|login|e-?mail|mail|link|form|portal|app|call|caller|text|sms"
    r"|message))"
    # ("docs" in lower case and alone: "Google Docs", "Read the Docs" are products, "tidewater-docs" a name)
    r"|placeholders?|tutorials?|(?<![-_/])(?-i:docs)|documentation|formats?|mock|fictional|fictitious"
    # the same in the languages the corpus has: example, fictitious, documentation, "e.g."
    r"|beispiel\w*|fiktiv\w*|exemples?|fictifs?|fictives?|ejemplos?|ficticios?|ficticias?|esemp[io]|fittizi\w*"
    r"|exemplos?|fict[ií]ci\w*|voorbeelde?n?|fictie\w*|przyk[łl]ad\w*|fikcyjn\w*|dokumentacj\w*|np\.|z\.[ \t]?b\.)\b",
    re.I,
)
# a full stop ends a sentence, but not the one of "e.g." in the languages above ("np.", "z.B.", "bijv.", "ej.")
_SENTENCE_END = re.compile(r"(?<!\bnp)(?<!\bej)(?<!e\.g)(?<!z\.b)(?<!z\.B)(?<!bijv)(?<!\bcf)[.!?;](?=\s)|\n")
REACH = 160  # characters looked at on each side, within the sentence


def sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence around `text[start:end]`, at most `REACH` characters either side."""
    low = max(0, start - REACH)
    before = [m.end() for m in _SENTENCE_END.finditer(text, low, start)]
    after = _SENTENCE_END.search(text, end, end + REACH)
    return (before[-1] if before else low), (after.start() if after else min(len(text), end + REACH))


def talked_about(text: str, start: int, end: int) -> bool:
    """Whether the sentence around `text[start:end]` shows it as an example (`EXAMPLE_TALK`)."""
    low, high = sentence(text, start, end)
    return EXAMPLE_TALK.search(text, low, high) is not None
