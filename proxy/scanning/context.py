"""Passwords told by what is around them rather than by a phrasing (`passwords` has the phrasings): a strong password
anywhere, and a password-shaped word in a sentence about a password, a login or a prompt.

People write credentials in whatever sentence comes to them ("For my Synology I use Rv8!kTq2Wz", "it wants
mQ4tZr8KvX at the prompt", "password hint: the dog's name and the year, Biscuit2019"), more ways than phrasings can
list. What these sentences share is a word no prose has: lower and upper case, a digit and a symbol in one word
(strong: a password wherever it stands), or a word that only a password is in a sentence that names one (letters run
together with digits, leetspeak, a random mix of cases and digits). Both are only suspect: a write holding one is held
for a person to look at, and `redact` masks it. Names, versions, hosts, paths, addresses and hashes are told apart
by their shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import islice

from .keys import example
from .passwords import PASSWORD_WORDS
from .rules import Gated, Hit
from .shapes import EXAMPLE_TALK, looks_generated, placeholder, sentence, talked_about

# Cues: a sentence holding one is about a credential. Each is a lower-case literal without spaces, which
# `secrets.gated` finds in one pass with every gate word in the text with its spaces taken out ("log in" is "login"
# there), mapped to where a cue starts in the lower-cased text ("log" of "logs in"), looked for only when the literal
# is there. "pass" covers the password words of most languages written in Latin letters.
_ANCHORS = {
    "pass": "pass", "pw": "pw", "login": "log", "logon": "log", "signin": "sign", "credential": "credential",
    "creds": "creds", "memorable": "memorable", "secretword": "secret", "secretanswer": "secret",
    "secretquestion": "secret", "attheprompt": "prompt", "mdp": "mdp", "kennwort": "kennwort", "contrase": "contrase",
    "senha": "senha", "wachtwoord": "wachtwoord", "parola": "parola", "hasło": "hasło", "haslo": "haslo",
    "şifre": "şifre", "sifre": "sifre", "пароль": "пароль", "ssh": "ssh", "sudo": "sudo", "wifi": "wi", "wi-fi": "wi",
    "wlan": "wlan", "hotspot": "hotspot",
    # after these only a random mix of cases and digits counts (`_generated`), not a chosen word
    "token": "token", "secret": "secret", "key": "key", "auth": "auth",
}  # fmt: skip
CUES = frozenset(_ANCHORS)
_KEY_ANCHORS = frozenset({"token", "secret", "key", "auth"})  # the anchors of cues after which only `_generated` counts
# A cue, matched where an anchor starts a word.
_CUE = re.compile(
    rf"(?:{PASSWORD_WORDS}|pass|pw|pwd|log(?:s|ged|ging)?[ \t]?(?:in|on)(?:to)?|sign(?:s|ed|ing)?[ \t]?in(?:to)?"
    r"|credentials?|creds|memorable[ \t]+(?:word|phrase|answer)|secret[ \t]+(?:word|answer|question)"
    r"|(?<=at the )prompt|ssh|sudo|wi-?fi|wlan|hotspot|(?P<key>tokens?|secrets?|keys?|auth))(?![a-z])"
)
# A digit beside a letter, in the text and in its `_KINDS` bytes.
# (or beside a dash or an underscore beside a letter: "sunshine-bay-42")
_LETTER_BY_DIGIT = re.compile(r"[0-9](?:(?<=[A-Za-z][0-9])|(?<=[A-Za-z][-_][0-9])|(?=[A-Za-z])|(?=[-_][A-Za-z]))")
_BYTE_BY_DIGIT = re.compile(rb"d(?:(?<=ad)|(?<=ajd)|(?=a)|(?=ja))")
# ASCII letters as "a", digits as "d", a dash or an underscore as "j", white space as " ", every other byte as ".".
_KINDS = bytes(
    ord("a") if chr(b).isascii() and chr(b).isalpha() else ord("d") if 0x30 <= b <= 0x39
    else ord("j") if chr(b) in "-_" else ord(" ") if chr(b) in " \t\n\r\f\v" else ord(".")
    for b in range(256)
)  # fmt: skip
_STRONG_SYMBOLS = "!#$%&*@^~"  # not "?": questions run together ("8?Share")
_INNER_SYMBOL = re.compile(r"[!#$%&*@^~]+[A-Za-z0-9]")
MAX_WORDS = 32  # words looked at per text, for each kind: bounds the work on hostile input

_STRIP_LEFT = "\"'`([{<«„“‘*_"
_STRIP_RIGHT = "\"'`)]}>»“”’*_.,;:"
_SPACES = " \t\n\r"
_CODE_MARK = re.compile(r"[/\\=()\[\]{}<>;|,]")  # a path, a URL, code, or "[redacted]"
_PASSWORD_WORD = re.compile(rf"(?:{PASSWORD_WORDS}|pass)", re.I)
_MEASURE = re.compile(r"\d+[-_][a-z]+", re.I)  # "20-character", "256-bit", "2-factor"
_VERSION = re.compile(r"v?\d+(?:[.-]\d+)+[a-z]?\d*|\d+(?:st|nd|rd|th|s|am|pm|h|m|k|x|gb|mb|kb|px)?", re.I)
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_DOMAIN = re.compile(r"\.[a-z]{2,}\d*$|\.(?:com|net|org|io|dev|local|lan|internal)\b")
# Software, file formats and encodings named with their number ("base64", "python3", "ed25519"): not passwords.
_TECH = re.compile(
    r"(?:base|sha|md|utf|ipv|x|win|python|py|node|http|https|tls|ssl|aes|rsa|ed|gpt|llama|qwen|iphone|pixel|galaxy"
    r"|android|ios|macos|windows|ubuntu|debian|fedora|centos|rhel|mysql|postgres|postgresql|redis|mongo|java|php|es"
    r"|mp|usb|hdmi|wpa|wep|gen|pep|rfc|iso|arm|amd|intel|core|ryzen|rtx|gtx|ddr|pcie|cuda|wifi|wi-fi|ssh-ed|ssh-rsa"
    r"|ecdsa-sha|h|vp|av|opus|ogg|flac|m4a|s|t|ec|gp|db|web|srv|server|host|vm|argon|bcrypt|scrypt|pbkdf|blake|crc"
    r"|gzip|bzip|zstd|lz|sql|html|css|ecma|vue|angular|react|next|nuxt|go|rust|ruby|perl|dotnet|net|jdk|jre|api|v)\d",
    re.I,
)
_PUBLIC_KEY_BODY = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)\s+$"
)


def may_find(view: Gated) -> bool:
    """Whether `hits` may find anything in a gated text: it needs a digit, and a symbol inside a word (a strong word),
    or a cue and either a letter next to a digit (told from the text's bytes, in C) or a quote."""
    if not view.digits:
        return False
    if next(_inner_symbols(view.text), None) is not None:
        return True
    if CUES.isdisjoint(view.spaced):
        return False
    if view.text.isascii():
        adjacent = _BYTE_BY_DIGIT.search(view.text.encode("ascii").translate(_KINDS)) is not None
    else:
        adjacent = _LETTER_BY_DIGIT.search(view.text) is not None
    return adjacent or any(quote in view.text for quote in _QUOTES)


def hits(text: str, view: Gated) -> Iterator[Hit]:
    """The suspect credentials in a folded `text` (gated as `view`): strong words anywhere, then password-shaped
    words in sentences with a cue; each word once."""
    if not view.digits or (CUES.isdisjoint(view.spaced) and not _has_symbol(text)):
        return
    lowered = view.lowered if len(view.lowered) == len(text) else text.lower()
    yield from _found(text, lowered, view.spaced)


def _has_symbol(text: str) -> bool:
    """Whether `text` holds one of the symbols a strong password has: nine searches in C, faster than one character
    class tried at every position."""
    for symbol in _STRONG_SYMBOLS:  # noqa: SIM110 - a generator costs more than the nine searches
        if symbol in text:
            return True
    return False


def find(text: str) -> Iterator[Hit]:
    """`hits` without its gates (what the gates are held to)."""
    yield from _found(text, text.lower(), CUES)


def _found(text: str, lowered: str, present: frozenset[str]) -> Iterator[Hit]:
    """Strong words, then password-shaped words with a cue in their sentence: each word once. Both start from the
    words a password could be (a letter beside a digit), which ordinary text has few of, not from the cues, which it
    has many of ("key", "token"): a cue is looked for only in the sentence of such a word."""
    seen: set[int] = set()
    for start in islice(_inner_symbols(text), MAX_WORDS):
        word = _word_at(text, start)
        if word is None or word[0] in seen:
            continue
        seen.add(word[0])
        if _strong(text[word[0] : word[1]]) and not talked_about(text, *word):
            yield Hit("a password", *word, suspect=True)
    anchors = sorted({_ANCHORS[word] for word in present & CUES})
    if not anchors:
        return
    if not _KEY_ANCHORS.issuperset(anchors) and any(quote in text for quote in _QUOTES):
        for start, end in _quoted_phrases(text, lowered, anchors):
            if start not in seen:
                seen.add(start)
                yield Hit("a password", start, end, suspect=True)
    for word in islice(_letters_by_digits(text), MAX_WORDS):
        if word[0] in seen:
            continue
        seen.add(word[0])
        value = text[word[0] : word[1]]
        generated = _generated(value)
        if not generated and not _chosen(value):
            continue
        if _NAMED.search(lowered, max(0, word[0] - 24), word[0]):
            continue  # the network's, the host's or the box's name: "the wifi is called Skynet5G", "ssh into web01"
        low, high = sentence(text, *word)
        cues = [cue for cue in _cues(lowered, anchors, low, high) if not word[0] <= cue.start() < word[1]]
        if not cues or not (generated or any(cue["key"] is None for cue in cues)):
            continue
        if not EXAMPLE_TALK.search(text, low, high) and not _PUBLIC_KEY_BODY.search(
            text, max(0, word[0] - 40), word[0]
        ):
            yield Hit("a password", *word, suspect=True)


def _quoted_phrases(text: str, lowered: str, anchors: list[str]) -> Iterator[tuple[int, int]]:
    """Words in quotes said in a sentence with a password cue ("for the cottage wifi type in 'apple crumble 1999'"):
    two to six words with a digit, a capital or three words at least, not a name ("the wifi is called 'Hotel 5G'")."""
    for m in islice(_PHRASE.finditer(text), MAX_WORDS):
        start, end = m.span("phrase")
        words = m["phrase"].split()
        if not (any(c.isdigit() for c in m["phrase"]) or len(words) >= 3 or any(w[:1].isupper() for w in words[1:])):
            continue
        if _NAMED.search(lowered, max(0, start - 26), start) or placeholder(m["phrase"]):
            continue
        if _NAMED_AFTER.match(lowered, m.end()):  # 'the shared "Guild Officers" vault': a vault's name
            continue
        low, high = sentence(text, start, end)
        cues = [cue for cue in _cues(lowered, anchors, low, high) if not start <= cue.start() < end]
        if any(cue["key"] is None for cue in cues) and not EXAMPLE_TALK.search(text, low, high):
            yield start, end


def _letters_by_digits(text: str) -> Iterator[tuple[int, int]]:
    """The words (trimmed, not names, versions or paths: `_trimmed`) holding a letter beside a digit, in order. In
    ASCII text the digits are found by their byte (memchr), not by a character class tried at every position, and the
    spaces around them in the same bytes."""
    if not text.isascii():
        last = -1
        for m in _LETTER_BY_DIGIT.finditer(text):
            if m.start() >= last:
                start, last = _bounds(text, m.start())
                if (word := _trimmed(text, start, last)) is not None:
                    yield word
        return
    kinds, last, size = text.encode("ascii").translate(_KINDS), -1, len(text)
    for found in _BYTE_BY_DIGIT.finditer(kinds):
        i = found.start()
        if i < last:
            continue
        start = kinds.rfind(b" ", max(0, i - _LONGEST), i) + 1 or max(0, i - _LONGEST)
        last = kinds.find(b" ", i, i + _LONGEST)
        if last < 0:
            last = min(size, i + _LONGEST)
        if (word := _trimmed(text, start, last)) is not None:
            yield word


def _cues(lowered: str, anchors: list[str], low: int, high: int) -> Iterator[re.Match[str]]:
    """The cues in `lowered[low:high]`, found from their anchors (`str.find`, in C) where one starts a word."""
    for anchor in anchors:
        i = lowered.find(anchor, low, high)
        while i >= 0:
            # a cue starts a word, and "1Password" is a password manager's name, not a password's
            if (i == 0 or not lowered[i - 1].isalpha() and not lowered.startswith("1password", i - 1)) and (
                m := _CUE.match(lowered, i, high)
            ):
                yield m
            i = lowered.find(anchor, i + 1, high)


def _inner_symbols(text: str) -> Iterator[int]:
    """Where a symbol stands between a letter or digit and another: inside a word, as in a strong password."""
    if not _has_symbol(text):
        return
    for m in _INNER_SYMBOL.finditer(text):
        if m.start() and text[m.start() - 1].isascii() and text[m.start() - 1].isalnum():
            yield m.start()


def _word_at(text: str, i: int) -> tuple[int, int] | None:
    """The word (a run of non-spaces) around `text[i]`, trimmed of quotes, brackets and closing punctuation."""
    return _trimmed(text, *_bounds(text, i))


_LONGEST = 72  # a word a password may be (64), and what trimming may take off it
_QUOTES = "\"'`«"
_PHRASE = re.compile(  # led by the quote (a character class the engine looks for in C), not by a lookbehind
    r"[\"'`«](?<![\w][\"'`«])(?P<phrase>[A-Za-z0-9][A-Za-z0-9!#$%&*^~.,-]*(?:[ \t][A-Za-z0-9!#$%&*^~.,-]+){1,5}"
    # or one word of letters and digits a symbol joins: "Casa.Sol.1988"
    r"|(?=[^\s\"'`»]*[0-9])(?=[^\s\"'`»]*[A-Za-z]{2})[A-Za-z0-9]+[.!#$%&*^~][A-Za-z0-9!#$%&*^~.-]*[A-Za-z0-9])"
    r"[\"'`»](?!\w)"
)
# What names the thing a word after it is the name of: a network, a host, a box ("ssh into web01").
_NAMED = re.compile(
    # (not "changed to": what a password was changed to is the password)
    r"(?<![a-z])(?:called|named|ssid|network|name|into|(?<!changed )(?<!set )(?<!reset )(?<!updated )to|on|at|from"
    r"|host(?:name)?|server|box|machine|vm|node"
    # a password manager's entry or vault: "under 'NAS'", "the vault 'Flat 3B'"
    r"|under|entry|item|vault|folder|labell?ed|titled|filed[ \t]+as|saved[ \t]+as|e\.g\.|i\.e\."
    # a title: "reading "Security Engineering" by Ross Anderson"
    r"|reading|read|books?|paper|article|talk|course|film|movie|song|album|chapter|episode|podcast"
    # or a piece to write: 'Blog idea: "How we keep your data safe"', 'subject line: "Your login, explained"'
    r"|idea|blog|post|headline|title|subject|slogan|tagline|caption|topic|theme|webinar|newsletter|video|slide"
    r"|(?:network|ssid|wi-?fi)[ \t]+(?:is|was)(?:[ \t]+(?:now|called|named))?)"  # "the new network is OH-Staff-5G"
    r"(?:[ \t]+(?:the|a|an|my|our|their|its))?[ \t]*[:=]?[ \t]*[\"'`«]?$"  # "under the 'Research Infra' vault"
)


_NAMED_AFTER = re.compile(
    r"[ \t]+(?:vault|folder|entry|item|collection|group|channel|server|team|list|tab|sheet|board|account|network"
    r"|wifi"
    r"|means|meant|stands[ \t]+for|refers[ \t]+to)\b"  # or a term defined: 'in my notes "the key intermediate" means'
)


def _bounds(text: str, i: int) -> tuple[int, int]:
    """The run of non-spaces around `text[i]`, looked for no further than `_LONGEST` characters either side: a
    longer one is no password, and is cut there."""
    low, high = max(0, i - _LONGEST), min(len(text), i + _LONGEST)
    start = max(text.rfind(space, low, i) for space in _SPACES) + 1 or low
    ends = [end for end in (text.find(space, i, high) for space in _SPACES) if end >= 0]
    return start, min(ends, default=high)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start] in _STRIP_LEFT:
        start += 1
    while end > start and text[end - 1] in _STRIP_RIGHT:
        end -= 1
    return (start, end) if _may_be_a_password(text[start:end]) else None


