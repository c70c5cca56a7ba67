"""What every family of numbers shares: python-stdnum's validators (imported on the first check), a number named
by the words before it (`_named`: names, whose it is, a connector, the value), and a match that starts apart from
a word or a number."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import Any

from ..lazy import LazyPattern
from ..rules import Rule

Check = Callable[[re.Match[str]], bool]


@cache
def _stdnum(name: str) -> Any:
    return import_module(f"stdnum.{name}")


def bounded(pattern: str, flags: int = 0) -> LazyPattern:
    """`pattern` compiled with its runs of spaces bounded (at most 8): so is how far a sieve has to look from a
    name to the number after it, and a sieve looks that far, not to the end of the line, from each name."""
    return LazyPattern(pattern.replace(r"[ \t]+", r"[ \t]{1,8}").replace(r"[ \t]*", r"[ \t]{0,8}").replace(
        r"[ \t,]+", r"[ \t,]{1,8}"), flags)  # fmt: skip


def _valid(module: str, value: str) -> bool:
    try:
        return bool(_stdnum(module).is_valid(value))
    except Exception:  # noqa: BLE001 - a validator that trips on odd input has not validated it
        return False


def _digits(value: str) -> str:
    return "".join(filter(str.isdigit, value))


def _starts_apart(m: re.Match[str], reach: int = 1) -> bool:
    """The match does not start inside a word or a number: no letter or digit before it, nor (with `reach` 2) a digit
    and a space or dash (the patterns start with a character class, which the engine skips to, not a lookbehind)."""
    before = m.string[max(0, m.start() - reach) : m.start()]
    if before[-1:].isalnum() or before[-1:] in ("_", "-") and reach == 1:
        return False
    return not (reach == 2 and len(before) == 2 and before[0].isdigit() and before[1] in " -")


# Between the words that name a number and the number: whose it is ("for the office", "on the back of the Visa",
# "des Nutzers"), then "is", ":" or "=" (or nothing: "PIN 4821").
_FILLER = (
    r"(?:[ \t]+(?:for|of|on|to|at|in|from|with|by|near|behind|beside|under|outside|inside|after|before|until"
    r"|des|du|de|do|da|del|della"
    r"|vom|von|für|fur|zum|zur|zu|bei|im|am|an|auf|unter|hinter|neben|van|voor|för|til|av|pour|para|per|chez"
    # and where, in French: "le code de la boîte à clés devant l'agence : ..."
    r"|devant|derri[èe]re|pr[èe]s|dans|sous|sur|au|aux"
    # and where, in English, as a way or a view: "the garden gate onto Mill Lane opens with ..."
    r"|onto|into|off|opposite|past|across|along|facing)"
    # whole words, a form's name ("for the W-9"), a house number before its street ("at 14 Elm Rd")
    # or a time of day: "the barrier code after 6pm is ..."
    r"(?:[ \t]+(?:[^\s\d:=#*]{1,24}|[A-Za-z]{1,4}-?\d{1,3}(?![\d.,])|\d{1,4}[a-z]?(?=[ \t]+[A-Za-z])"
    r"|\d{1,2}(?::\d\d)?[ ]?(?:am|pm)\b))+?"
    r"(?:[ \t]+#?\d{1,4}[a-z]?(?=[ \t]*[:=]|[ \t]+[^\s\d]))?"  # a place's number: "the safe in room 412 is"
    # or whose, in a word before a colon or "is": "Rodné číslo manželky:", "rodné číslo syna je ..."
    r"|(?:[ \t]+[^\s\d:=#*]{1,24}){1,3}(?=[ \t]*:|[ \t]+(?:je|jest|este|is|ist|est|es|é|è|är|er|to)[ \t]))?"
    r"(?:[ \t]*\([^()\n]{1,60}\))?"  # and an aside: "Backup 2FA codes (Google): ...", "the safe (room 412): ..."
    # or between dashes (the folded view's are hyphens): "The alarm code - and I have told Tom ... - is 0619"
    r"(?:[ \t]+-[ \t][^\n]{1,240}?[ \t]-(?=[ \t]+(?:is|was)[ \t]))?"
)
_CONNECTOR = (
    r"(?:[ \t]*[:=#-][ \t]*|[ \t]+(?:is|was|are|ist|est|es|é|è|lautet|c'est)"
    r"(?:[ \t]+(?:now|still|set[ \t]+to|changed[ \t]+to))?[ \t]*:?[ \t]+"
    r"|[ \t]+(?:(?:is|was|will)[ \t]+)?(?:changed|changes|change|set|reset|updated)[ \t]+to[ \t]+"
    r"|[ \t]+(?:opens?[ \t]+with)[ \t]+"
    # an aside that gives it: "the phone PIN, which is 4417", "a guest code, it's 884213", "the PIN - it's 0912"
    r"|[ \t]*[,;–—-][ \t]*(?:which[ \t]+(?:is|was)|that'?s|it'?s|it[ \t]+is)[ \t]+"
    # or an aside after "is", then a colon: "my PIN is, as always, the last four of my old house number: 1738"
    r"|[ \t]+is,[^\n:]{1,80}:[ \t]*"
    r"|[ \t]+)"
)
# or a JSON field's: '"passport":"Z6184273"' (for the id numbers: a code's field is `codes.JSON_CODE`'s, held)
CONNECTOR_OR_FIELD = rf"(?:[\"'][ \t]*[:=][ \t]*[\"']?|{_CONNECTOR})"
# the value ends there: not "1.26.4", "3108a" or "4821-5"; a comma before words in a script without spaces is a
# comma ("110108199003072740，支付宝"), and a kana, an ideograph or a Hangul syllable after it is the next word
_END = r"(?![.,/-][A-Za-z0-9_]|(?![\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])\w)"  # "4827です" ends at 7


# Sieves for gate words too common to sieve by "a digit follows on the line" ("id" is in "valid", "provide").
_SIEVES = {
    "id": r"id(?:entity|entification)?[ \t]{1,8}(?:card[ \t]{1,8})?(?:number|no|nr)",
    "nhs": r"nhs[ \t]{1,8}(?:number|no(?![a-z])|#)",
    "pps": r"pps(?:n|[ \t]{1,8}(?:number|no))(?![a-z])",
    "itin": r"itin[^a-z]",
    "nif": r"nif[^a-z]",
    "avs": r"avs[^a-z]",
    "file": r"file[ \t]{1,8}number",
    "ni": r"ni[ \t]{1,8}(?:number|no)(?![a-z])",  # "ni" is in "morning"
    "nin": r"nin(?![a-z])[^\n]{0,400}?[0-9]",  # and "nin" in "running"
    **{word: word + r"(?![a-z])[^\n]{0,400}?\d" for word in ("tin", "spi", "nip")},
    "public": r"public[ \t]{1,8}service",
    # short names that other words hold ("security", "foreign", "reign"): only where they end a word
    **{word: word + r"(?![a-z])[^\n]{0,400}?\d" for word in ("sécu", "secu", "egn", "oib", "cnp", "amka")},
}


def _named(
    label: str,
    names: str,
    value: str,
    gate: tuple[str, ...],
    check: Check | None = None,
    *,
    suspect: bool = False,
    connector: str = _CONNECTOR,
    any_value: bool = False,
    filler: str = _FILLER,
) -> Rule:
    """A number named by one of `names` (lower-case regex alternatives): `names`, whose it is, a connector, `value`
    (which holds a digit unless `any_value`: the check asks for them then).

    Each gate word is sieved: a digit (or with `any_value` a letter or digit) follows it on its line."""
    pattern = bounded(rf"(?P<keep>(?<![a-z])(?:{names}){filler}{connector})(?P<secret>{value}){_END}", re.I)
    after = r"[^\n]{0,400}?[a-z0-9]" if any_value else r"[^\n]{0,400}?\d"  # past the longest name, filler and connector
    sieved = {word: _SIEVES.get(word, re.escape(word) + after) for word in gate}
    return Rule(label, pattern, check or (lambda m: True), gate=gate, sieves=tuple(sieved.items()), suspect=suspect)


def _not_a_count(m: re.Match[str]) -> bool:
    """Not a length or a count said of the code ("PIN codes are 6 digits long", "PIN of 4 to 6 digits")."""
    return not _A_COUNT.match(m.string[m.end("secret") : m.end("secret") + 20].lower())


_A_COUNT = re.compile(
    r"[ \t]*(?:to[ \t]+\d+[ \t]+)?(?:digits?|characters?|chars?|numbers?|times|tries|attempts|seconds?|minutes?|hours?"
    r"|days?|weeks?|months?|years?|words?|pages?|%|px|ms|mb|gb|kb|sq|square|ft|feet|metres?|meters?|m|cm|mm|km|kg|lbs?|miles?"
    r"|eur|usd|gbp|dollars?|euros?|pounds?|am|pm)\b"
)
