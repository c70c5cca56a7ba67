"""Text hidden in an encoding a model can read but a pattern cannot: base64, percent-encoding, HTML entities and
backslash escapes. Each decoded text is folded like the text around it; binary and garbage are dropped."""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Iterator
from itertools import islice
from urllib.parse import unquote

from .normalise import fold
from .rules import has_run, key_runs

_MIN_BASE64 = 20
_BASE64 = re.compile(rf"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{{{_MIN_BASE64},}}={{0,2}}")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});")
_ESCAPE = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|U[0-9A-Fa-f]{8})")
MAX_BLOBS = 8  # base64 candidates decoded per text
MIN_ESCAPES = 3  # fewer percent signs, entities or escapes than this are ordinary text ("100%", "&amp;")


def readable_base64(blob: str) -> str | None:
    """`blob` decoded from base64 when that gives printable UTF-8 text, else None."""
    padded = blob.rstrip("=") + "=" * (-len(blob.rstrip("=")) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_" if "-" in blob or "_" in blob else None, validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if len(text) >= 8 and all(c.isprintable() or c in "\t\r\n" for c in text) else None


def _unescape(m: re.Match[str]) -> str:
    code = int(m[0][2:], 16)
    return chr(code) if code <= 0x10FFFF else ""


def base64_texts(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, folded text) of each base64 run in `text` that decodes to readable text."""
    if not has_run(key_runs(text), _MIN_BASE64):  # the regex would step through every position for nothing
        return
    for m in islice(_BASE64.finditer(text), MAX_BLOBS):
        if (inner := readable_base64(m[0])) is not None:
            yield m.start(), m.end(), fold(inner)


_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9",
}  # fmt: skip
_DIGIT_WORD = "(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
# Four digits or more said as words, as a card or a code is read out over the phone: "five four one two, seven five
# three nine, ...". Their digits are a view of their own, for the number rules to judge.
_SPELLED = re.compile(rf"\b{_DIGIT_WORD}(?:(?:[ \t]*[-,][ \t]*|[ \t]+){_DIGIT_WORD}){{3,}}\b", re.IGNORECASE)
_GAP = re.compile(r"([ \t]*,[ \t]*|[ \t-]+)")
_SEPARATORS = str.maketrans(",-", "  ")
_NOT_ONE = ("zero", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _may_spell(text: str) -> bool:
    """Whether `text` has four digit words in a row: a split and a set lookup per word, in C, before the regex (which
    would try its alternation at every position of every text)."""
    lowered = text.lower()
    if not any(word in lowered for word in _NOT_ONE):  # most text has no digit word but "one"
        return False
    run = 0
    for word in lowered.translate(_SEPARATORS).split():
        if word.rstrip(".;:!?") in _DIGIT_WORDS:
            run += 1
            if run == 4:
                return True
        else:
            run = 0
    return False


def _as_digits(m: re.Match[str]) -> str:
    """A run of digit words as digits, a comma between groups kept as a space: "five four, one two" is "54 12"."""
    return "".join(_DIGIT_WORDS.get(part.lower(), " " if "," in part else "") for part in _GAP.split(m[0]))


def spelled_digits(text: str) -> str | None:
    """`text` with its runs of digit words written as digits, or None when it has none."""
    said, runs = spelled_runs(text)
    return said if runs else None


def spelled_runs(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """`spelled_digits` with where each run was and is: (start, end) in `text`, then in the text returned. For
    `redact`, which masks in `text` the runs whose digits hold a credential."""
    if not _may_spell(text):
        return text, []
    parts: list[str] = []
    runs: list[tuple[int, int, int, int]] = []
    done = length = 0
    for m in _SPELLED.finditer(text):
        digits = _as_digits(m)
        parts.append(text[done : m.start()])
        length += m.start() - done
        runs.append((m.start(), m.end(), length, length + len(digits)))
        parts.append(digits)
        length += len(digits)
        done = m.end()
    return "".join(parts) + text[done:], runs


def decoded(text: str) -> Iterator[str]:
    """The folded texts hidden in `text` by an encoding, if any, or by digits said as words."""
    for _, _, inner in base64_texts(text):
        yield inner
    if (said := spelled_digits(text)) is not None:
        yield said
    if len(_PERCENT.findall(text)) >= MIN_ESCAPES:
        yield fold(unquote(text))
    if len(_ENTITY.findall(text)) >= MIN_ESCAPES:
        yield fold(html.unescape(text))
    if len(_ESCAPE.findall(text)) >= MIN_ESCAPES:
        yield fold(_ESCAPE.sub(_unescape, text))