@lru_cache(maxsize=4096)
def _may_be_a_password(value: str) -> bool:
    """Not too short or long, and not code, a path or a URL, nor any of `_not_a_password` (the same words recur from
    text to text: "urllib3", "utf-8", "v2": each is judged once)."""
    return 6 <= len(value) <= 64 and not _CODE_MARK.search(value) and not _not_a_password(value)


def _not_a_password(value: str) -> bool:
    """A name, a number, an address, a path, a version or a hash: what sits beside a password word in prose."""
    if value[0] in "$%#&~^@" or "@" in value and "." in value.partition("@")[2]:
        return True  # a variable, a tag or a mention; an e-mail address
    return bool(
        placeholder(value)
        or example(value.upper())
        or _PASSWORD_WORD.search(value)  # "1Password", "KeePass2Android", "Password123"
        or _VERSION.fullmatch(value)
        or _MEASURE.fullmatch(value)
        or _HEX.fullmatch(value)
        or _DOMAIN.search(value)
        or _TECH.match(value)
    )


def _classes(value: str) -> tuple[bool, bool, bool, bool]:
    return (
        any(c.islower() for c in value),
        any(c.isupper() for c in value),
        any(c.isdigit() for c in value),
        any(c in _STRONG_SYMBOLS for c in value[1:]),
    )


