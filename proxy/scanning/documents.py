"""The machine-readable zone (MRZ) of a passport or an identity card: the lines of capitals, digits and "<" at the
foot of the photo page, which hold the document's number, its holder's birth date and the expiry date, each with a
check digit (ICAO Doc 9303: weights 7, 3, 1, "<" counting 0, letters 10 to 35).

A line whose check digits pass is the document's own data: refused, whatever words are around it (copied onto a
visa form, into a note). A line of that shape whose digits fail is held (a line copied with a typo, or a made-up
one). The name line ("P<UTOERIKSSON<<ANNA<MARIA<<<") carries no number and is left alone.
"""

from __future__ import annotations

import re

from .rules import Rule

_WEIGHTS = (7, 3, 1)


def check_digit(field: str) -> str:
    """ICAO 9303's check digit of `field`."""
    total = 0
    for i, char in enumerate(field):
        value = 0 if char == "<" else int(char) if char.isdigit() else ord(char) - 55
        total += value * _WEIGHTS[i % 3]
    return str(total % 10)


def _passes(number: str, number_check: str, birth: str, birth_check: str) -> bool:
    return check_digit(number) == number_check and check_digit(birth) == birth_check


# A passport's (TD3, 44 characters) or a visa's or an older card's (TD2, 36) second line: document number and its
# check, nationality, birth date and its check, sex, expiry and its check, then optional data and checks.
_TD3_OR_TD2 = (
    r"(?P<number>[A-Z0-9<]{9})(?P<number_check>[0-9])[A-Z<]{3}(?P<birth>[0-9]{6})(?P<birth_check>[0-9])[MFX<]"
    r"[0-9]{6}[0-9](?:[A-Z0-9<]{14}[0-9<][0-9]|[A-Z0-9<]{7}[0-9])"
)
# An identity card's (TD1, 30 characters) second line: birth date, sex, expiry, nationality, optional data, check.
_TD1 = r"(?P<birth1>[0-9]{6})(?P<birth1_check>[0-9])[MFX<][0-9]{6}[0-9][A-Z<]{3}[A-Z0-9<]{11}[0-9]"
_LINE = re.compile(rf"(?P<keep>)(?P<secret>{_TD3_OR_TD2}|{_TD1})(?![A-Z0-9<])")


def _valid(m: re.Match[str]) -> bool:
    if m["number"] is not None:
        return _passes(m["number"], m["number_check"], m["birth"], m["birth_check"])
    return check_digit(m["birth1"]) == m["birth1_check"]


def _starts_a_line(m: re.Match[str]) -> bool:
    before = m.string[m.start() - 1 : m.start()]
    return not (before.isalnum() or before == "<")


MRZ: tuple[Rule, ...] = (
    Rule("a passport's machine-readable zone", _LINE, lambda m: _starts_a_line(m) and _valid(m), gate=("<<",),
         min_digits=14),
    Rule("a passport's machine-readable zone", _LINE, lambda m: _starts_a_line(m) and not _valid(m), gate=("<<",),
         min_digits=14, suspect=True),
)  # fmt: skip