def _strong(value: str) -> bool:
    """Lower and upper case, a digit and a symbol inside the word ("Fennel&Clove22", "Rv8!kTq2Wz"), or a word of
    small letters with digits and a symbol that is no address ("saltwater!77")."""
    if len(value) < 8 or not value.isascii():
        return False
    lower, upper, digit, symbol = _classes(value)
    if lower and upper and digit and symbol:
        return True
    return (
        lower
        and digit
        and symbol
        and "@" not in value
        and sum(c.isdigit() for c in value) >= 2
        and (_LETTERS.search(value) is not None)
    )


def _generated(value: str) -> bool:
    """A random mix of cases and digits ("mQ4tZr8KvX"): two capitals and two small letters at least."""
    if not 8 <= len(value) <= 64 or not value.isascii():
        return False
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    if upper < 2 or lower < 2 or not any(c.isdigit() for c in value) or ":" in value:
        return False
    # names run together ("CafeLuna-5G", "HelperBot2") have words in them; random characters seldom do
    return len(_CAPITALISED.findall(value)) < 2 and not _WORD.search(value) and looks_generated(value, max_run=3.0)


_LETTERS = re.compile(r"[A-Za-z]{4,}")
_CAPITALISED = re.compile(r"[A-Z][a-z]{2,}")
_WORD = re.compile(r"[a-z]{5,}")
_LEET = re.compile(r"[A-Za-z]\d+[A-Za-z]")
_JOINED = re.compile(r"[A-Za-z]{4,}\d[A-Za-z]{4,}")  # two words a digit joins


def _chosen(value: str) -> bool:
    """What a person picks as a password: a word run together with digits ("rosebud1952", "hunter2hunter2"),
    leetspeak ("sh4d0wfax"), or a symbol ("otter!river7"); small letters in any case ("AES-256" is a cipher)."""
    lower, upper, digit, symbol = _classes(value)
    if not (lower and digit) or not value.isascii() or _LETTERS.search(value) is None:
        return False
    # one digit among small letters is a name's as often ("argon2id", "utf8mb4"), unless it joins two words
    # ("galeforce9tidal")
    return (
        sum(c.isdigit() for c in value) >= 2
        or symbol
        or (upper and _LEET.search(value) is not None)
        or _JOINED.fullmatch(value) is not None
    )
